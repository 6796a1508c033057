"""Asgardeo (WSO2): OpenID Connect at an organisation,
``https://api.asgardeo.io/t/<organisation>/oauth2/token``.

Register a *Traditional Web Application* (OpenID Connect) in the Asgardeo console, allow
the *Code* grant and add ``<origin>/auth/callback/asgardeo`` to its *Authorized redirect
URLs* (Protocol tab). ``AUTH_ASGARDEO_ID`` and ``AUTH_ASGARDEO_SECRET`` hold the client
id and secret, ``AUTH_ASGARDEO_ISSUER`` the *Issuer* shown on the Info tab (it ends in
``/oauth2/token``).

Quirks: the issuer is the token endpoint's URL, and discovery lives below it
(``<issuer>/.well-known/openid-configuration``). The id_token carries only the user
attributes the application asks for (User Attributes tab): without a *name* attribute
the profile has ``given_name``/``family_name`` but no ``name``, and the user no name.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides


def Asgardeo(**options: Any) -> OAuthProvider:
    """Sign in with Asgardeo. Pass ``issuer=`` or set ``AUTH_ASGARDEO_ISSUER``; keyword
    arguments override any ``OAuthProvider`` setting."""
    defaults = {
        "id": "asgardeo",
        "name": "Asgardeo",
        "type": "oidc",
        "issuer": None,
        "authorization": Endpoint(params={"scope": "openid profile email"}),
        "style": ProviderStyle(brand_color="#000", text="#fff"),
    }
    return with_overrides(defaults, options)
