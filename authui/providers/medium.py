"""Medium: OAuth 2 sign-in with a Medium account.

Medium issues the client id and secret of an integration itself (it has stopped
accepting new integrations; see the docs page), with ``<origin>/auth/callback/medium``
as a callback URL. ``AUTH_MEDIUM_ID`` and ``AUTH_MEDIUM_SECRET`` hold them.

Quirks:

- Medium requires ``state`` and documents no PKCE, so the round trip is protected by
  ``state``. Scopes are separated by commas; the default is ``basicProfile``.
- The token request carries the client id and secret in its form
  (``client_secret_post``). The answer's ``scope`` is a list, joined here with spaces,
  and it has no ``expires_in``: ``expires_at`` is a Unix time in milliseconds, turned
  into seconds. Access tokens last 60 days; refresh tokens do not expire.
- The profile is ``GET https://api.medium.com/v1/me``, the user inside a ``data``
  envelope. Medium never gives an email address (no scope grants it). The name is
  ``name``, else ``username``; the image is ``imageUrl``.
"""

from __future__ import annotations

import time
from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

API_URL = "https://api.medium.com/v1"


def conform_token(body: dict[str, Any]) -> dict[str, Any]:
    """Medium's token answer with its ``scope`` list joined and ``expires_at`` (Unix
    milliseconds) as seconds, with the matching ``expires_in``."""
    conformed = dict(body)
    scope = conformed.get("scope")
    if isinstance(scope, list):
        conformed["scope"] = " ".join(str(s) for s in scope)
    expires_at = conformed.get("expires_at")
    if isinstance(expires_at, int | float) and not isinstance(expires_at, bool):
        seconds = int(expires_at // 1000) if expires_at > 10**11 else int(expires_at)
        conformed["expires_at"] = seconds
        conformed.setdefault("expires_in", max(seconds - int(time.time()), 0))
    return conformed


def Medium(**options: Any) -> OAuthProvider:
    """Sign in with Medium. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "basicProfile,listPublications"}}``."""
    defaults: dict[str, Any] = {
        "id": "medium",
        "name": "Medium",
        "type": "oauth",
        "authorization": Endpoint(
            url="https://medium.com/m/oauth/authorize", params={"scope": "basicProfile"}
        ),
        "token": Endpoint(url=f"{API_URL}/tokens", conform=conform_token),
        "userinfo": Endpoint(url=f"{API_URL}/me"),
        "checks": ("state",),
        "client_auth": "client_secret_post",
        "profile": _profile,
        "style": ProviderStyle(brand_color="#000", text="#fff"),
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    user = profile.get("data")
    if not isinstance(user, dict):
        user = {}
    return {
        "id": str(user["id"]),
        "name": user.get("name") or user.get("username") or None,
        "email": None,
        "image": user.get("imageUrl") or None,
    }
