"""Helpers for testing apps and integrations built on authui."""

from __future__ import annotations

from authui.testing.client import AuthClient as AuthClient

__all__ = ["AuthClient"]
