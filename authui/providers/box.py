"""Box: OAuth 2 sign-in with a Box account.

Create a Custom App with "User Authentication (OAuth 2.0)" in the Box Developer Console
and add ``<origin>/auth/callback/box`` to its "Redirect URIs" (Configuration tab);
``AUTH_BOX_ID`` and ``AUTH_BOX_SECRET`` hold its client id and secret.

Quirks:

- The profile is ``GET https://api.box.com/2.0/users/me``. The email address is the
  account's ``login``; Box does not say whether it is verified.
- No ``scope`` is sent, so Box grants the scopes ticked in the app's configuration.
  ``openid``, ``profile`` and ``email`` (what Auth.js ends up sending) are not Box scopes.
- Box documents the client id and secret as form fields of the token request
  (``client_secret_post``) and ``state`` for the round trip, but not PKCE: the round trip
  is protected by ``state``. Access tokens last an hour and come with a refresh token.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

ACCOUNT_URL = "https://account.box.com/api/oauth2"
API_URL = "https://api.box.com"


def Box(**options: Any) -> OAuthProvider:
    """Sign in with Box. Keyword arguments override any ``OAuthProvider`` setting, e.g.
    ``authorization={"params": {"scope": "root_readonly"}}``."""
    defaults: dict[str, Any] = {
        "id": "box",
        "name": "Box",
        "type": "oauth",
        "authorization": Endpoint(url=f"{ACCOUNT_URL}/authorize"),
        "token": Endpoint(url=f"{API_URL}/oauth2/token"),
        "userinfo": Endpoint(url=f"{API_URL}/2.0/users/me"),
        "checks": ("state",),
        "client_auth": "client_secret_post",
        "profile": _profile,
        "style": ProviderStyle(brand_color="#0075C9", text="#fff"),
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    return {
        "id": str(profile["id"]),
        "name": profile.get("name") or None,
        "email": profile.get("login") or None,
        "image": profile.get("avatar_url") or None,
    }
