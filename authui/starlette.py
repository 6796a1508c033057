"""authui for Starlette: ``from authui.starlette import AuthApp, AuthMiddleware, get_session``."""

from __future__ import annotations

from authui.integrations.starlette.app import AuthApp, Handlers, handlers
from authui.integrations.starlette.helpers import sign_in, sign_out, update
from authui.integrations.starlette.middleware import AuthMiddleware
from authui.integrations.starlette.session import get_session, get_token
from authui.integrations.starlette.templates import setup_templates
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
