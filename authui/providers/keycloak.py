"""Keycloak: OpenID Connect at a realm, ``https://<host>/realms/<realm>`` (before
Keycloak 17: ``https://<host>/auth/realms/<realm>``).

Create an OpenID Connect client with *Client authentication* on and the *Standard flow*,
and register ``<origin>/auth/callback/keycloak`` under *Valid redirect URIs*.
``AUTH_KEYCLOAK_ID`` and ``AUTH_KEYCLOAK_SECRET`` hold the client id and its secret
(Credentials tab), ``AUTH_KEYCLOAK_ISSUER`` the realm URL.

Quirks: ``email_verified`` is the realm's record (set after the verify-email action, or
by an administrator or an identity broker). The token response carries
``session_state`` (kept with the account) and ``refresh_expires_in``; tokens are short
lived by default (5 minutes).
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides


def Keycloak(**options: Any) -> OAuthProvider:
    """Sign in with Keycloak. Pass ``issuer=`` or set ``AUTH_KEYCLOAK_ISSUER``; keyword
    arguments override any ``OAuthProvider`` setting."""
    defaults = {
        "id": "keycloak",
        "name": "Keycloak",
        "type": "oidc",
        "issuer": None,
        "authorization": Endpoint(params={"scope": "openid profile email"}),
        "style": ProviderStyle(brand_color="#428bca"),
    }
    return with_overrides(defaults, options)
