"""authui for Starlette (FastAPI builds on it): ``from authui.starlette import AuthApp,
AuthMiddleware, get_session``.

The auth routes as a mountable ASGI app (``AuthApp``) or as route handlers
(``handlers``); ``AuthMiddleware``, which answers the auth routes, puts the session on
``request.state.auth`` and guards path prefixes; ``get_session`` / ``get_token``; the
server-side ``sign_in``/``sign_out``/``update``/``get_access_token`` and ``account``;
authui in ``Jinja2Templates`` (``setup_templates``). One module per part.
"""

from __future__ import annotations

from authui.sessions.types import Session, SessionUser
from authui.starlette.app import AuthApp, Handlers, handlers
from authui.starlette.helpers import account, get_access_token, sign_in, sign_out, update
from authui.starlette.middleware import AuthMiddleware
from authui.starlette.session import get_session, get_sign_in_facts, get_token
from authui.starlette.templates import setup_templates

__all__ = [
    "AuthApp",
    "AuthMiddleware",
    "Handlers",
    "Session",
    "SessionUser",
    "account",
    "get_access_token",
    "get_session",
    "get_sign_in_facts",
    "get_token",
    "handlers",
    "setup_templates",
    "sign_in",
    "sign_out",
    "update",
]
