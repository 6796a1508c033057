"""Kinde: OpenID Connect at a business's domain, ``https://<business>.kinde.com`` (or a
custom domain).

Add a *Back-end web* application in Kinde and register
``<origin>/auth/callback/kinde`` under its *Allowed callback URLs*. ``AUTH_KINDE_ID``
and ``AUTH_KINDE_SECRET`` hold its client id and secret, ``AUTH_KINDE_ISSUER`` the
domain as a URL.

Quirks: the round trip is protected by both ``state`` and PKCE, as in Auth.js. Kinde
user ids (``sub``) start with ``kp_``. A refresh token needs the ``offline`` scope
(Kinde's name for it, not ``offline_access``).
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides


def Kinde(**options: Any) -> OAuthProvider:
    """Sign in with Kinde. Pass ``issuer=`` or set ``AUTH_KINDE_ISSUER``; keyword
    arguments override any ``OAuthProvider`` setting."""
    defaults = {
        "id": "kinde",
        "name": "Kinde",
        "type": "oidc",
        "issuer": None,
        "authorization": Endpoint(params={"scope": "openid profile email"}),
        "checks": ("state", "pkce"),
        "style": ProviderStyle(brand_color="#fff", text="#0F0F0F"),
    }
    return with_overrides(defaults, options)
