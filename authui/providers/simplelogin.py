"""SimpleLogin: "Sign in with SimpleLogin", OpenID Connect at ``https://app.simplelogin.io``.

Create a website under Developer (app.simplelogin.io/developer) and add
``<origin>/auth/callback/simplelogin`` to its authorized redirect URIs (``https`` only,
except ``localhost``). ``AUTH_SIMPLELOGIN_ID`` and ``AUTH_SIMPLELOGIN_SECRET`` hold its
OAuth app id and secret. A self-hosted SimpleLogin has its own issuer: pass ``issuer=``
or set ``AUTH_SIMPLELOGIN_ISSUER``.

Quirks:

- The user may give each website a new alias instead of their mailbox address: ``email``
  is then an alias that forwards to them (``email_verified`` is always ``true``). The
  name may also be one chosen for the website, the avatar SimpleLogin's default one.
- The avatar is ``avatar_url`` (a link that expires), not ``picture``; ``null`` without
  an avatar.
- ``sub`` is the user's id for this website (the same number as the ``id`` claim).
- SimpleLogin does not check PKCE (it ignores the challenge and verifier), so the round
  trip is also protected by ``state`` and ``nonce``.
- Token errors are ``{"error": "<message>"}`` with status 400, not OAuth error codes.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides


def simplelogin_profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    """``id`` ← ``sub``, ``name`` (an empty one left out), ``email``, ``image`` ←
    ``avatar_url``."""
    return {
        "id": str(profile["sub"]),
        "name": profile.get("name") or None,
        "email": profile.get("email"),
        "image": profile.get("avatar_url") or None,
    }


def SimpleLogin(**options: Any) -> OAuthProvider:
    """Sign in with SimpleLogin. Keyword arguments override any ``OAuthProvider``
    setting."""
    defaults = {
        "id": "simplelogin",
        "name": "SimpleLogin",
        "type": "oidc",
        "issuer": "https://app.simplelogin.io",
        "default_issuer": True,
        "authorization": Endpoint(params={"scope": "openid profile email"}),
        "checks": ("pkce", "state", "nonce"),
        "profile": simplelogin_profile,
        "style": ProviderStyle(brand_color="#e3156a"),
    }
    return with_overrides(defaults, options)
