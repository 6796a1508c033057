"""Pinterest: OAuth 2 sign-in with a Pinterest account (API v5).

Register ``<origin>/auth/callback/pinterest`` as a redirect URI of your app (Pinterest
Developers → My apps → your app → Configure); ``AUTH_PINTEREST_ID`` and
``AUTH_PINTEREST_SECRET`` hold its app id and secret key.

Quirks:

- The profile is ``GET https://api.pinterest.com/v5/user_account`` (scope
  ``user_accounts:read``; Pinterest separates scopes with commas). It has no email and no
  full name: the name is the business name of a business account, else the username.
- The account id is the account's ``id``, which does not change. Auth.js uses the
  ``username``, which the user may change; accounts linked by Auth.js are found by
  username only if you map the profile that way yourself.
- Pinterest documents ``state``, not PKCE, so the round trip is protected by ``state``;
  the client authenticates with HTTP Basic, as Pinterest asks.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

API_URL = "https://api.pinterest.com/v5"


def Pinterest(**options: Any) -> OAuthProvider:
    """Sign in with Pinterest. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "user_accounts:read,boards:read"}}``."""
    defaults: dict[str, Any] = {
        "id": "pinterest",
        "name": "Pinterest",
        "type": "oauth",
        "authorization": Endpoint(
            url="https://www.pinterest.com/oauth", params={"scope": "user_accounts:read"}
        ),
        "token": Endpoint(url=f"{API_URL}/oauth/token"),
        "userinfo": Endpoint(url=f"{API_URL}/user_account"),
        "checks": ("state",),
        "profile": _profile,
        "style": ProviderStyle(brand_color="#E60023", text="#ffffff"),
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    return {
        "id": str(profile.get("id") or profile["username"]),
        "name": profile.get("business_name") or profile.get("username") or None,
        "email": None,
        "image": profile.get("profile_image") or None,
    }
