"""ClickUp: OAuth 2 sign-in with a ClickUp account.

Create an app in ClickUp (Settings → ClickUp API → Create an App; workspace owners and
admins can) and enter ``<origin>/auth/callback/click-up`` as its redirect URL;
``AUTH_CLICK_UP_ID`` and ``AUTH_CLICK_UP_SECRET`` hold its client id and secret.

Quirks:

- ClickUp has no scopes: the user picks the workspaces the app may use on ClickUp's page,
  and authui sends no ``scope``.
- The token request sends the client id and secret in the form
  (``client_secret_post``). ClickUp's token answer is just ``access_token``: no
  ``token_type`` (authui takes ``bearer``), no expiry and no refresh token.
- The profile is ``GET https://api.clickup.com/api/v2/user``, which wraps the user in
  ``user``: a numeric ``id``, ``username``, ``email``, ``profilePicture`` (``null``
  without a photo) and ``color``. ClickUp does not say whether the email is verified.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

API_URL = "https://api.clickup.com/api/v2"


def ClickUp(**options: Any) -> OAuthProvider:
    """Sign in with ClickUp. Keyword arguments override any ``OAuthProvider`` setting."""
    defaults: dict[str, Any] = {
        "id": "click-up",
        "name": "ClickUp",
        "type": "oauth",
        "authorization": Endpoint(url="https://app.clickup.com/api"),
        "token": Endpoint(url=f"{API_URL}/oauth/token"),
        "userinfo": Endpoint(url=f"{API_URL}/user"),
        "checks": ("state",),
        "client_auth": "client_secret_post",
        "profile": _profile,
        "style": ProviderStyle(brand_color="#24292f", text="#fff"),
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    user = profile["user"]
    return {
        "id": str(user["id"]),
        "name": user.get("username") or None,
        "email": user.get("email") or None,
        "image": user.get("profilePicture") or None,
    }
