"""authentik: OpenID Connect at an application's provider,
``https://<host>/application/o/<application slug>/``.

Create an *OAuth2/OpenID Provider* (client type *Confidential*) and an application using
it, and register ``<origin>/auth/callback/authentik`` as a redirect URI (strict match).
``AUTH_AUTHENTIK_ID`` and ``AUTH_AUTHENTIK_SECRET`` hold the provider's client id and
secret, ``AUTH_AUTHENTIK_ISSUER`` the issuer URL shown on the provider's page.

Quirks: the issuer ends in a slash, and the id_token's ``iss`` keeps it. Since authentik
2025.10 the default ``email`` scope mapping says ``email_verified: false`` (earlier
versions said ``true`` for everyone): linking by email needs a mapping that tells the
truth. Only the token, userinfo and authorization endpoints are shared by all
applications; discovery and keys are per application.
"""

from __future__ import annotations

from typing import Any

from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides


def Authentik(**options: Any) -> OAuthProvider:
    """Sign in with authentik. Pass ``issuer=`` or set ``AUTH_AUTHENTIK_ISSUER``; keyword
    arguments override any ``OAuthProvider`` setting."""
    defaults = {
        "id": "authentik",
        "name": "Authentik",
        "type": "oidc",
        "issuer": None,
        "authorization": Endpoint(params={"scope": "openid profile email"}),
    }
    return with_overrides(defaults, options)
