"""HubSpot: OAuth 2 sign-in with a HubSpot user account.

In a HubSpot developer account, create an app and add ``<origin>/auth/callback/hubspot``
to the redirect URLs on its Auth tab; ``AUTH_HUBSPOT_ID`` and ``AUTH_HUBSPOT_SECRET``
hold its client id and secret.

Quirks:

- HubSpot has no profile endpoint. The profile is the access token's metadata,
  ``GET https://api.hubapi.com/oauth/v1/access-tokens/<token>`` (the token travels in
  the path, with no ``Authorization`` header): the user's email address (``user``), the
  user's id (``user_id``) and the HubSpot account it was granted for (``hub_id``,
  ``hub_domain``).
- The user has no name and no photo there: the name is the email address, as in
  Auth.js, and there is no image. HubSpot does not say whether the address is verified.
- HubSpot takes the client secret in the token request's form (``client_secret_post``)
  and documents ``state`` but not PKCE, so the round trip is protected by ``state``.
  The default scope is ``oauth``, the least an app can ask for.
- Access tokens last 30 minutes and come with a refresh token.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx

from authui.providers.base import ProviderStyle
from authui.providers.oauth import (
    Endpoint,
    OAuthProvider,
    Profile,
    TokenSet,
    UserinfoCall,
    with_overrides,
)

API_URL = "https://api.hubapi.com"
TOKEN_INFO_URL = f"{API_URL}/oauth/v1/access-tokens"
"""The access token's metadata is at ``<this>/<access token>``."""


def HubSpot(**options: Any) -> OAuthProvider:
    """Sign in with HubSpot. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "oauth crm.objects.contacts.read"}}``."""
    defaults: dict[str, Any] = {
        "id": "hubspot",
        "name": "HubSpot",
        "type": "oauth",
        "authorization": Endpoint(
            url="https://app.hubspot.com/oauth/authorize", params={"scope": "oauth"}
        ),
        "token": Endpoint(url=f"{API_URL}/oauth/v1/token"),
        "userinfo": Endpoint(url=TOKEN_INFO_URL, request=_token_info),
        "checks": ("state",),
        "client_auth": "client_secret_post",
        "profile": _profile,
        "style": ProviderStyle(brand_color="#ff7a59", text="#fff"),
    }
    return with_overrides(defaults, options)


async def _token_info(call: UserinfoCall) -> Profile:
    """The access token's metadata: the token in the path, no bearer header."""
    base = (call.provider.userinfo.url or TOKEN_INFO_URL).rstrip("/")
    url = f"{base}/{quote(str(call.tokens['access_token']), safe='')}"
    answer = await call.fetch(httpx.Request("GET", url, headers={"Accept": "application/json"}))
    answer.raise_for_status()
    profile: Profile = dict(answer.json())
    return profile


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    email = profile.get("user") or None
    return {
        "id": str(profile["user_id"]),
        "name": email,
        "email": email,
        "image": None,
    }
