"""Logto: OpenID Connect at a tenant's endpoint, ``https://<tenant>.logto.app/oidc``
(self-hosted: ``https://<your host>/oidc``).

Create a *Traditional web* application in the Logto console and add
``<origin>/auth/callback/logto`` to its *Redirect URIs*. ``AUTH_LOGTO_ID`` and
``AUTH_LOGTO_SECRET`` hold its app id and secret, ``AUTH_LOGTO_ISSUER`` the issuer shown
on the application's page (it ends in ``/oidc``).

Quirks: the scope asks for ``offline_access``, for a refresh token. The user's name is
``name``, else the Logto ``username``. Logto users may have no email address (phone or
username sign-in); ``email_verified`` says whether the address was verified.
"""

from __future__ import annotations

from typing import Any

from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides


def logto_profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    """``id`` ← ``sub``; ``name`` ← ``name`` else ``username``; ``email``; ``image`` ←
    ``picture``."""
    return {
        "id": str(profile["sub"]),
        "name": profile.get("name") or profile.get("username"),
        "email": profile.get("email"),
        "image": profile.get("picture"),
    }


def Logto(**options: Any) -> OAuthProvider:
    """Sign in with Logto. Pass ``issuer=`` or set ``AUTH_LOGTO_ISSUER``; keyword
    arguments override any ``OAuthProvider`` setting."""
    defaults = {
        "id": "logto",
        "name": "Logto",
        "type": "oidc",
        "issuer": None,
        "authorization": Endpoint(params={"scope": "offline_access openid email profile"}),
        "profile": logto_profile,
    }
    return with_overrides(defaults, options)
