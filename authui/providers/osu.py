"""osu!: OAuth 2 sign-in with an osu! account.

Register ``<origin>/auth/callback/osu`` as the "Application Callback URL" of an OAuth
application (osu.ppy.sh → Settings → OAuth → New OAuth Application); ``AUTH_OSU_ID`` and
``AUTH_OSU_SECRET`` hold its client id and secret.

Quirks:

- The profile is ``GET /api/v2/me`` of the osu! API v2 (scope ``identify``). osu! never
  shares an email address: every user signs in without one, so email linking cannot
  apply.
- ``id`` is a number; the account id is its decimal string. ``avatar_url`` is always set:
  a user without an avatar gets osu!'s guest picture.
- Auth.js puts the scope in the authorization URL itself; authui sends it as a parameter
  (``scope=identify``), so it can be overridden like any other.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

OSU_URL = "https://osu.ppy.sh"


def Osu(**options: Any) -> OAuthProvider:
    """Sign in with osu!. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "identify public"}}``."""
    defaults: dict[str, Any] = {
        "id": "osu",
        "name": "osu!",
        "type": "oauth",
        "authorization": Endpoint(url=f"{OSU_URL}/oauth/authorize", params={"scope": "identify"}),
        "token": Endpoint(url=f"{OSU_URL}/oauth/token"),
        "userinfo": Endpoint(url=f"{OSU_URL}/api/v2/me"),
        "profile": _profile,
        "email_verified": _no_email,
        "style": ProviderStyle(brand_color="#FF66AA", text="#000"),
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    return {
        "id": str(profile["id"]),
        "name": profile.get("username"),
        "email": None,
        "image": profile.get("avatar_url") or None,
    }


def _no_email(profile: Profile) -> bool:
    return False
