"""ZITADEL: OpenID Connect at an instance, ``https://<instance>.zitadel.cloud`` or your
own domain.

Create a *Web* application in a project with the *Code* grant and *Basic* authentication
method, and register ``<origin>/auth/callback/zitadel`` as a redirect URI (enable
*Development mode* for ``http`` URIs). ``AUTH_ZITADEL_ID`` and ``AUTH_ZITADEL_SECRET``
hold the client id and secret, ``AUTH_ZITADEL_ISSUER`` the instance URL.

Quirks: the id_token's ``aud`` lists the project id besides the client id (``azp`` names
the client). ZITADEL puts profile claims in the id_token only when the application
allows it (*User Info inside ID Token*); otherwise set ``id_token=False`` to read them
from userinfo. Ask for ``offline_access`` to get a refresh token.
"""

from __future__ import annotations

from typing import Any

from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides


def Zitadel(**options: Any) -> OAuthProvider:
    """Sign in with ZITADEL. Pass ``issuer=`` or set ``AUTH_ZITADEL_ISSUER``; keyword
    arguments override any ``OAuthProvider`` setting."""
    defaults = {
        "id": "zitadel",
        "name": "ZITADEL",
        "type": "oidc",
        "issuer": None,
        "authorization": Endpoint(params={"scope": "openid profile email"}),
    }
    return with_overrides(defaults, options)
