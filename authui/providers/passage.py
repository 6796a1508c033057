"""Passage (by 1Password): OpenID Connect at an app's hosted login,
``https://<app id>.withpassage.com``.

In the Passage console, create an app with *Hosted login* and a confidential OIDC client
for a web application, and add ``<origin>/auth/callback/passage`` to its *Redirect
URIs*. ``AUTH_PASSAGE_ID`` and ``AUTH_PASSAGE_SECRET`` hold the OIDC client's
id and secret, ``AUTH_PASSAGE_ISSUER`` the app's issuer URL.

Quirks: Passage sign-in is passwordless (passkeys, email or SMS codes). Its profile has
no name and no picture: the user is ``sub`` and ``email`` (or only a phone number, for
users who signed up with one).
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides


def Passage(**options: Any) -> OAuthProvider:
    """Sign in with Passage. Pass ``issuer=`` or set ``AUTH_PASSAGE_ISSUER``; keyword
    arguments override any ``OAuthProvider`` setting."""
    defaults = {
        "id": "passage",
        "name": "Passage",
        "type": "oidc",
        "issuer": None,
        "authorization": Endpoint(params={"scope": "openid profile email"}),
        "client_auth": "client_secret_basic",
        "style": ProviderStyle(brand_color="#3d53f6"),
    }
    return with_overrides(defaults, options)
