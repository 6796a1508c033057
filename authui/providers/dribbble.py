"""Dribbble: OAuth 2 sign-in with a Dribbble account.

Register ``<origin>/auth/callback/dribbble`` as the "Callback URL" of an application
(dribbble.com → Account settings → Applications → Register a new application);
``AUTH_DRIBBBLE_ID`` and ``AUTH_DRIBBBLE_SECRET`` hold its client id and secret.

Quirks:

- The scope is ``public`` (read the user's public data), or ``public upload``. Auth.js
  sends its ``scope`` option as given, so without one the URL says ``scope=undefined``;
  authui sends ``public`` by default.
- Dribbble documents the client id and secret as form fields of the token request, so
  authui sends them there (``client_secret_post``); Auth.js uses HTTP Basic.
- The token answer has no ``expires_in``: Dribbble's tokens do not expire, and there is
  no refresh token.
- The profile is ``GET https://api.dribbble.com/v2/user``. The API's user object has no
  email address: users sign in without one unless Dribbble adds ``email``, which the
  profile then reads (never vouched for, so email linking stays off). The name falls back
  to the ``login`` when ``name`` is empty.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

DRIBBBLE_URL = "https://dribbble.com"
API_URL = "https://api.dribbble.com/v2"


def Dribbble(*, scope: str | None = None, **options: Any) -> OAuthProvider:
    """Sign in with Dribbble.

    Args:
        scope: ``"public"`` (the default) or ``"public upload"``.
        **options: Override any ``OAuthProvider`` setting, e.g.
            ``authorization={"params": {"scope": "public upload"}}``.
    """
    defaults: dict[str, Any] = {
        "id": "dribbble",
        "name": "Dribbble",
        "type": "oauth",
        "authorization": Endpoint(
            url=f"{DRIBBBLE_URL}/oauth/authorize", params={"scope": scope or "public"}
        ),
        "token": Endpoint(url=f"{DRIBBBLE_URL}/oauth/token"),
        "userinfo": Endpoint(url=f"{API_URL}/user"),
        "client_auth": "client_secret_post",
        "profile": _profile,
        "style": ProviderStyle(brand_color="#000000", text="#fff"),
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    return {
        "id": str(profile["id"]),
        "name": profile.get("name") or profile.get("login") or None,
        "email": profile.get("email") or None,
        "image": profile.get("avatar_url") or None,
    }
