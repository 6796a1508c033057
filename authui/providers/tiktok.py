"""TikTok: OAuth 2 sign-in with a TikTok account, through TikTok's Login Kit for Web.

Create an app on TikTok for Developers, add the Login Kit product, and enter
``<origin>/auth/callback/tiktok`` as a Web redirect URI (TikTok accepts only https
addresses, not ``localhost``). ``AUTH_TIKTOK_ID`` holds the app's *client key* and
``AUTH_TIKTOK_SECRET`` its client secret.

Quirks:

- TikTok calls the client id ``client_key``: the authorization request carries
  ``client_key`` (besides the usual ``client_id``), and the token request's form names
  the client ``client_key`` instead of ``client_id``, with the secret beside it. The
  provider keeps ``client_key`` in step with ``client_id``, also when the id comes from
  ``AUTH_TIKTOK_ID`` after the factory ran; the token request is rewritten on its way
  out by the provider's ``custom_fetch``, which wraps any ``custom_fetch`` you give it.
- Scopes are separated by commas; the default ``user.info.basic`` allows the open id,
  display name and avatar. TikTok never shares an email address.
- The profile is ``GET /v2/user/info/`` with the fields ``open_id``, ``avatar_url`` and
  ``display_name``, wrapped as ``{"data": {"user": {…}}, "error": {"code": "ok", …}}``.
  The account id is ``open_id``, which is different for each app.
- Access tokens last a day; the refresh token a year.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

import httpx

from authui.http_client import shared_client
from authui.providers.base import ProviderStyle
from authui.providers.oauth import (
    CustomFetch,
    Endpoint,
    OAuthProvider,
    Profile,
    TokenSet,
    with_overrides,
)

API_URL = "https://open.tiktokapis.com"
USER_FIELDS = "open_id,avatar_url,display_name"
"""The user fields asked of ``/v2/user/info/``."""


@dataclass(frozen=True)
class ClientKeyFetch:
    """Sends a TikTok provider's requests: the token request with ``client_key`` in place
    of ``client_id``, every request through ``send`` (else authui's HTTP client).

    Attributes:
        token_url: The token endpoint, whose POST is rewritten.
        client_key: The client key (the provider's ``client_id``).
        send: The ``custom_fetch`` the provider was given, if any.
    """

    token_url: str | None
    client_key: str | None
    send: CustomFetch | None = None

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and str(request.url.copy_with(query=None)) == self.token_url:
            form = dict(parse_qsl(request.content.decode()))
            form.pop("client_id", None)
            form["client_key"] = self.client_key or ""
            headers = {k: v for k, v in request.headers.items() if k.lower() != "content-length"}
            request = httpx.Request("POST", request.url, headers=headers, data=form)
        if self.send is not None:
            return await self.send(request)
        return await shared_client().send(request)


@dataclass(frozen=True, slots=True, kw_only=True)
class TikTokProvider(OAuthProvider):
    """An ``OAuthProvider`` that keeps TikTok's ``client_key`` in step with ``client_id``
    (in the authorization parameters and in the token request), however it is copied."""

    def __post_init__(self) -> None:
        params = dict(self.authorization.params)
        if self.client_id:
            params["client_key"] = self.client_id
        authorization = dataclasses.replace(self.authorization, params=params)
        object.__setattr__(self, "authorization", authorization)
        given = self.custom_fetch
        send = given.send if isinstance(given, ClientKeyFetch) else given
        fetch = ClientKeyFetch(token_url=self.token.url, client_key=self.client_id, send=send)
        object.__setattr__(self, "custom_fetch", fetch)


def TikTok(**options: Any) -> OAuthProvider:
    """Sign in with TikTok. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "user.info.basic,user.info.profile"}}``."""
    defaults: dict[str, Any] = {
        "id": "tiktok",
        "name": "TikTok",
        "type": "oauth",
        "authorization": Endpoint(
            url="https://www.tiktok.com/v2/auth/authorize", params={"scope": "user.info.basic"}
        ),
        "token": Endpoint(url=f"{API_URL}/v2/oauth/token/"),
        "userinfo": Endpoint(url=f"{API_URL}/v2/user/info/?fields={USER_FIELDS}"),
        "client_auth": "client_secret_post",
        "profile": _profile,
        "style": ProviderStyle(brand_color="#000", text="#fff"),
    }
    return with_overrides(defaults, options, TikTokProvider)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    user = profile["data"]["user"]
    return {
        "id": str(user["open_id"]),
        "name": user.get("display_name") or None,
        "email": None,
        "image": user.get("avatar_url") or None,
    }
