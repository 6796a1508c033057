"""authui for FastAPI: all of ``authui.starlette``, plus the session dependencies.

``from authui.fastapi import AuthApp, AuthMiddleware, CurrentSession, RequireSession``.
"""

from __future__ import annotations

from authui import starlette
from authui.integrations.fastapi import (
    CurrentSession,
    RequireSession,
    current_session,
    require_session,
)
from authui.starlette import *  # noqa: F403 (FastAPI apps are Starlette apps)

__all__ = [
    *starlette.__all__,
    "CurrentSession",
    "RequireSession",
    "current_session",
    "require_session",
]
