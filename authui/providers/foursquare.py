"""Foursquare: OAuth 2 sign-in with a Foursquare account.

Create a project in the Foursquare developer console and, under its OAuth settings, add
``<origin>/auth/callback/foursquare`` as a redirect URL; ``AUTH_FOURSQUARE_ID`` and
``AUTH_FOURSQUARE_SECRET`` hold its client id and secret.

Quirks:

- Foursquare has no scopes; authui sends no ``scope``.
- The token request sends the client id and secret in the form (``client_secret_post``),
  the parameters Foursquare documents. The token answer is just ``access_token``
  (no ``token_type``, which authui takes as ``bearer``); tokens do not expire.
- The profile is ``GET https://api.foursquare.com/v2/users/self`` with the token as the
  ``oauth_token`` query parameter and the API version as ``v`` (``YYYYMMDD``: "I know
  the API as of this date"; option ``api_version``). The user is
  ``response.user``; the photo is ``prefix`` + size + ``suffix``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

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

SITE_URL = "https://foursquare.com/oauth2"
API_URL = "https://api.foursquare.com/v2"
API_VERSION = "20230131"
"""The ``v`` parameter sent by default, as Auth.js sends it."""


def Foursquare(*, api_version: str | None = None, **options: Any) -> OAuthProvider:
    """Sign in with Foursquare.

    Args:
        api_version: The API version date sent as ``v`` (``"YYYYMMDD"``); also accepted
            as ``options={"api_version": …}``. Default ``API_VERSION``.
        **options: Override any ``OAuthProvider`` setting.
    """
    given = dict(options.get("options") or {})
    version = str(api_version or given.get("api_version") or API_VERSION)
    defaults: dict[str, Any] = {
        "id": "foursquare",
        "name": "Foursquare",
        "type": "oauth",
        "authorization": Endpoint(url=f"{SITE_URL}/authenticate"),
        "token": Endpoint(url=f"{SITE_URL}/access_token"),
        "userinfo": Endpoint(url=f"{API_URL}/users/self?v={version}", request=_userinfo),
        "client_auth": "client_secret_post",
        "profile": _profile,
        "style": ProviderStyle(brand_color="#000", text="#fff"),
        "options": {"api_version": version},
    }
    return with_overrides(defaults, options)


async def _userinfo(call: UserinfoCall) -> Profile:
    """``/users/self`` with the token in the query, the way Foursquare's v2 API takes it."""
    parts = urlsplit(call.provider.userinfo.url or f"{API_URL}/users/self?v={API_VERSION}")
    query = f"{parts.query}&" if parts.query else ""
    query += urlencode({"oauth_token": call.tokens["access_token"]})
    request = httpx.Request(
        "GET", urlunsplit(parts._replace(query=query)), headers={"Accept": "application/json"}
    )
    answer = await call.fetch(request)
    answer.raise_for_status()
    profile: Profile = answer.json()
    return profile


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    user = profile["response"]["user"]
    names = (user.get("firstName"), user.get("lastName"))
    name = " ".join(n.strip() for n in names if isinstance(n, str) and n.strip())
    contact = user.get("contact") or {}
    return {
        "id": str(user["id"]),
        "name": name or None,
        "email": contact.get("email") or None,
        "image": _photo(user.get("photo")),
    }


def _photo(photo: Any) -> str | None:
    """The original-size photo from ``{prefix, suffix}``; older answers give a URL."""
    if isinstance(photo, dict) and photo.get("prefix") and photo.get("suffix"):
        return f"{photo['prefix']}original{photo['suffix']}"
    if isinstance(photo, str) and photo.startswith("https://"):
        return photo
    return None
