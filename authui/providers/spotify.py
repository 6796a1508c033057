"""Spotify: OAuth 2 sign-in with a Spotify account.

Register ``<origin>/auth/callback/spotify`` under "Redirect URIs" of your app (Spotify
for Developers → Dashboard → your app → Settings); ``AUTH_SPOTIFY_ID`` and
``AUTH_SPOTIFY_SECRET`` hold its client id and secret. Spotify accepts ``http`` redirect
URIs only on loopback addresses (``http://127.0.0.1:…``), not ``localhost``.

Quirks: the profile is ``GET /v1/me`` (scope ``user-read-email``). Spotify states that the
email it returns is unverified, so a Spotify profile never vouches for its email and
email linking is never done for it.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides


def Spotify(**options: Any) -> OAuthProvider:
    """Sign in with Spotify. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "user-read-email user-top-read"}}``."""
    defaults: dict[str, Any] = {
        "id": "spotify",
        "name": "Spotify",
        "type": "oauth",
        "authorization": Endpoint(
            url="https://accounts.spotify.com/authorize", params={"scope": "user-read-email"}
        ),
        "token": Endpoint(url="https://accounts.spotify.com/api/token"),
        "userinfo": Endpoint(url="https://api.spotify.com/v1/me"),
        "profile": _profile,
        "email_verified": _email_verified,
        "style": ProviderStyle(brand_color="#1db954"),
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    images = profile.get("images")
    first = images[0] if isinstance(images, list) and images else None
    return {
        "id": str(profile["id"]),
        "name": profile.get("display_name"),
        "email": profile.get("email"),
        "image": first.get("url") if isinstance(first, dict) else None,
    }


def _email_verified(profile: Profile) -> bool:
    """Never: Spotify documents its email as unverified."""
    return False
