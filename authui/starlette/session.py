"""Reading the session in Starlette and FastAPI: ``get_session``, ``get_sign_in_facts``
and ``get_token``."""

from __future__ import annotations

from typing import Any, cast

from starlette.requests import HTTPConnection

from authui.integrations.state import ConfigSource
from authui.jwt import JWT, Secret
from authui.jwt import get_token as get_core_token
from authui.sessions.facts import SignInFacts
from authui.sessions.types import Session
from authui.starlette.requests import core_request, url_of
from authui.starlette.state import (
    RequestAuth,
    caller,
    integration_for,
    need_middleware,
)


async def get_session(
    request: HTTPConnection, config: ConfigSource | None = None
) -> Session | None:
    """The session of a request (or WebSocket), or ``None``: what ``GET <base>/session``
    would answer, ``session`` callback included.

    The session token comes from the session cookie, or else from an
    ``Authorization: Bearer`` header. No route needs to be mounted: an API that only reads
    the sessions an Auth.js app or another authui service issues needs just the same
    secret (and, for database sessions, the same database).

    Under ``AuthMiddleware`` the session is read once per request, and a rolling
    session's refreshed cookie goes on the response; without it, nothing is sent back.

    Args:
        request: The Starlette request or WebSocket (FastAPI's too).
        config: The configuration; may be left out under ``AuthMiddleware``.
    """
    here = RequestAuth.of(request.scope)
    if here is not None and (config is None or config is here.integration.source):
        return cast("Session | None", await here.load(request))
    if config is None:
        raise need_middleware("get_session(request) without a config")
    integration = integration_for(config)
    config_ = await integration.config_for(request)
    session, _ = await caller(integration, config_, request).session()
    return cast("Session | None", session)


async def get_sign_in_facts(
    request: HTTPConnection, config: ConfigSource | None = None
) -> SignInFacts:
    """When and how the session's user signed in: ``auth_time``, ``amr`` and
    ``multi_factor`` (a second factor, a browser trusted after one, or a passkey), from
    the session cookie or a bearer token; ``UNKNOWN`` (no time, no methods) without a
    session.

    Args:
        request: The Starlette request or WebSocket (FastAPI's too).
        config: The configuration; may be left out under ``AuthMiddleware``.
    """
    here = RequestAuth.of(request.scope)
    if here is not None and (config is None or config is here.integration.source):
        return await caller(here.integration, here.config, request).facts()
    if config is None:
        raise need_middleware("get_sign_in_facts(request) without a config")
    integration = integration_for(config)
    config_ = await integration.config_for(request)
    return await caller(integration, config_, request).facts()


def get_token(
    request: HTTPConnection,
    *,
    secret: Secret | None,
    secure_cookie: bool | None = None,
    cookie_name: str | None = None,
    salt: str | None = None,
    raw: bool = False,
) -> JWT | str | None:
    """The decoded session JWT of a request, like ``getToken`` of ``@auth/core/jwt``:
    from the session cookie (its chunks joined), else an ``Authorization: Bearer`` header;
    ``None`` when there is none or it does not decode.

    Args:
        request: The Starlette request or WebSocket.
        secret: The secret(s), newest first (``AUTH_SECRET``).
        secure_cookie: Read ``__Secure-authjs.session-token``; by default when the
            request came over HTTPS.
        cookie_name: Read this cookie instead (an app's renamed session cookie).
        salt: The key derivation salt; defaults to the cookie name.
        raw: Return the token string undecoded.
    """
    secure = url_of(request).startswith("https:") if secure_cookie is None else secure_cookie
    options: dict[str, Any] = {"cookie_name": cookie_name, "salt": salt, "raw": raw}
    return get_core_token(
        core_request(request, b""), secret=secret, secure_cookie=secure, **options
    )
