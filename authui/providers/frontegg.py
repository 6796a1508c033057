"""Frontegg: OpenID Connect at an environment's login domain,
``https://<subdomain>.frontegg.com`` (or your custom domain).

Use Frontegg's hosted login (Authentication → Login method → Hosted login) and add
``<origin>/auth/callback/frontegg`` to its allowed redirect URLs. ``AUTH_FRONTEGG_ID``
holds the environment's client id, ``AUTH_FRONTEGG_SECRET`` its API key, and
``AUTH_FRONTEGG_ISSUER`` the login domain as a URL (Environment settings → Domains).

Quirks: Frontegg's endpoints are ``<issuer>/oauth/authorize``, ``<issuer>/oauth/token``
and, for userinfo, ``<issuer>/identity/resources/users/v2/me``; all of them, and the
signing keys the id_token is checked with, are read from the issuer's discovery
document. Frontegg calls the picture ``profilePictureUrl``; it is the user's image
when there is no ``picture``.
"""

from __future__ import annotations

from typing import Any

from authui.providers.oauth import (
    Endpoint,
    OAuthProvider,
    Profile,
    TokenSet,
    default_profile,
    with_overrides,
)


def frontegg_profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    """The default mapping (``id`` ← ``sub``, ``name``, ``email``, ``image`` ←
    ``picture``), the image else ``profilePictureUrl``."""
    user = default_profile(profile, tokens)
    if "image" not in user and profile.get("profilePictureUrl"):
        user["image"] = profile["profilePictureUrl"]
    return user


def Frontegg(**options: Any) -> OAuthProvider:
    """Sign in with Frontegg. Pass ``issuer=`` or set ``AUTH_FRONTEGG_ISSUER``; keyword
    arguments override any ``OAuthProvider`` setting."""
    defaults = {
        "id": "frontegg",
        "name": "Frontegg",
        "type": "oidc",
        "issuer": None,
        "authorization": Endpoint(params={"scope": "openid profile email"}),
        "profile": frontegg_profile,
    }
    return with_overrides(defaults, options)
