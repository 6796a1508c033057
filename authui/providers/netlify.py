"""Netlify: OAuth 2 sign-in with a Netlify account.

Register an OAuth application (Netlify → User settings → Applications → OAuth → New
OAuth app) with ``<origin>/auth/callback/netlify`` as its Redirect URI;
``AUTH_NETLIFY_ID`` and ``AUTH_NETLIFY_SECRET`` hold its Client ID and Secret.

Quirks:

- Netlify has no scopes: a token reaches the whole account. The authorization request
  carries no ``scope`` (Auth.js sends an empty one, to the same effect).
- The profile is ``GET https://api.netlify.com/api/v1/user``; the name is ``full_name``,
  the image ``avatar_url``. Netlify does not say whether the email is verified, so email
  linking stays off.
- Netlify's access tokens do not expire: the token answer has no ``expires_in`` and no
  refresh token.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

API_URL = "https://api.netlify.com"


def Netlify(**options: Any) -> OAuthProvider:
    """Sign in with Netlify. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "public"}}``."""
    defaults: dict[str, Any] = {
        "id": "netlify",
        "name": "Netlify",
        "type": "oauth",
        "authorization": Endpoint(url="https://app.netlify.com/authorize"),
        "token": Endpoint(url=f"{API_URL}/oauth/token"),
        "userinfo": Endpoint(url=f"{API_URL}/api/v1/user"),
        "profile": _profile,
        "style": ProviderStyle(brand_color="#32e6e2", text="#000"),
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    return {
        "id": str(profile["id"]),
        "name": profile.get("full_name") or None,
        "email": profile.get("email") or None,
        "image": profile.get("avatar_url") or None,
    }
