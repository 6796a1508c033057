"""Starlette integration (FastAPI builds on it): the auth routes as a mountable ASGI app
or as route handlers, ``get_session`` / ``get_token``, a pure ASGI middleware putting the
session on ``request.state.auth`` and guarding path prefixes, server-side
``sign_in``/``sign_out``/``update``, and authui in ``Jinja2Templates``.
"""

from __future__ import annotations

from authui.integrations.starlette.app import AuthApp as AuthApp
from authui.integrations.starlette.app import Handlers as Handlers
from authui.integrations.starlette.app import handlers as handlers
from authui.integrations.starlette.helpers import sign_in as sign_in
from authui.integrations.starlette.helpers import sign_out as sign_out
from authui.integrations.starlette.helpers import update as update
from authui.integrations.starlette.middleware import AuthMiddleware as AuthMiddleware
from authui.integrations.starlette.session import get_session as get_session
from authui.integrations.starlette.session import get_token as get_token
from authui.integrations.starlette.templates import setup_templates as setup_templates

__all__ = [
    "AuthApp",
    "AuthMiddleware",
    "Handlers",
    "get_session",
    "get_token",
    "handlers",
    "setup_templates",
    "sign_in",
    "sign_out",
    "update",
]
