"""Okta: OpenID Connect at your Okta org (``https://<org>.okta.com``) or one of its
authorization servers (``https://<org>.okta.com/oauth2/default``).

Create an *OIDC - Web Application* app integration and register
``<origin>/auth/callback/okta`` as a *Sign-in redirect URI*. ``AUTH_OKTA_ID`` and
``AUTH_OKTA_SECRET`` hold its client id and secret, ``AUTH_OKTA_ISSUER`` the issuer URL.

Quirks: the issuer decides the endpoints (``/oauth2/v1/…`` for the org,
``/oauth2/<server>/v1/…`` for a custom authorization server) and must match the id_token's
``iss`` exactly. Okta's id_token is thin when an access token comes with it: ``email``
and ``name`` are there, ``email_verified`` usually is not (userinfo has it), so linking
by email is refused unless ``id_token=False`` makes the profile come from userinfo.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides


def Okta(**options: Any) -> OAuthProvider:
    """Sign in with Okta. Pass ``issuer=`` or set ``AUTH_OKTA_ISSUER``; keyword arguments
    override any ``OAuthProvider`` setting."""
    defaults = {
        "id": "okta",
        "name": "Okta",
        "type": "oidc",
        "issuer": None,
        "authorization": Endpoint(params={"scope": "openid profile email"}),
        "checks": ("pkce", "state"),
        "style": ProviderStyle(brand_color="#000", text="#fff"),
    }
    return with_overrides(defaults, options)
