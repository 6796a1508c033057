"""The token exchange: the request, the answer's normalisation, the id_token's validation."""

from __future__ import annotations

import time
from typing import Any

import httpx
from authlib.oidc.core import CodeIDToken
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet, OctKey
from joserfc.jws import extract_compact

from authui.oauth.client_auth import authenticate
from authui.oauth.discovery import DiscoveryCache, Endpoints
from authui.oauth.http import fetch_json
from authui.providers.oauth import OAuthProvider, TokenSet

ID_TOKEN_LEEWAY = 30
"""Seconds of clock difference accepted on ``exp``/``iat`` of an id_token."""

_TOKEN_TYPES = frozenset({"bearer", "dpop"})
_SECRET_ALGS = ["HS256", "HS384", "HS512"]
_SIGNING_ALGS = [
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "ES256",
    "ES384",
    "ES512",
    "EdDSA",
]


class TokenError(Exception):
    """The token answer or its id_token failed a check; the message says which."""


async def exchange_code(
    provider: OAuthProvider,
    found: Endpoints,
    *,
    code: str,
    redirect_uri: str,
    code_verifier: str | None,
) -> TokenSet:
    """Trade ``code`` for tokens; the normalised token set.

    Raises:
        ProviderHTTPError: The token endpoint answered with an error.
        TokenError: The answer is not a valid token response.
        AuthError: The client cannot authenticate as configured.
    """
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri}
    if code_verifier is not None:
        form["code_verifier"] = code_verifier
    return await _token_request(provider, found, form)


async def refresh(provider: OAuthProvider, found: Endpoints, refresh_token: str) -> TokenSet:
    """Trade a refresh token for new tokens (RFC 6749 §6), the client authenticated as the
    provider says; the normalised token set. A provider that rotates refresh tokens sends
    a new one, and the old one is spent.

    Raises:
        ProviderHTTPError: The token endpoint answered with an error (``invalid_grant``: the
            refresh token was revoked, has expired, or was spent already).
        TokenError: The answer is not a valid token response.
        AuthError: The client cannot authenticate as configured.
    """
    form = {"grant_type": "refresh_token", "refresh_token": refresh_token}
    return await _token_request(provider, found, form)


async def _token_request(
    provider: OAuthProvider, found: Endpoints, form: dict[str, str]
) -> TokenSet:
    """POST ``form`` to the token endpoint with the client's credentials; the normalised
    answer."""
    token_url = found.token or ""
    headers = {
        "Accept": "application/json",
        "Content-Type": "application/x-www-form-urlencoded;charset=UTF-8",
        **authenticate(provider, token_url, found.issuer, form),
    }
    request = httpx.Request("POST", token_url, headers=headers, data=form)
    body = await fetch_json(provider, request, "The token endpoint")
    if provider.token.conform is not None:
        body = provider.token.conform(body)
    return normalise(body)


def normalise(body: dict[str, Any]) -> TokenSet:
    """Check a token response's fields and lower-case ``token_type``; ``expires_at`` from
    ``expires_in``.

    Raises:
        TokenError: A required field is missing or of the wrong type, or the response is
            an OAuth error.
    """
    if isinstance(body.get("error"), str):
        description = body.get("error_description")
        raise TokenError(f"The token endpoint answered {body['error']!r}: {description or ''}")
    tokens = dict(body)
    if not isinstance(tokens.get("access_token"), str) or not tokens["access_token"]:
        raise TokenError("The token response has no access_token")
    token_type = tokens.get("token_type", "bearer")
    if not isinstance(token_type, str) or token_type.lower() not in _TOKEN_TYPES:
        raise TokenError(f"Unsupported token_type {token_type!r}")
    tokens["token_type"] = token_type.lower()
    for name in ("scope", "refresh_token", "id_token"):
        if name in tokens and tokens[name] is not None and not isinstance(tokens[name], str):
            raise TokenError(f"The token response's {name} is not a string")
    expires_in = tokens.get("expires_in")
    if isinstance(expires_in, str) and expires_in.isdigit():
        expires_in = tokens["expires_in"] = int(expires_in)
    if isinstance(expires_in, int | float) and not isinstance(expires_in, bool):
        tokens["expires_at"] = int(time.time()) + int(expires_in)
    return tokens


