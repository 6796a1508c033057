"""42 School: OAuth 2 sign-in with a 42 intranet account (``api.intra.42.fr``).

Register ``<origin>/auth/callback/42-school`` as the "Redirect URI" of an application on
the intranet (profile.intra.42.fr → Settings → API → Register a new app);
``AUTH_42_SCHOOL_ID`` and ``AUTH_42_SCHOOL_SECRET`` hold its UID and secret.

Quirks:

- The profile is ``GET /v2/me`` (scope ``public``). The intranet has no ``email_verified``
  field, so the address is never vouched for and email linking stays off.
- The photo moved from the ``image_url`` string of older answers to an ``image`` object
  (``image.link`` and ``image.versions``). Auth.js still reads ``image_url``, which the
  current API no longer sends; authui reads ``image.link``, else ``image_url``.
- ``usual_full_name`` can be ``null`` for some accounts: the name then falls back to
  ``displayname``, then to the login.
- The token answer adds ``created_at`` and ``secret_valid_until`` (the application
  secret's expiry, as a Unix time) to the usual fields.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

API_URL = "https://api.intra.42.fr"


def School42(**options: Any) -> OAuthProvider:
    """Sign in with 42 School. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "public projects"}}``."""
    defaults: dict[str, Any] = {
        "id": "42-school",
        "name": "42 School",
        "type": "oauth",
        "authorization": Endpoint(url=f"{API_URL}/oauth/authorize", params={"scope": "public"}),
        "token": Endpoint(url=f"{API_URL}/oauth/token"),
        "userinfo": Endpoint(url=f"{API_URL}/v2/me"),
        "profile": _profile,
        "style": ProviderStyle(brand_color="#000000", text="#fff"),
    }
    return with_overrides(defaults, options)


def photo_url(profile: Profile) -> str | None:
    """The user's intranet photo: ``image.link``, else the older ``image_url``."""
    image = profile.get("image")
    if isinstance(image, dict) and isinstance(image.get("link"), str) and image["link"]:
        return str(image["link"])
    legacy = profile.get("image_url")
    return legacy if isinstance(legacy, str) and legacy else None


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    return {
        "id": str(profile["id"]),
        "name": profile.get("usual_full_name")
        or profile.get("displayname")
        or profile.get("login"),
        "email": profile.get("email") or None,
        "image": photo_url(profile),
    }
