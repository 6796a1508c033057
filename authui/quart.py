"""authui for Quart: ``from authui.quart import AuthUI``."""

from __future__ import annotations

from authui.integrations.quart import AuthUI as AuthUI
from authui.integrations.quart import current_config as current_config

__all__ = ["AuthUI", "current_config"]
