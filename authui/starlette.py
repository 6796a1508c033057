"""authui for Starlette: ``from authui.starlette import AuthApp, AuthMiddleware, get_session``."""

from __future__ import annotations

from authui.integrations.starlette import (
    AuthApp,
    AuthMiddleware,
    Handlers,
    get_session,
    get_token,
    handlers,
    setup_templates,
    sign_in,
    sign_out,
    update,
)
from authui.sessions.types import Session, SessionUser

__all__ = [
    "AuthApp",
    "AuthMiddleware",
    "Handlers",
    "Session",
    "SessionUser",
    "get_session",
    "get_token",
    "handlers",
    "setup_templates",
    "sign_in",
    "sign_out",
    "update",
]
