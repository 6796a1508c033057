"""A stand-in of an OAuth service, plugged into a provider through ``custom_fetch``, and
one whole sign-in through authui against it (sign-in POST, the service's redirect back,
the callback), observed from outside: the URL the user is sent to, the requests the
service receives, and the user, account and profile authui signs in with."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import httpx
from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey

from authui import Events
from authui.adapters.base import Adapter
from authui.callbacks import invoke
from authui.http import Response
from authui.providers.oauth import OAuthProvider
from authui.testing import AuthClient
from tests.conftest import make_config

Responder = Callable[[httpx.Request], "httpx.Response | Any"]
"""Answers one request: an ``httpx.Response``, or anything JSON (sent with status 200)."""

CLIENT_ID = "client-id-123"
CLIENT_SECRET = "client secret+/="  # characters that show how Basic auth encodes it
APP = "http://localhost:3000"
_KEY = RSAKey.generate_key(2048, parameters={"kid": "standin-key", "use": "sig"})


class StandIn:
    """The service's endpoints, keyed ``"METHOD url"`` (the URL without its query).

    Attributes:
        requests: Every request the service received, in order.
        unexpected: Requests no route answered (each got a 404).
        authorization_params: The query of the authorization URL of the current sign-in.
    """

    def __init__(self, routes: Mapping[str, Responder | Any]):
        self.routes = dict(routes)
        self.requests: list[httpx.Request] = []
        self.unexpected: list[str] = []
        self.authorization_params: dict[str, str] = {}

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        await request.aread()
        self.requests.append(request)
        key = f"{request.method} {request.url.copy_with(query=None)}"
        if key not in self.routes:
            self.unexpected.append(key)
            return httpx.Response(404, json={"error": "not_found"}, request=request)
        answer = self.routes[key]
        if callable(answer):
            answer = answer(request)
        if not isinstance(answer, httpx.Response):
            answer = httpx.Response(200, json=answer)
        answer.request = request
        return answer

    def sent(self, method: str, url: str) -> httpx.Request:
        """The last request the service received at ``url``."""
        found = [r for r in self.requests if r.method == method and str(r.url).startswith(url)]
        assert found, f"no {method} {url}; received: {[str(r.url) for r in self.requests]}"
        return found[-1]


def form_of(request: httpx.Request) -> dict[str, str]:
    """The form fields of a request body."""
    return dict(parse_qsl(request.content.decode()))


class OIDCStandIn(StandIn):
    """An OpenID provider: discovery, JWKS, a token endpoint that signs an id_token with
    ``claims`` (plus ``iss``, ``aud``, ``exp``, ``iat`` and the request's ``nonce``), and
    userinfo answering ``userinfo`` (by default the current ``claims``). ``routes`` add to
    or replace these."""

    def __init__(
        self,
        issuer: str,
        *,
        claims: Mapping[str, Any],
        userinfo: Mapping[str, Any] | None = None,
        token_extra: Mapping[str, Any] | None = None,
        discovery: Mapping[str, Any] | None = None,
        routes: Mapping[str, Responder | Any] | None = None,
        client_id: str = CLIENT_ID,
    ):
        self.issuer = issuer
        self.claims = dict(claims)
        self.client_id = client_id
        self.token_extra = dict(token_extra or {})
        base = issuer.rstrip("/")
        self.discovery = {
            "issuer": issuer,
            "authorization_endpoint": f"{base}/authorize",
            "token_endpoint": f"{base}/token",
            "userinfo_endpoint": f"{base}/userinfo",
            "jwks_uri": f"{base}/jwks",
            "code_challenge_methods_supported": ["S256"],
            **(discovery or {}),
        }
        super().__init__(
            {
                f"GET {base}/.well-known/openid-configuration": self.discovery,
                f"GET {self.discovery['jwks_uri']}": KeySet([_KEY]).as_dict(private=False),
                f"POST {self.discovery['token_endpoint']}": self._token,
                f"GET {self.discovery['userinfo_endpoint']}": (
                    dict(userinfo) if userinfo is not None else lambda _: dict(self.claims)
                ),
                **(routes or {}),
            }
        )

    def id_token(self, **extra: Any) -> str:
        """A signed id_token for the current sign-in."""
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "aud": self.client_id,
            "iat": now,
            "exp": now + 600,
            **self.claims,
            **extra,
        }
        nonce = self.authorization_params.get("nonce")
        if nonce and "nonce" not in extra:
            claims["nonce"] = nonce
        return self.signed(claims)

    def signed(self, claims: Mapping[str, Any], **header: str) -> str:
        """A JWT of ``claims`` signed with the stand-in's key (RS256), ``header`` added."""
        return jwt.encode({"alg": "RS256", "kid": "standin-key", **header}, dict(claims), _KEY)

    def _token(self, request: httpx.Request) -> dict[str, Any]:
        return {
            "access_token": "access-token-1",
            "token_type": "Bearer",
            "expires_in": 3600,
            "refresh_token": "refresh-token-1",
            "scope": "openid profile email",
            "id_token": self.id_token(),
            **self.token_extra,
        }


@dataclass
class Outcome:
    """What one sign-in through the stand-in gave.

    Attributes:
        authorization_url: Where authui sent the user.
        params: That URL's query.
        callback: authui's answer to the service's redirect back.
        signed_in: The ``sign_in`` event's arguments (``user``, ``account``, ``profile``,
            ``is_new_user``), or ``None`` when the sign-in failed.
        session: ``GET /session`` afterwards.
        client: The browser stand-in, holding its cookies.
    """

    authorization_url: str
    params: dict[str, str]
    callback: Response
    signed_in: dict[str, Any] | None
    session: Any
    client: AuthClient = field(repr=False)

    @property
    def user(self) -> dict[str, Any]:
        assert self.signed_in is not None, f"not signed in: {self.callback.headers}"
        return dict(self.signed_in["user"])

    @property
    def account(self) -> dict[str, Any]:
        assert self.signed_in is not None, f"not signed in: {self.callback.headers}"
        return dict(self.signed_in["account"])


async def sign_in_through(
    provider: OAuthProvider,
    standin: StandIn,
    *,
    adapter: Adapter | None = None,
    query: Mapping[str, str] | None = None,
    callback_params: Mapping[str, str] | None = None,
    method: str = "GET",
    client: AuthClient | None = None,
    **config: Any,
) -> Outcome:
    """Sign in with ``provider`` (given the stand-in as ``custom_fetch`` and test client
    credentials where it has none) from ``http://localhost:3000``.

    The service "redirects back" with ``code`` and the ``state`` it was given;
    ``callback_params`` add to or replace those (e.g. ``iss``, ``error``).
    """
    provider = dataclasses.replace(
        provider,
        custom_fetch=standin,
        client_id=provider.client_id or CLIENT_ID,
        client_secret=provider.client_secret or CLIENT_SECRET,
    )
    seen: dict[str, Any] = {}
    events: Events = config.pop("events", Events())

    async def record(**kwargs: Any) -> None:
        seen.update(kwargs)
        if events.sign_in is not None:
            await invoke(events.sign_in, **kwargs)

    if client is None:
        settings: dict[str, Any] = {
            "providers": [provider],
            "events": dataclasses.replace(events, sign_in=record),
        }
        if adapter is not None:
            settings["adapter"] = adapter
        client = AuthClient(make_config(**settings, **config), origin=APP)
    form = {"csrfToken": await client.csrf_token(), "callbackUrl": f"{APP}/dashboard"}
    suffix = f"?{urlencode(query)}" if query else ""
    started = await client.post(f"signin/{provider.id}{suffix}", form=form)
    assert started.status == 302, (started.status, started.headers, started.body[:500])
    location = started.header("location") or ""
    params = dict(parse_qsl(urlsplit(location).query))
    standin.authorization_params = params
    back = {"code": "authorization-code-1"}
    if "state" in params:
        back["state"] = params["state"]
    back.update(callback_params or {})
    if method == "GET":
        callback = await client.get(f"callback/{provider.id}?{urlencode(back)}")
    else:
        callback = await client.post(f"callback/{provider.id}", form=back)
    session = (await client.get("session")).data()
    return Outcome(location, params, callback, seen or None, session, client)


def canned(path: str) -> Any:
    """A recorded JSON answer of a service, from ``tests/oauth/canned/``."""
    from pathlib import Path

    return json.loads((Path(__file__).parent / "canned" / path).read_text())
