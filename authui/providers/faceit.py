"""FACEIT: OAuth 2 sign-in with a FACEIT account.

Create an app in FACEIT's App Studio (developers.faceit.com), add an OAuth client to it
and register ``<origin>/auth/callback/faceit`` as its redirect URL; ``AUTH_FACEIT_ID``
and ``AUTH_FACEIT_SECRET`` hold the client id and secret.

Quirks:

- The authorization page is ``https://accounts.faceit.com/accounts`` with
  ``redirect_popup=true`` (the page redirects instead of closing a popup) and the scopes
  ``openid profile email``.
- The token request authenticates with HTTP Basic (``client_secret_basic``) and carries
  the PKCE verifier, as FACEIT expects of its confidential clients.
- The profile is ``GET https://api.faceit.com/auth/v1/resources/userinfo``. The account
  id is ``guid``, the name ``name`` or else the ``nickname``, the image ``picture``.
  The profile vouches for the email only through an ``email_verified`` claim.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

API_URL = "https://api.faceit.com/auth/v1"


def FACEIT(**options: Any) -> OAuthProvider:
    """Sign in with FACEIT. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "openid profile email membership"}}``."""
    defaults: dict[str, Any] = {
        "id": "faceit",
        "name": "FACEIT",
        "type": "oauth",
        "authorization": Endpoint(
            url="https://accounts.faceit.com/accounts",
            params={"redirect_popup": "true", "scope": "openid profile email"},
        ),
        "token": Endpoint(url=f"{API_URL}/oauth/token"),
        "userinfo": Endpoint(url=f"{API_URL}/resources/userinfo"),
        "profile": _profile,
        # FACEIT orange with dark text: white on it reads at only 3.2:1.
        "style": ProviderStyle(brand_color="#FF5500", text="#000"),
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    return {
        "id": str(profile.get("guid") or profile["sub"]),
        "name": profile.get("name") or profile.get("nickname") or None,
        "email": profile.get("email") or None,
        "image": profile.get("picture") or None,
    }