async def id_token_claims(
    provider: OAuthProvider,
    found: Endpoints,
    tokens: TokenSet,
    *,
    nonce: str | None,
    discovery: DiscoveryCache,
) -> dict[str, Any]:
    """Verify the id_token's signature against the provider's keys and its claims:
    ``iss``, ``aud``/``azp``, ``exp``/``iat`` (with ``ID_TOKEN_LEEWAY``), ``nonce``,
    ``at_hash``. Returns the claims. The provider's keys come through ``discovery``.

    Raises:
        TokenError: The id_token is missing, unsigned, or fails a check.
        DiscoveryError: The keys cannot be had.
    """
    raw = tokens.get("id_token")
    if not isinstance(raw, str):
        raise TokenError("An OpenID provider must return an id_token; this answer has none")
    token = await verified_jwt(provider, found, raw, discovery)
    claims = dict(token.claims)
    issuer = found.issuer or provider.issuer or ""
    if "{tenantid}" in issuer:
        issuer = issuer.replace("{tenantid}", str(claims.get("tid", "")))
    options: dict[str, Any] = {
        "iss": {"essential": True, "value": issuer},
        "aud": {"essential": True, "value": provider.client_id},
    }
    if nonce is not None:
        options["nonce"] = {"essential": True, "value": nonce}
    params = {
        "client_id": provider.client_id,
        "nonce": nonce,
        "access_token": tokens.get("access_token"),
    }
    try:
        CodeIDToken(claims, dict(token.header), options, params).validate(
            time.time(), ID_TOKEN_LEEWAY
        )
    except JoseError as exc:
        raise TokenError(f"The id_token fails its check: {exc}") from exc
    return claims


async def verified_jwt(
    provider: OAuthProvider,
    found: Endpoints,
    raw: str,
    discovery: DiscoveryCache,
    what: str = "id_token",
) -> jwt.Token:
    """A JWT the provider signed (an id_token, a logout token), verified: with the client
    secret when it is signed with one (HS*), else with the provider's published keys,
    fetched again once if none fits (the provider may have rotated them).

    Raises:
        TokenError: ``raw`` is not a signed JWT, or its signature does not verify.
        DiscoveryError: The keys cannot be had.
    """
    try:
        alg = str(extract_compact(raw.encode()).headers().get("alg", ""))
    except (ValueError, JoseError) as exc:
        raise TokenError(f"The {what} is not a signed JWT: {exc}") from exc
    if alg.startswith("HS"):  # signed with the client secret (OpenID Connect Core §10.1)
        if not provider.client_secret:
            raise TokenError(f"The {what} is signed with a client secret this client lacks")
        return _verified(raw, OctKey.import_key(provider.client_secret), _SECRET_ALGS, what)
    if not found.jwks_uri:
        raise TokenError(f"No jwks_uri to verify the {what} with")
    try:
        keys = await discovery.key_set(provider, found.jwks_uri)
        return jwt.decode(raw, keys, algorithms=_SIGNING_ALGS)
    except (ValueError, JoseError):
        keys = await discovery.key_set(provider, found.jwks_uri, refresh=True)
    return _verified(raw, keys, _SIGNING_ALGS, what)


def _verified(raw: str, key: KeySet | OctKey, algorithms: list[str], what: str) -> jwt.Token:
    try:
        return jwt.decode(raw, key, algorithms=algorithms)
    except (ValueError, JoseError) as exc:
        raise TokenError(f"The {what}'s signature does not verify: {exc}") from exc
