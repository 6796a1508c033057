"""Trakt: OAuth 2 sign-in with a Trakt account.

Register ``<origin>/auth/callback/trakt`` as a "Redirect uri" of an API application
(trakt.tv → Settings → Your API Apps); ``AUTH_TRAKT_ID`` and ``AUTH_TRAKT_SECRET`` hold its
client id and secret.

Quirks:

- Trakt has no scopes: the authorization request sends none.
- The client id and secret go in the body of the token request (``client_secret_post``),
  the way Trakt documents its token endpoint; Auth.js sends them with HTTP Basic.
- The profile is ``GET https://api.trakt.tv/users/me?extended=full``, sent with Trakt's
  required headers: ``trakt-api-version: 2``, ``trakt-api-key`` (the client id) and a
  ``User-Agent``.
- Trakt never shares the email address: the user has none. The account id is the user's
  ``ids.uuid`` when Trakt sends it (it stays when the username changes), else the
  ``ids.slug`` Auth.js uses. The name is ``name``, else ``username``. The image is the
  avatar URL Trakt gives (Trakt discourages hotlinking its images; copy it if you show it).
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import (
    Endpoint,
    OAuthProvider,
    Profile,
    TokenSet,
    UserinfoCall,
    with_overrides,
)

SITE_URL = "https://trakt.tv"
API_URL = "https://api.trakt.tv"


def Trakt(**options: Any) -> OAuthProvider:
    """Sign in with Trakt. Keyword arguments override any ``OAuthProvider`` setting, e.g.
    ``token={"url": "https://api-staging.trakt.tv/oauth/token"}`` for Trakt's staging
    site."""
    defaults: dict[str, Any] = {
        "id": "trakt",
        "name": "Trakt",
        "type": "oauth",
        "authorization": Endpoint(url=f"{SITE_URL}/oauth/authorize"),
        "token": Endpoint(url=f"{API_URL}/oauth/token"),
        "userinfo": Endpoint(url=f"{API_URL}/users/me?extended=full", request=_userinfo),
        "client_auth": "client_secret_post",
        "profile": _profile,
        # Trakt red with dark text: white on this red stays under WCAG AA (4.3:1).
        "style": ProviderStyle(brand_color="#ED2224", text="#000"),
    }
    return with_overrides(defaults, options)


async def _userinfo(call: UserinfoCall) -> Profile:
    """``/users/me`` with the headers every Trakt API request needs."""
    url = call.provider.userinfo.url or f"{API_URL}/users/me?extended=full"
    headers = {
        "trakt-api-version": "2",
        "trakt-api-key": call.provider.client_id or "",
        "User-Agent": "authui",
    }
    return dict(await call.get_json(url, **headers))


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    ids = profile.get("ids") or {}
    images = profile.get("images") or {}
    avatar = images.get("avatar") or {}
    return {
        "id": str(ids.get("uuid") or ids["slug"]),
        "name": profile.get("name") or profile.get("username"),
        "email": None,
        "image": avatar.get("full") or None,
    }
