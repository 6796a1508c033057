"""authui for FastAPI: all of ``authui.starlette``, plus the session as a dependency:
``from authui.fastapi import AuthMiddleware, CurrentSession, RequireSession``.

``CurrentSession`` gives the session or ``None``; ``RequireSession`` gives a session with a
user (``RequireMfaSession``: one who signed in with two-step verification), or refuses:
``401`` JSON for API callers (``403`` without two-step verification), a redirect to the
sign-in page (the two-factor page) for browsers (requests that accept HTML), a close (code
1008) for WebSockets. They read what ``AuthMiddleware`` read for the request, so the
session is checked once however many dependencies ask.
"""

from __future__ import annotations

from typing import Annotated, cast

from fastapi import Depends, HTTPException, WebSocketException
from starlette.requests import HTTPConnection

from authui.http import wants_page
from authui.integrations import guard
from authui.starlette import AuthApp as AuthApp
from authui.starlette import AuthMiddleware as AuthMiddleware
from authui.starlette import Handlers as Handlers
from authui.starlette import Session as Session
from authui.starlette import SessionUser as SessionUser
from authui.starlette import account as account
from authui.starlette import get_access_token as get_access_token
from authui.starlette import get_session as get_session
from authui.starlette import get_sign_in_facts as get_sign_in_facts
from authui.starlette import get_token as get_token
from authui.starlette import handlers as handlers
from authui.starlette import setup_templates as setup_templates
from authui.starlette import sign_in as sign_in
from authui.starlette import sign_out as sign_out
from authui.starlette import update as update
from authui.starlette.state import RequestAuth, need_middleware


async def current_session(request: HTTPConnection) -> Session | None:
    """The request's session, or ``None`` (the dependency behind ``CurrentSession``)."""
    if RequestAuth.of(request.scope) is None:
        raise need_middleware("CurrentSession")
    return await get_session(request)


async def require_session(request: HTTPConnection) -> Session:
    """The request's session with a signed-in user (the dependency behind
    ``RequireSession``).

    Raises:
        HTTPException: 401 for API callers, 302 to the sign-in page for browsers.
        WebSocketException: 1008 for a WebSocket.
    """
    session = await current_session(request)
    if session and session.get("user"):
        return session
    if request.scope["type"] == "websocket":
        raise WebSocketException(code=1008, reason=guard.unauthorized_message())
    headers = request.headers
    if wants_page(headers.get("accept"), headers.get("content-type")):
        here = cast(RequestAuth, RequestAuth.of(request.scope))
        query = request.url.query
        target = request.url.path + (f"?{query}" if query else "")
        location = guard.sign_in_location(here.config, here.integration.base_path, target)
        raise HTTPException(status_code=302, headers={"Location": location})
    raise HTTPException(
        status_code=401, detail=guard.unauthorized_message(), headers=dict([guard.CHALLENGE])
    )


async def require_mfa_session(request: HTTPConnection) -> Session:
    """The request's session with a signed-in user who signed in with two-step
    verification (the dependency behind ``RequireMfaSession``; see
    ``get_sign_in_facts``).

    Raises:
        HTTPException: As ``require_session``; then, without two-step verification, 403
            for API callers and 302 to the account center's two-factor page for browsers.
        WebSocketException: 1008 for a WebSocket.
    """
    session = await require_session(request)
    if (await get_sign_in_facts(request)).multi_factor:
        return session
    if request.scope["type"] == "websocket":
        raise WebSocketException(code=1008, reason=guard.mfa_message())
    headers = request.headers
    if wants_page(headers.get("accept"), headers.get("content-type")):
        here = cast(RequestAuth, RequestAuth.of(request.scope))
        query = request.url.query
        target = request.url.path + (f"?{query}" if query else "")
        location = guard.mfa_location(here.integration.base_path, target)
        raise HTTPException(status_code=302, headers={"Location": location})
    raise HTTPException(status_code=403, detail=guard.mfa_message())


CurrentSession = Annotated[Session | None, Depends(current_session)]
"""A view parameter holding the session, or ``None`` when nobody is signed in."""

RequireSession = Annotated[Session, Depends(require_session)]
"""A view parameter holding the session; without a signed-in user the view does not run."""

RequireMfaSession = Annotated[Session, Depends(require_mfa_session)]
"""A view parameter holding the session of a user who signed in with two-step
verification; without it the view does not run."""


__all__ = [
    "AuthApp",
    "AuthMiddleware",
    "CurrentSession",
    "Handlers",
    "RequireMfaSession",
    "RequireSession",
    "Session",
    "SessionUser",
    "account",
    "current_session",
    "get_access_token",
    "get_session",
    "get_sign_in_facts",
    "get_token",
    "handlers",
    "require_mfa_session",
    "require_session",
    "setup_templates",
    "sign_in",
    "sign_out",
    "update",
]
