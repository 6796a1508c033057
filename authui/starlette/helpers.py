"""Server-side ``sign_in``, ``sign_out``, ``update``, ``get_access_token`` and ``account``
for Starlette and FastAPI views."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from starlette.requests import HTTPConnection
from starlette.responses import Response

from authui.cookies import Cookie
from authui.errors import RefreshTokenError
from authui.integrations.account import AccountCalls
from authui.integrations.calls import Caller
from authui.integrations.state import ConfigSource
from authui.sessions.types import Session
from authui.starlette.requests import add_cookies, starlette_response
from authui.starlette.state import (
    RequestAuth,
    caller,
    integration_for,
    need_middleware,
)


async def _caller(request: HTTPConnection, config: ConfigSource | None) -> Caller:
    here = RequestAuth.of(request.scope)
    if here is not None and (config is None or config is here.integration.source):
        return caller(here.integration, here.config, request)
    if config is None:
        raise need_middleware("a server-side helper without a config")
    integration = integration_for(config)
    return caller(integration, await integration.config_for(request), request)


async def sign_in(
    request: HTTPConnection,
    provider: str | None = None,
    *,
    config: ConfigSource | None = None,
    redirect_to: str | None = None,
    **params: str,
) -> Response:
    """Start a sign-in from a view: a redirect response to return.

    Without a provider, the sign-in page. For credentials, ``params`` are the fields (a
    refused sign-in raises ``CredentialsSignin``); for other providers they are added to
    the authorization request (``prompt=…``, ``login_hint=…``). The target is
    ``redirect_to``, else the page the browser came from (``Referer``), else ``/``.

    Args:
        request: The request.
        provider: The provider's id.
        config: The configuration; may be left out under ``AuthMiddleware``.
        redirect_to: Where the browser goes once signed in.

    Raises:
        AuthError: The sign-in failed (e.g. ``CredentialsSignin``).
    """
    answer = await (await _caller(request, config)).sign_in(provider, redirect_to, params)
    return starlette_response(answer)


async def sign_out(
    request: HTTPConnection,
    *,
    config: ConfigSource | None = None,
    redirect_to: str | None = None,
    federated: bool = False,
) -> Response:
    """End the session from a view: a redirect response (its cookies cleared) to return.

    ``federated``: sign out of the OpenID provider too, when the user signed in with one
    that has ``federated_logout``: the redirect goes to the provider's end_session
    endpoint, which sends the browser on to ``redirect_to`` afterwards.
    """
    caller = await _caller(request, config)
    response = starlette_response(await caller.sign_out(redirect_to, federated=federated))
    here = RequestAuth.of(request.scope)
    if here is not None:
        here.session, here.loaded = None, True
        request.state.auth = None
    return response


async def get_access_token(
    request: HTTPConnection,
    provider: str,
    *,
    config: ConfigSource | None = None,
    response: Response | None = None,
) -> str | None:
    """A valid access token of the signed-in user's account at ``provider``, to call its
    API: the stored one, or a new one when it has expired (one refresh however many requests
    ask at once, in any process); ``None`` when nobody is signed in.

    With tokens kept in a JWT session (``JWTOptions.provider_tokens``), a refresh re-issues
    the session cookie: it goes on ``response`` when given, else through
    ``AuthMiddleware`` on whatever the view returns.

    Raises:
        RefreshTokenError: The user has no account there, or it cannot be refreshed (no
            refresh token, or the provider refused it): send them to sign in again.
    """
    here = RequestAuth.of(request.scope)
    try:
        token, cookies = await (await _caller(request, config)).access_token(provider)
    except RefreshTokenError as error:
        _pass_on(list(error.cookies), here, response)
        raise
    _pass_on(cookies, here, response)
    return token


def _pass_on(cookies: list[Cookie], here: RequestAuth | None, response: Response | None) -> None:
    """Cookies of a helper's answer onto ``response``, else the middleware's response."""
    if not cookies:
        return
    if response is not None:
        add_cookies(response, cookies)
    elif here is not None:
        here.add_cookies(cookies)


async def update(
    request: HTTPConnection,
    data: Mapping[str, Any],
    *,
    config: ConfigSource | None = None,
    response: Response | None = None,
) -> Session | None:
    """Update the session (``trigger="update"`` in the callbacks); returns the new one.

    The refreshed session cookie goes on ``response`` when given (in FastAPI, a
    ``response: Response`` parameter of the view), else on whatever response the view
    returns, through ``AuthMiddleware``.

    Raises:
        RuntimeError: Neither a response nor ``AuthMiddleware`` to carry the cookie.
    """
    here = RequestAuth.of(request.scope)
    if response is None and here is None:
        raise need_middleware("update() without a response")
    session, cookies = await (await _caller(request, config)).update(data)
    if response is not None:
        add_cookies(response, cookies)
    elif here is not None:
        here.add_cookies(cookies)
    if here is not None:
        here.session, here.loaded = session, True
        request.state.auth = session
    return cast("Session | None", session)


def account(
    request: HTTPConnection,
    *,
    config: ConfigSource | None = None,
    response: Response | None = None,
) -> AccountCalls:
    """The account center's actions for the request's user (``await
    account(request).revoke_other_sessions()``; see ``authui.integrations.account``).

    The cookies an action sets go on ``response`` when given, else through
    ``AuthMiddleware`` on whatever the view returns.

    Raises:
        RuntimeError: Neither a response nor ``AuthMiddleware`` to carry the cookies.
    """
    here = RequestAuth.of(request.scope)
    if response is None and here is None:
        raise need_middleware("account() without a response")

    async def make() -> Caller:
        return await _caller(request, config)

    def keep(cookies: list[Cookie]) -> None:
        if here is not None and cookies:
            here.session, here.loaded = None, False  # read anew after the change
        _pass_on(cookies, here, response)

    return AccountCalls(make, keep)
