"""Server-side calls into the core, framework-free: what ``auth()``, ``get_session`` and the
``sign_in``/``sign_out``/``update`` helpers of every integration send.

The application itself is the caller, so these calls skip the CSRF check and answer raw
(``InternalResponse``); only the browser's ``Cookie`` and ``Host`` headers go along, and the
``X-Forwarded-*`` ones, which the core reads when ``trusted_proxies`` says to.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from authui.config import AuthConfig
from authui.cookies import Cookie, CookieTable
from authui.core import Auth, access_token_of, facts_of, session_of, to_response
from authui.errors import AuthError, InvalidHost
from authui.http import Headers, InternalResponse
from authui.http import Request as CoreRequest
from authui.http import Response as CoreResponse
from authui.integrations.state import Integration
from authui.options import Options, resolve
from authui.providers.credentials import Credentials
from authui.proxies import public_url
from authui.sessions.facts import UNKNOWN, SignInFacts
from authui.urls import with_query

FORWARDED = (
    "cookie",
    "host",
    "user-agent",
    "x-forwarded-for",
    "x-forwarded-host",
    "x-forwarded-proto",
)
"""The request headers a server-side call passes on (the browser's ``User-Agent`` too: the
account center records it with what the call changes)."""


def cookie_names(options: Options, url: str, headers: Iterable[tuple[str, str]]) -> CookieTable:
    """The cookie names and attributes of a request to ``url``: secure when the URL the
    client asked for (as trusted proxies forwarded it) is https, as the core decides."""
    proxies = options.config.trusted_proxies
    if proxies:
        with contextlib.suppress(InvalidHost):  # the core refuses such a request anyway
            url = public_url(url, Headers(headers), proxies)
    return options.cookies(url)


@dataclass(frozen=True, slots=True)
class Caller:
    """A browser request the application acts for.

    Args:
        integration: The integration serving the configuration.
        config: The request's prepared configuration.
        url: The request's absolute URL.
        headers: The request's headers (only ``Cookie``, ``Host``, ``Authorization`` and
            ``Referer`` are read).
        client: The client's address.
    """

    integration: Integration
    config: AuthConfig
    url: str
    headers: list[tuple[str, str]]
    client: str | None = None

    async def call(
        self, path: str, body: Mapping[str, Any] | None = None, *, cookie: str | None = None
    ) -> InternalResponse:
        """Call the core at ``path`` (GET, or POST with a JSON ``body``); ``cookie``
        replaces the browser's ``Cookie`` header.

        A request for an invalid or untrusted host is refused by the core: the answer
        is its 400.
        """
        kept = [(k, v) for k, v in self.headers if k.lower() in FORWARDED]
        if cookie is not None:
            kept = [(k, v) for k, v in kept if k.lower() != "cookie"] + [("Cookie", cookie)]
        kept.append(("Content-Type", "application/json"))
        request = CoreRequest.build(
            "GET" if body is None else "POST",
            _origin_text(self.url) + path,
            headers=kept,
            body=b"" if body is None else json.dumps(body).encode(),
            client=self.client,
        )
        return await Auth(request, self.config, for_app=True)

    def _path(self, action: str) -> str:
        return f"{self.integration.base_path}/{action}"

    def session_cookies(self, answer: InternalResponse) -> list[Cookie]:
        """The session cookies of an answer (not the callback-URL and CSRF cookies the
        core issues to every browser request it sees)."""
        name = self._cookies().session_token.name
        return [c for c in answer.cookies if c.name.startswith(name)]

    def kept_cookies(self, answer: InternalResponse) -> list[Cookie]:
        """The cookies of an answer that the app's response carries: the session's, and
        those an action sets (say, the account center's set-up of an authenticator app);
        not the callback-URL and CSRF cookies the core issues to every browser request."""
        table = self._cookies()
        issued = {table.callback_url.name, table.csrf_token.name}
        return [c for c in answer.cookies if c.name not in issued]

    def _cookies(self) -> CookieTable:
        return cookie_names(resolve(self.config), self.url, self.headers)

    async def session(self) -> tuple[dict[str, Any] | None, list[Cookie]]:
        """The session, and the session cookies to send back (a rolling session's new
        expiry; an ended one's deletion).

        The token comes from the session cookie; without one, from an
        ``Authorization: Bearer <token>`` header (the JWT, or with database sessions the
        session token), as another service sends it. A bearer request gets no cookies.
        """
        config = self.config
        request = CoreRequest.build("GET", self.url, headers=self.headers, client=self.client)
        name = self._cookies().session_token.name
        if any(k == name or k.startswith(name + ".") for k in request.cookies):
            session, cookies = await session_of(request, config)
        else:
            bearer = request.bearer_token
            if bearer is None:
                return None, []  # nothing to check: no session cookie, no bearer token
            cookie = ("Cookie", f"{name}={quote(bearer, safe='')}")
            headers = [(k, v) for k, v in self.headers if k.lower() != "cookie"]
            request = CoreRequest.build("GET", self.url, headers=[*headers, cookie])
            session, cookies = (await session_of(request, config))[0], []
        if not isinstance(session, dict) or not session:
            session = None
        return session, cookies

    async def facts(self) -> SignInFacts:
        """When and how the session's user signed in (``auth_time``, ``amr``): from the
        session cookie, or a bearer token as ``session`` reads it."""
        request = CoreRequest.build("GET", self.url, headers=self.headers, client=self.client)
        name = self._cookies().session_token.name
        if not any(k == name or k.startswith(name + ".") for k in request.cookies):
            bearer = request.bearer_token
            if bearer is None:
                return UNKNOWN
            cookie = ("Cookie", f"{name}={quote(bearer, safe='')}")
            headers = [(k, v) for k, v in self.headers if k.lower() != "cookie"]
            request = CoreRequest.build("GET", self.url, headers=[*headers, cookie])
        return await facts_of(request, self.config)

    def _callback_url(self, redirect_to: str | None) -> str:
        referer = next((v for k, v in self.headers if k.lower() == "referer"), None)
        return redirect_to or referer or "/"

    async def sign_in(
        self, provider: str | None, redirect_to: str | None, params: Mapping[str, str]
    ) -> CoreResponse:
        """The redirect that starts a sign-in (see the integrations' ``sign_in``).

        Raises:
            AuthError: The sign-in failed (e.g. ``CredentialsSignin``).
        """
        callback_url = self._callback_url(redirect_to)
        if provider is None:
            location = with_query(self._path("signin"), {"callbackUrl": callback_url})
            return CoreResponse(302, [("Location", location)])
        target = resolve(self.config).provider(provider)
        body: dict[str, Any] = {"callbackUrl": callback_url}
        if isinstance(target, Credentials):
            path = self._path(f"callback/{target.id}")
            body.update(params)
        else:
            path = self._path(f"signin/{target.id}")
            path = with_query(path, params) if params else path
        return _redirect(await self.call(path, body))

    async def sign_out(self, redirect_to: str | None, *, federated: bool = False) -> CoreResponse:
        """The redirect that ends the session, its cookies cleared; with ``federated``, on
        to the provider's end_session endpoint when the browser signed in with a provider
        that has ``federated_logout`` (see ``authui.actions.federated``)."""
        body = {"callbackUrl": self._callback_url(redirect_to)}
        if federated:
            body["federated"] = "1"
        return _redirect(await self.call(self._path("signout"), body))

    async def access_token(self, provider: str) -> tuple[str | None, list[Cookie]]:
        """The signed-in user's valid access token at ``provider`` (refreshed when it has
        expired), or ``None`` when nobody is signed in; and the cookies to set (see
        ``authui.core.access_token_of``).

        Raises:
            RefreshTokenError: No account there, or its token cannot be refreshed; its
                ``cookies`` are to be set all the same.
        """
        request = CoreRequest.build("GET", self.url, headers=self.headers, client=self.client)
        return await access_token_of(request, self.config, provider)

    async def update(self, data: Mapping[str, Any]) -> tuple[dict[str, Any] | None, list[Cookie]]:
        """Update the session (``trigger="update"``): the new one and its cookies."""
        answer = await self.call(self._path("session"), {"data": dict(data)})
        return _session_of(answer), self.session_cookies(answer)


def _session_of(answer: InternalResponse) -> dict[str, Any] | None:
    """The session of a ``/session`` answer; ``None`` for no session, and for an error
    answer (a broken configuration's, which the core has logged)."""
    if answer.status != 200 or not isinstance(answer.body, dict) or not answer.body:
        return None
    return answer.body


def _redirect(answer: InternalResponse) -> CoreResponse:
    """The redirect the core answered; its 400 for a request it refused (an invalid or
    untrusted host), for the view to return as it is."""
    if answer.redirect is None and answer.status != 400:
        raise AuthError(f"Expected a redirect, got status {answer.status}")
    return to_response(answer)


def _origin_text(url: str) -> str:
    """``scheme://host`` of ``url`` as written, unchecked (the core checks it)."""
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{re.split('[/?#]', rest, maxsplit=1)[0]}"
