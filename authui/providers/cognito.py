"""Amazon Cognito: OpenID Connect at a user pool,
``https://cognito-idp.<region>.amazonaws.com/<user pool id>``.

Give the user pool a domain (managed login), create an app client with a client secret,
the *Authorization code grant* and the ``openid``, ``profile`` and ``email`` scopes, and
register ``<origin>/auth/callback/cognito`` under its *Allowed callback URLs*.
``AUTH_COGNITO_ID`` and ``AUTH_COGNITO_SECRET`` hold the app client's id and secret,
``AUTH_COGNITO_ISSUER`` the user pool URL above (not the managed login domain).

Quirks: the issuer and the endpoints live on different hosts (``cognito-idp…`` and the
pool's domain), which discovery takes care of. ``email_verified`` is a boolean in id_tokens
for users of the pool itself; for federated users it is what the attribute mapping put
there, and Cognito has been seen to send the strings ``"true"``/``"false"``. Only
``true`` and ``"true"`` count as verified. ``name`` is only set when the pool has the
attribute; ``cognito:username`` is in ``profile``.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides


def Cognito(**options: Any) -> OAuthProvider:
    """Sign in with Amazon Cognito. Pass ``issuer=`` or set ``AUTH_COGNITO_ISSUER``;
    keyword arguments override any ``OAuthProvider`` setting."""
    defaults = {
        "id": "cognito",
        "name": "Cognito",
        "type": "oidc",
        "issuer": None,
        "authorization": Endpoint(params={"scope": "openid profile email"}),
        "style": ProviderStyle(brand_color="#C17B9E"),
    }
    return with_overrides(defaults, options)
