"""Zoom: OAuth 2 sign-in with a Zoom account.

Register ``<origin>/auth/callback/zoom`` as the "OAuth Redirect URL" and in the "OAuth
Allow List" of a general (user-managed) app (Zoom App Marketplace → Develop → Build App),
and add a scope that reads the user (``user:read:user``); ``AUTH_ZOOM_ID`` and
``AUTH_ZOOM_SECRET`` hold its client id and secret.

Quirks: Zoom takes its scopes from the app's settings, so the authorization sends none.
The profile is ``GET /v2/users/me``; the name joins ``first_name`` and ``last_name``.
Zoom does not say whether the email is verified.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides


def Zoom(**options: Any) -> OAuthProvider:
    """Sign in with Zoom. Keyword arguments override any ``OAuthProvider`` setting."""
    defaults: dict[str, Any] = {
        "id": "zoom",
        "name": "Zoom",
        "type": "oauth",
        "authorization": Endpoint(url="https://zoom.us/oauth/authorize"),
        "token": Endpoint(url="https://zoom.us/oauth/token"),
        "userinfo": Endpoint(url="https://api.zoom.us/v2/users/me"),
        "profile": _profile,
        "style": ProviderStyle(brand_color="#0b5cff", text="#fff"),
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    parts = [profile.get("first_name"), profile.get("last_name")]
    name = " ".join(p for p in parts if isinstance(p, str) and p) or profile.get("display_name")
    return {
        "id": str(profile["id"]),
        "name": name or None,
        "email": profile.get("email"),
        "image": profile.get("pic_url") or None,
    }
