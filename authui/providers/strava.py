"""Strava: OAuth 2 sign-in with a Strava account.

Set ``<origin>``'s host as the "Authorization Callback Domain" of your API application
(Strava → Settings → My API Application): Strava accepts any redirect on that domain,
``<origin>/auth/callback/strava`` among them. ``AUTH_STRAVA_ID`` and
``AUTH_STRAVA_SECRET`` hold its client id and secret.

Quirks:

- The profile is ``GET /api/v3/athlete`` (scope ``read``; Strava separates scopes with
  commas). Strava never gives an email address. The name is ``firstname`` and
  ``lastname`` joined; a user without a photo has the placeholder path
  ``avatar/athlete/large.png`` as ``profile``, which is not a URL and gives no image.
- Strava takes the client secret in the token request's form (``client_secret_post``)
  and does not support PKCE, so the round trip is protected by ``state``. The token
  answer carries the athlete and ``expires_at`` besides ``expires_in``; access tokens
  last six hours and come with a refresh token.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

API_URL = "https://www.strava.com/api/v3"


def Strava(**options: Any) -> OAuthProvider:
    """Sign in with Strava. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "read,activity:read"}}``."""
    defaults: dict[str, Any] = {
        "id": "strava",
        "name": "Strava",
        "type": "oauth",
        "authorization": Endpoint(
            url=f"{API_URL}/oauth/authorize",
            params={"scope": "read", "approval_prompt": "auto"},
        ),
        "token": Endpoint(url=f"{API_URL}/oauth/token"),
        "userinfo": Endpoint(url=f"{API_URL}/athlete"),
        "checks": ("state",),
        "client_auth": "client_secret_post",
        "profile": _profile,
        "style": ProviderStyle(brand_color="#FC4C02", text="#000000"),
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    names = (profile.get("firstname"), profile.get("lastname"))
    name = " ".join(part.strip() for part in names if isinstance(part, str) and part.strip())
    image = profile.get("profile")
    return {
        "id": str(profile["id"]),
        "name": name or None,
        "email": None,
        "image": image if isinstance(image, str) and image.startswith("https://") else None,
    }
