"""OneLogin: OpenID Connect at an account's OIDC issuer,
``https://<subdomain>.onelogin.com/oidc/2``.

Add an *OpenId Connect (OIDC)* application (Applications → Add App), register
``<origin>/auth/callback/onelogin`` as a *Redirect URI* on its Configuration tab, and on
the SSO tab keep the *Token Endpoint* authentication method at *Basic*.
``AUTH_ONELOGIN_ID`` and ``AUTH_ONELOGIN_SECRET`` hold its client id and secret,
``AUTH_ONELOGIN_ISSUER`` the issuer URL shown on the SSO tab, ending in ``/oidc/2``.

Quirks: the issuer includes ``/oidc/2``: discovery is read from
``<issuer>/.well-known/openid-configuration``, and the id_token's ``iss`` must equal it.
``sub`` is OneLogin's numeric user id, as a string.
"""

from __future__ import annotations

from typing import Any

from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides


def OneLogin(**options: Any) -> OAuthProvider:
    """Sign in with OneLogin. Pass ``issuer=`` or set ``AUTH_ONELOGIN_ISSUER``; keyword
    arguments override any ``OAuthProvider`` setting."""
    defaults = {
        "id": "onelogin",
        "name": "OneLogin",
        "type": "oidc",
        "issuer": None,
        "authorization": Endpoint(params={"scope": "openid profile email"}),
    }
    return with_overrides(defaults, options)
