"""Todoist: OAuth 2 sign-in with a Todoist account.

Register ``<origin>/auth/callback/todoist`` as the "OAuth redirect URL" of an app in the
Todoist App Management Console; ``AUTH_TODOIST_ID`` and ``AUTH_TODOIST_SECRET`` hold its
client id and secret.

Quirks:

- Auth.js's Todoist provider fails its own configuration check as shipped: its userinfo
  has a custom request but no URL. That request posted to the Sync API v9, which Todoist
  has since deprecated. authui reads the same user object from Todoist API v1,
  ``GET https://api.todoist.com/api/v1/user``, with the access token as bearer.
- Todoist takes the client secret in the token request's form (``client_secret_post``)
  and asks for ``state``; it does not support PKCE. Its token answer is only
  ``access_token`` and ``token_type``: the token does not expire and there is no refresh
  token. Scopes are separated by commas (default ``data:read``).
- ``avatar_big`` is missing or ``null`` when the user has no photo. The user object's
  ``verification_status`` is not documented as a check of the email address, so authui
  vouches for no address and email linking does not apply.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

TODOIST_URL = "https://todoist.com"
API_URL = "https://api.todoist.com/api/v1"


def Todoist(**options: Any) -> OAuthProvider:
    """Sign in with Todoist. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "data:read_write"}}``."""
    defaults: dict[str, Any] = {
        "id": "todoist",
        "name": "Todoist",
        "type": "oauth",
        "authorization": Endpoint(
            url=f"{TODOIST_URL}/oauth/authorize", params={"scope": "data:read"}
        ),
        "token": Endpoint(url=f"{TODOIST_URL}/oauth/access_token"),
        "userinfo": Endpoint(url=f"{API_URL}/user"),
        "checks": ("state",),
        "client_auth": "client_secret_post",
        "profile": _profile,
        "email_verified": _never_verified,
        "style": ProviderStyle(brand_color="#E44332", text="#000000"),
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    return {
        "id": str(profile["id"]),
        "name": profile.get("full_name") or None,
        "email": profile.get("email") or None,
        "image": profile.get("avatar_big") or None,
    }


def _never_verified(profile: Profile) -> bool:
    return False
