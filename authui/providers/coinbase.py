"""Coinbase: OAuth 2 sign-in with a Coinbase account.

Create an OAuth client in the Coinbase Developer Platform (API Keys → OAuth; Coinbase
opens this to approved partners only) and add ``<origin>/auth/callback/coinbase`` to its
redirect URIs; ``AUTH_COINBASE_ID`` and ``AUTH_COINBASE_SECRET`` hold its client id and
secret.

Quirks:

- The profile is ``GET https://api.coinbase.com/v2/user``, which wraps the user in
  ``data``. The email address is there only with the ``wallet:user:email`` scope, and
  Coinbase does not say whether it is verified.
- Coinbase documents the client id and secret as form fields of the token request
  (``client_secret_post``) and supports PKCE (S256). Access tokens last an hour; a
  refresh token comes only with the ``offline_access`` scope.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

LOGIN_URL = "https://login.coinbase.com/oauth2"
API_URL = "https://api.coinbase.com/v2"


def Coinbase(**options: Any) -> OAuthProvider:
    """Sign in with Coinbase. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "wallet:user:read offline_access"}}``."""
    defaults: dict[str, Any] = {
        "id": "coinbase",
        "name": "Coinbase",
        "type": "oauth",
        "authorization": Endpoint(
            url=f"{LOGIN_URL}/auth", params={"scope": "wallet:user:email wallet:user:read"}
        ),
        "token": Endpoint(url=f"{LOGIN_URL}/token"),
        "userinfo": Endpoint(url=f"{API_URL}/user"),
        "client_auth": "client_secret_post",
        "profile": _profile,
        "style": ProviderStyle(brand_color="#0052ff", text="#fff"),
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    user = profile["data"]
    return {
        "id": str(user["id"]),
        "name": user.get("name") or user.get("username") or None,
        "email": user.get("email") or None,
        "image": user.get("avatar_url") or None,
    }
