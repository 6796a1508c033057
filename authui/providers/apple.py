"""Sign in with Apple: OpenID Connect at ``https://appleid.apple.com``.

Register ``<origin>/auth/callback/apple`` as a *Return URL* of a Services ID (Apple
Developer → Certificates, Identifiers & Profiles → Identifiers → Services IDs → Sign in
with Apple → Configure). Apple accepts only ``https`` return URLs on a real domain, not
``localhost``. ``AUTH_APPLE_ID`` holds the Services ID (e.g. ``com.example.web``) and
``AUTH_APPLE_SECRET`` the client secret.

Quirks:

- The client secret is not issued by Apple: it is a JWT the app signs (ES256) with a Sign
  in with Apple key (``.p8``), valid for at most six months. ``apple_client_secret`` makes
  one; renew it before it expires.
- Apple answers with ``response_mode=form_post``: the callback is a cross-site POST, so
  the ``state`` and ``nonce`` cookies of this provider are ``SameSite=None; Secure`` (the
  site must be served over HTTPS) and a redirect proxy cannot carry the callback.
- The user's name is not a claim. Apple posts it once, as JSON in the ``user`` form
  field, on the user's first consent; later sign-ins carry no name and the profile falls
  back to the email address. Store the name when the user is created.
- ``email`` may be a private relay address (``…@privaterelay.appleid.com``,
  ``is_private_email``); Apple has sent ``email_verified`` as the string ``"true"``,
  which counts as verified. There is no picture.
"""

from __future__ import annotations

import time
from typing import Any

from joserfc import jwt
from joserfc.jwk import ECKey

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

ISSUER = "https://appleid.apple.com"
MAX_SECRET_LIFETIME = 15_777_000
"""Apple refuses client secrets that expire more than six months after they are issued."""


def apple_profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    """``id`` ← ``sub``; ``name`` ← ``user.name`` (first consent only) else ``email``;
    ``email``; no image."""
    user = profile.get("user")
    names = user.get("name") if isinstance(user, dict) else None
    name = None
    if isinstance(names, dict):
        parts = (names.get("firstName"), names.get("lastName"))
        name = " ".join(p.strip() for p in parts if isinstance(p, str) and p.strip()) or None
    return {
        "id": str(profile["sub"]),
        "name": name or profile.get("email"),
        "email": profile.get("email"),
        "image": None,
    }


def apple_client_secret(
    *,
    team_id: str,
    key_id: str,
    private_key: str | bytes,
    client_id: str,
    expires_in: int = MAX_SECRET_LIFETIME,
    now: int | None = None,
) -> str:
    """Apple's client secret: a JWT signed with a Sign in with Apple key.

    Args:
        team_id: The Apple Developer team id (``iss``).
        key_id: The key's id (``kid``).
        private_key: The key's ``.p8`` file, PEM.
        client_id: The Services ID (``sub``), the same as ``AUTH_APPLE_ID``.
        expires_in: Seconds it stays valid; at most six months.
        now: The issue time, for tests.

    Raises:
        ValueError: ``expires_in`` is longer than Apple accepts.
    """
    if not 0 < expires_in <= MAX_SECRET_LIFETIME:
        raise ValueError(f"expires_in must be between 1 and {MAX_SECRET_LIFETIME} seconds")
    issued = int(time.time()) if now is None else now
    claims = {
        "iss": team_id,
        "iat": issued,
        "exp": issued + expires_in,
        "aud": ISSUER,
        "sub": client_id,
    }
    key = ECKey.import_key(private_key)
    return jwt.encode({"alg": "ES256", "kid": key_id}, claims, key)


def Apple(**options: Any) -> OAuthProvider:
    """Sign in with Apple. Keyword arguments override any ``OAuthProvider`` setting."""
    defaults = {
        "id": "apple",
        "name": "Apple",
        "type": "oidc",
        "issuer": ISSUER,
        "authorization": Endpoint(params={"scope": "name email", "response_mode": "form_post"}),
        "checks": ("nonce", "state"),
        "client_auth": "client_secret_post",
        "profile": apple_profile,
        "style": ProviderStyle(brand_color="#000", text="#fff"),
    }
    return with_overrides(defaults, options)
