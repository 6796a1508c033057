"""WordPress.com: OAuth 2 sign-in with a WordPress.com account.

Create an application in the WordPress.com applications manager
(https://developer.wordpress.com/apps/) and enter ``<origin>/auth/callback/wordpress`` as
its "Redirect URLs"; ``AUTH_WORDPRESS_ID`` and ``AUTH_WORDPRESS_SECRET`` hold its client
ID and client secret. This signs in with WordPress.com accounts (also used by Jetpack
sites), not with the users of a self-hosted WordPress site.

Quirks:

- The profile is ``GET https://public-api.wordpress.com/rest/v1/me`` (scope ``auth``,
  which allows nothing else). Its id field is ``ID`` (a number), the avatar
  ``avatar_URL`` (a Gravatar URL, Gravatar's generated picture when the user has none).
  ``email_verified`` says whether the address is verified; email linking relies on it.
- WordPress.com wants the client ID and secret in the token request's form
  (``client_secret_post``): with HTTP Basic it answers that ``client_id`` is missing.
  It documents ``state``, not PKCE, so the round trip is protected by ``state``.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

API_URL = "https://public-api.wordpress.com"


def WordPress(**options: Any) -> OAuthProvider:
    """Sign in with WordPress.com. Keyword arguments override any ``OAuthProvider``
    setting, e.g. ``authorization={"params": {"scope": "auth posts"}}``."""
    defaults: dict[str, Any] = {
        "id": "wordpress",
        "name": "WordPress.com",
        "type": "oauth",
        "authorization": Endpoint(url=f"{API_URL}/oauth2/authorize", params={"scope": "auth"}),
        "token": Endpoint(url=f"{API_URL}/oauth2/token"),
        "userinfo": Endpoint(url=f"{API_URL}/rest/v1/me"),
        "checks": ("state",),
        "client_auth": "client_secret_post",
        "profile": _profile,
        # WordPress.com blue, dark enough for white text (4.8:1).
        "style": ProviderStyle(brand_color="#0675C4", text="#fff"),
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    return {
        "id": str(profile["ID"]),
        "name": profile.get("display_name") or profile.get("username") or None,
        "email": profile.get("email") or None,
        "image": profile.get("avatar_URL") or None,
    }
