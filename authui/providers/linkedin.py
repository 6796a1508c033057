"""LinkedIn: OpenID Connect ("Sign In with LinkedIn using OpenID Connect") at
``https://www.linkedin.com/oauth``.

Add the *Sign In with LinkedIn using OpenID Connect* product to the app in the LinkedIn
developer portal and register ``<origin>/auth/callback/linkedin`` under Auth → Authorized
redirect URLs; ``AUTH_LINKEDIN_ID`` and ``AUTH_LINKEDIN_SECRET`` hold the client id and
secret.

Quirks: LinkedIn's web sign-in takes no PKCE (LinkedIn keeps PKCE for native clients), so
the round trip is protected by ``state``; the client secret goes in the token request's
form (``client_secret_post``); the token response's ``scope`` is comma-separated
(``email,openid,profile``).
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides


def LinkedIn(**options: Any) -> OAuthProvider:
    """Sign in with LinkedIn. Keyword arguments override any ``OAuthProvider`` setting."""
    defaults = {
        "id": "linkedin",
        "name": "LinkedIn",
        "type": "oidc",
        "issuer": "https://www.linkedin.com/oauth",
        "authorization": Endpoint(params={"scope": "openid profile email"}),
        "checks": ("state",),
        "client_auth": "client_secret_post",
        "style": ProviderStyle(brand_color="#069", text="#fff"),
    }
    return with_overrides(defaults, options)
