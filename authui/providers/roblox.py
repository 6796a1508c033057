"""Roblox: OpenID Connect at ``https://apis.roblox.com/oauth/``.

Create an OAuth 2.0 app in the Creator Dashboard (create.roblox.com → Credentials →
OAuth 2.0 Apps), add ``<origin>/auth/callback/roblox`` to its redirect URLs and the
``openid`` and ``profile`` scopes to its permissions. ``AUTH_ROBLOX_ID`` and
``AUTH_ROBLOX_SECRET`` hold the app's client id and secret.

Quirks: the issuer ends with a slash, and so must the id_token's ``iss``. Roblox gives
third-party apps no email address: the scope is ``openid profile``, and the user has
no email (never linked by email). ``name`` is the display name, ``preferred_username``
the username; both can be changed by the user, ``sub`` (the user id) cannot. The avatar
headshot (``picture``) is not an id_token claim: it comes from the userinfo endpoint,
which is asked because the id_token has no email; it is ``null`` until Roblox has made
the image or after moderation. Access tokens last 15 minutes.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides


def Roblox(**options: Any) -> OAuthProvider:
    """Sign in with Roblox. Keyword arguments override any ``OAuthProvider`` setting."""
    defaults = {
        "id": "roblox",
        "name": "Roblox",
        "type": "oidc",
        "issuer": "https://apis.roblox.com/oauth/",
        "authorization": Endpoint(params={"scope": "openid profile"}),
        "checks": ("pkce", "state"),
        "style": ProviderStyle(brand_color="#5865F2", text="#fff"),
    }
    return with_overrides(defaults, options)
