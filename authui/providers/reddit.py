"""Reddit: OAuth 2 sign-in with a Reddit account.

Register ``<origin>/auth/callback/reddit`` as the "redirect uri" of a "web app" (Reddit →
preferences → apps → create app); ``AUTH_REDDIT_ID`` and ``AUTH_REDDIT_SECRET`` hold the
id shown under the app's name and its secret.

Quirks: Reddit checks ``state``, not PKCE. The profile is ``GET /api/v1/me`` on
``oauth.reddit.com`` (scope ``identity``): the account id and username, and ``icon_img``,
whose URL Reddit sends HTML-escaped (``&amp;``); it is unescaped for the image. Reddit
never gives the email address, so Reddit users have none.
"""

from __future__ import annotations

import html
from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides


def Reddit(**options: Any) -> OAuthProvider:
    """Sign in with Reddit. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"duration": "permanent"}}`` for a refresh token."""
    defaults: dict[str, Any] = {
        "id": "reddit",
        "name": "Reddit",
        "type": "oauth",
        "authorization": Endpoint(
            url="https://www.reddit.com/api/v1/authorize", params={"scope": "identity"}
        ),
        "token": Endpoint(url="https://www.reddit.com/api/v1/access_token"),
        "userinfo": Endpoint(url="https://oauth.reddit.com/api/v1/me"),
        "checks": ("state",),
        "profile": _profile,
        "style": ProviderStyle(brand_color="#FF4500"),
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    icon = profile.get("icon_img")
    return {
        "id": str(profile["id"]),
        "name": profile.get("name"),
        "email": None,
        "image": html.unescape(icon) if isinstance(icon, str) and icon else None,
    }
