"""EVE Online: OAuth 2 sign-in with an EVE Online character, through EVE SSO.

Create an application at developers.eveonline.com with the connection type
"Authentication Only" and ``<origin>/auth/callback/eveonline`` as its callback URL;
``AUTH_EVEONLINE_ID`` and ``AUTH_EVEONLINE_SECRET`` hold its client id and secret key.

Quirks:

- The user is a *character*, not an account: one EVE account has several characters,
  and each signs in as its own user. There is no email address.
- The token request authenticates with HTTP Basic; EVE SSO requires ``state``.
- EVE SSO's access token is a JWT, and it is the profile: authui verifies its signature
  against EVE SSO's keys (``https://login.eveonline.com/oauth/jwks``), its issuer
  (``login.eveonline.com``, with or without ``https://``), its audience (``EVE Online``),
  its expiry and its authorized party (your client id), and signs in with its claims.
  The account id is the character id from ``sub`` (``CHARACTER:EVE:<id>``), the name the
  character's ``name``; ``owner`` changes when the character moves to another account.
- The image is the character's portrait on EVE's image server.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from authui.providers.base import ProviderStyle
from authui.providers.oauth import (
    Endpoint,
    OAuthProvider,
    Profile,
    TokenSet,
    UserinfoCall,
    with_overrides,
)

SSO_URL = "https://login.eveonline.com"
JWKS_URL = f"{SSO_URL}/oauth/jwks"
ISSUERS = frozenset({"login.eveonline.com", "https://login.eveonline.com"})
AUDIENCE = "EVE Online"
SUBJECT_PREFIX = "CHARACTER:EVE:"
PORTRAIT_URL = "https://images.evetech.net/characters/{}/portrait?size=128"
LEEWAY = 30
"""Seconds of clock difference accepted on the token's ``exp``."""


def EVEOnline(**options: Any) -> OAuthProvider:
    """Sign in with EVE Online. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "esi-skills.read_skills.v1"}}``."""
    defaults: dict[str, Any] = {
        "id": "eveonline",
        "name": "EVE Online",
        "type": "oauth",
        "authorization": Endpoint(
            url=f"{SSO_URL}/v2/oauth/authorize", params={"scope": "publicData"}
        ),
        "token": Endpoint(url=f"{SSO_URL}/v2/oauth/token"),
        "userinfo": Endpoint(url=JWKS_URL, request=_verified_claims),
        "checks": ("state",),
        "profile": _profile,
        "style": ProviderStyle(brand_color="#000", text="#fff"),
    }
    return with_overrides(defaults, options)


async def _verified_claims(call: UserinfoCall) -> Profile:
    """The access token's claims, once its signature and claims check out.

    Raises:
        ValueError: The token is not a valid EVE SSO token for this client.
        httpx.HTTPStatusError: The key set cannot be had.
    """
    answer = await call.fetch(httpx.Request("GET", call.provider.userinfo.url or JWKS_URL))
    answer.raise_for_status()
    try:
        keys = KeySet.import_key_set(answer.json())
        token = jwt.decode(call.tokens["access_token"], keys, algorithms=["RS256", "ES256"])
    except (ValueError, JoseError) as exc:
        raise ValueError(f"The EVE SSO access token does not verify: {exc}") from exc
    claims: Profile = dict(token.claims)
    wrong = _wrong_claims(claims, call.provider.client_id)
    if wrong:
        raise ValueError(f"The EVE SSO access token has the wrong {', '.join(wrong)}")
    return claims


def _wrong_claims(claims: Profile, client_id: str | None) -> list[str]:
    """The claims of an EVE SSO token that do not hold, by name."""
    audience = claims.get("aud")
    audiences = audience if isinstance(audience, list) else [audience]
    subject = str(claims.get("sub", ""))
    checks = {
        "issuer": claims.get("iss") in ISSUERS,
        "audience": AUDIENCE in audiences,
        "expiry": _in_time(claims.get("exp")),
        "authorized party": claims.get("azp", client_id) == client_id,
        "subject": subject.startswith(SUBJECT_PREFIX)
        and subject.removeprefix(SUBJECT_PREFIX).isdigit(),
    }
    return [name for name, holds in checks.items() if not holds]


def _in_time(exp: Any) -> bool:
    return isinstance(exp, int | float) and exp + LEEWAY > time.time()


def character_id(profile: Profile) -> str:
    """The character id of ``sub`` (``CHARACTER:EVE:<id>``)."""
    return str(profile["sub"]).removeprefix(SUBJECT_PREFIX)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    character = character_id(profile)
    return {
        "id": character,
        "name": profile.get("name") or None,
        "email": None,
        "image": PORTRAIT_URL.format(character),
    }
