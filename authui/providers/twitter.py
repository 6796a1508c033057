"""Twitter (X): OAuth 2 sign-in with an X account, through the X API v2.

Register ``<origin>/auth/callback/twitter`` as a "Callback URI / Redirect URL" in the
user authentication settings of your app (X Developer Portal → your app → User
authentication settings; type "Web App", a confidential client); ``AUTH_TWITTER_ID``
and ``AUTH_TWITTER_SECRET`` hold its OAuth 2.0 client id and secret (not the API key).

Quirks: X requires both PKCE and ``state``. The profile is ``GET /2/users/me`` with
``user.fields=profile_image_url``; its fields are wrapped in ``data``. X gives no email
address with these scopes, so users from X have none.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

API_URL = "https://api.x.com"


def Twitter(**options: Any) -> OAuthProvider:
    """Sign in with X (Twitter). Keyword arguments override any ``OAuthProvider``
    setting; the default scope ``users.read tweet.read offline.access`` also gets a
    refresh token."""
    defaults: dict[str, Any] = {
        "id": "twitter",
        "name": "Twitter",
        "type": "oauth",
        "authorization": Endpoint(
            url="https://x.com/i/oauth2/authorize",
            params={"scope": "users.read tweet.read offline.access"},
        ),
        "token": Endpoint(url=f"{API_URL}/2/oauth2/token"),
        "userinfo": Endpoint(url=f"{API_URL}/2/users/me?user.fields=profile_image_url"),
        "checks": ("pkce", "state"),
        "profile": _profile,
        "style": ProviderStyle(brand_color="#1da1f2", text="#fff"),
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    data = profile["data"]
    return {
        "id": str(data["id"]),
        "name": data.get("name"),
        "email": data.get("email"),
        "image": data.get("profile_image_url"),
    }
