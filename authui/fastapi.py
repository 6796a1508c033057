"""authui for FastAPI: the Starlette integration plus the session dependencies.

``from authui.fastapi import AuthApp, AuthMiddleware, CurrentSession, RequireSession``.
"""

from __future__ import annotations

from authui.integrations.fastapi import (
    CurrentSession,
    RequireSession,
    current_session,
    require_session,
)
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
    "CurrentSession",
    "Handlers",
    "RequireSession",
    "Session",
    "SessionUser",
    "current_session",
    "get_session",
    "get_token",
    "handlers",
    "require_session",
    "setup_templates",
    "sign_in",
    "sign_out",
    "update",
]
