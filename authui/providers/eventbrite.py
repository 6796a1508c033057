"""Eventbrite: OAuth 2 sign-in with an Eventbrite account.

Create an API key (Account Settings → Developer Links → API Keys) and set
``<origin>/auth/callback/eventbrite`` as its "OAuth Redirect URI"; ``AUTH_EVENTBRITE_ID``
holds the API key (Eventbrite's client id) and ``AUTH_EVENTBRITE_SECRET`` its client
secret.

Quirks:

- The profile is ``GET https://www.eventbriteapi.com/v3/users/me/``. Its addresses are a
  list, ``emails``, each with ``primary`` and ``verified``: the user's email is the
  primary one (else the first), and its ``verified`` flag says whether the profile
  vouches for it.
- The image is built from ``image_id`` on Eventbrite's image CDN; a user without one has
  no image.
- The client id and secret go in the token request's form (``client_secret_post``), as
  Eventbrite documents. Tokens do not expire and come without a refresh token.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

SITE_URL = "https://www.eventbrite.com/oauth"
API_URL = "https://www.eventbriteapi.com/v3"
IMAGE_URL = "https://img.evbuc.com/https%3A%2F%2Fcdn.evbuc.com%2Fimages%2F{}%2F1%2Foriginal.jpg"
"""An image by its ``image_id``, through Eventbrite's image service."""


def Eventbrite(**options: Any) -> OAuthProvider:
    """Sign in with Eventbrite. Keyword arguments override any ``OAuthProvider`` setting."""
    defaults: dict[str, Any] = {
        "id": "eventbrite",
        "name": "Eventbrite",
        "type": "oauth",
        "authorization": Endpoint(url=f"{SITE_URL}/authorize", params={"scope": "user.profile"}),
        "token": Endpoint(url=f"{SITE_URL}/token"),
        "userinfo": Endpoint(url=f"{API_URL}/users/me/"),
        "client_auth": "client_secret_post",
        "profile": _profile,
        "email_verified": _email_verified,
        # Eventbrite's orange with dark text: white on it reads at only 3.5:1.
        "style": ProviderStyle(brand_color="#f05537", text="#000"),
    }
    return with_overrides(defaults, options)


def chosen_email(profile: Profile) -> dict[str, Any] | None:
    """The entry of ``emails`` the user signs in with: the primary one, else the first."""
    emails = [
        e
        for e in profile.get("emails") or []
        if isinstance(e, dict) and isinstance(e.get("email"), str) and e["email"]
    ]
    return next((e for e in emails if e.get("primary") is True), emails[0] if emails else None)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    entry = chosen_email(profile)
    names = (profile.get("first_name"), profile.get("last_name"))
    joined = " ".join(n.strip() for n in names if isinstance(n, str) and n.strip())
    image_id = profile.get("image_id")
    return {
        "id": str(profile["id"]),
        "name": profile.get("name") or joined or None,
        "email": entry["email"] if entry else None,
        "image": IMAGE_URL.format(image_id) if image_id else None,
    }


def _email_verified(profile: Profile) -> bool:
    entry = chosen_email(profile)
    return entry is not None and entry.get("verified") is True
