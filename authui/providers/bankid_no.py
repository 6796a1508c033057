"""BankID Norge (Norwegian BankID): OpenID Connect at
``https://auth.bankid.no/auth/realms/prod``.

BankID registers OIDC clients itself: a merchant agreement (through a bank or a reseller)
gives a client id and secret, and the redirect URI ``<origin>/auth/callback/bankid-no``
is registered with the client. ``AUTH_BANKID_NO_ID`` and ``AUTH_BANKID_NO_SECRET`` hold
them. The test environment ("current") is ``TEST_ISSUER``: pass ``issuer=TEST_ISSUER`` or
set ``AUTH_BANKID_NO_ISSUER``.

Quirks:

- The account id is ``bankid_altsub`` (the BankID personal identifier), not ``sub``:
  BankID warns that ``sub`` may change for any user and recommends ``bankid_altsub`` as
  the stable identifier. ``sub`` is used only when ``bankid_altsub`` is missing.
- ``email`` is never in the id_token, only in userinfo, which lives on another host
  (``userinfo.bankid.no``) and answers with a signed JWT (``application/jwt``). Its claims
  are read without checking that signature (Auth.js does the same): the answer comes
  straight from the endpoint the verified discovery document names, over TLS, and its
  ``sub`` must equal the verified id_token's; an ``aud`` that does not name this client
  is refused. A plain JSON answer is read as well. The profile is the id_token's claims
  completed by userinfo's; when userinfo fails, the id_token's alone (no email).
- BankID's API version 4 (the only one since October 2025) requires PKCE, ``state`` and
  ``nonce``, sends ``amr`` as a list, and signs with ES256. The client secret goes in the
  token request's form (``client_secret_post``).
- ``ui_locales=no`` shows the Norwegian dialogues; ``login_hint=BIS`` preselects BankID
  biometrics (level of assurance "substantial"). Replace either through
  ``authorization={"params": {...}}``, e.g. ``{"acr_values": "urn:bankid:bid"}`` with
  another ``login_hint`` for BankID at level 4.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from joserfc.errors import JoseError
from joserfc.jws import extract_compact

from authui.providers.base import ProviderStyle
from authui.providers.oauth import (
    Endpoint,
    OAuthProvider,
    Profile,
    TokenSet,
    UserinfoCall,
    with_overrides,
)

ISSUER = "https://auth.bankid.no/auth/realms/prod"
"""BankID's production realm."""

TEST_ISSUER = "https://auth.current.bankid.no/auth/realms/current"
"""BankID's test realm ("current"), for test users and test clients."""


class UserinfoError(Exception):
    """BankID's userinfo answer cannot be read, or names another client."""


def userinfo_claims(answer: httpx.Response, client_id: str | None) -> Profile:
    """The claims of a userinfo answer: a JWT's payload (``application/jwt``) or a JSON
    object. The JWT's signature is not checked; an ``aud`` must name ``client_id``.

    Raises:
        UserinfoError: Neither a JWT nor a JSON object, or an ``aud`` for another client.
    """
    media_type = answer.headers.get("content-type", "").split(";")[0].strip().lower()
    try:
        if media_type == "application/jwt":
            claims = json.loads(extract_compact(answer.content.strip()).payload)
        else:
            claims = answer.json()
    except (ValueError, JoseError) as exc:
        raise UserinfoError(f"BankID's userinfo answer cannot be read: {exc}") from exc
    if not isinstance(claims, dict):
        raise UserinfoError("BankID's userinfo answer is not a set of claims")
    audience = claims.get("aud")
    if audience is not None:
        allowed = audience if isinstance(audience, list) else [audience]
        if client_id not in allowed:
            raise UserinfoError(f"BankID's userinfo answer is for {audience!r}, not this client")
    return claims


async def bankid_userinfo(call: UserinfoCall) -> Profile:
    """GET the discovered userinfo endpoint with the access token; its claims.

    Raises:
        httpx.HTTPStatusError: The endpoint answered with an error status.
        UserinfoError: The answer cannot be read or names another client, or the
            discovery document names no userinfo endpoint.
    """
    if not call.userinfo_url:
        raise UserinfoError("BankID's discovery document names no userinfo endpoint")
    request = httpx.Request(
        "GET",
        call.userinfo_url,
        headers={
            "Authorization": f"Bearer {call.tokens['access_token']}",
            "Accept": "application/jwt, application/json",
        },
    )
    answer = await call.fetch(request)
    answer.raise_for_status()
    return userinfo_claims(answer, call.provider.client_id)


def bankid_profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    """``id`` ← ``bankid_altsub`` (else ``sub``), ``name``, ``email`` (from userinfo), no
    image."""
    return {
        "id": str(profile.get("bankid_altsub") or profile["sub"]),
        "name": profile.get("name"),
        "email": profile.get("email"),
        "image": None,
    }


def BankIDNorway(**options: Any) -> OAuthProvider:
    """Sign in with BankID Norge. Keyword arguments override any ``OAuthProvider``
    setting, e.g. ``issuer=TEST_ISSUER`` for the test environment."""
    defaults = {
        "id": "bankid-no",
        "name": "BankID Norge",
        "type": "oidc",
        "issuer": ISSUER,
        "default_issuer": True,
        "authorization": Endpoint(
            params={"ui_locales": "no", "login_hint": "BIS", "scope": "openid profile email"}
        ),
        "userinfo": Endpoint(request=bankid_userinfo),
        "checks": ("pkce", "state", "nonce"),
        "client_auth": "client_secret_post",
        "profile": bankid_profile,
        "style": ProviderStyle(brand_color="#39134c", text="#fff"),
    }
    return with_overrides(defaults, options)
