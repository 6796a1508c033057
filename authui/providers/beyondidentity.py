"""Beyond Identity: OpenID Connect at an application of a realm,
``https://auth-<region>.beyondidentity.com/v1/tenants/<tenant>/realms/<realm>/applications/<application>``.

In the Beyond Identity admin console, create an application with the *OIDC* protocol,
the *Authorization code* grant and a confidential client, and add
``<origin>/auth/callback/beyondidentity`` to its redirect URIs.
``AUTH_BEYONDIDENTITY_ID`` and ``AUTH_BEYONDIDENTITY_SECRET`` hold its client id and
secret, ``AUTH_BEYONDIDENTITY_ISSUER`` the issuer URL shown with the application.

Quirks: sign-in is passwordless (a passkey bound to the user's device). There is no
picture claim; ``preferred_username`` is kept on the user besides ``name`` and ``email``.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides


def beyondidentity_profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    """``id`` ← ``sub``, ``name``, ``email``, ``preferred_username``; no image."""
    return {
        "id": str(profile["sub"]),
        "name": profile.get("name"),
        "email": profile.get("email"),
        "image": None,
        "preferred_username": profile.get("preferred_username"),
    }


def BeyondIdentity(**options: Any) -> OAuthProvider:
    """Sign in with Beyond Identity. Pass ``issuer=`` or set
    ``AUTH_BEYONDIDENTITY_ISSUER``; keyword arguments override any ``OAuthProvider``
    setting."""
    defaults = {
        "id": "beyondidentity",
        "name": "Beyond Identity",
        "type": "oidc",
        "issuer": None,
        "authorization": Endpoint(params={"scope": "openid profile email"}),
        "profile": beyondidentity_profile,
        "style": ProviderStyle(brand_color="#5077c5", text="#fff"),
    }
    return with_overrides(defaults, options)
