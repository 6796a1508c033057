"""Client authentication at the token endpoint (RFC 6749 §2.3, RFC 7523)."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from authlib.oauth2.rfc7523.assertion import client_secret_jwt_sign, private_key_jwt_sign
from authlib.oauth2.rfc7523.client import ASSERTION_TYPE
from joserfc import jwk
from joserfc.errors import JoseError

from authui.errors import AuthError
from authui.providers.oauth import OAuthProvider


def form_url_encode(value: str) -> str:
    """``application/x-www-form-urlencoded`` encoding, as RFC 6749 §2.3.1 asks for the
    Basic credentials (``c s+`` → ``c+s%2B``)."""
    return quote(value, safe="-_.!~*'()").replace("%20", "+")


def authenticate(
    provider: OAuthProvider, token_url: str, issuer: str | None, form: dict[str, str]
) -> dict[str, str]:
    """Add the client's credentials to the token request ``form``; the headers to send.

    Raises:
        AuthError: The private key is unusable, or the method is unknown.
    """
    method = provider.client_auth
    client_id = provider.client_id or ""
    if method == "none":
        form["client_id"] = client_id
        return {}
    if method == "private_key_jwt":
        form.update(_private_key_assertion(provider, token_url, issuer))
        return {}
    secret = provider.client_secret or ""  # configuration checks require one
    if method == "client_secret_basic":
        pair = f"{form_url_encode(client_id)}:{form_url_encode(secret)}"
        return {"Authorization": "Basic " + base64.b64encode(pair.encode()).decode()}
    if method == "client_secret_post":
        form.update(client_id=client_id, client_secret=secret)
        return {}
    if method == "client_secret_jwt":
        assertion = client_secret_jwt_sign(jwk.OctKey.import_key(secret), client_id, token_url)
        form.update(client_assertion_type=ASSERTION_TYPE, client_assertion=_text(assertion))
        return {}
    raise AuthError(f"Unknown client authentication method {method!r}")


def private_key(provider: OAuthProvider) -> tuple[Any, str]:
    """The client's private key for ``private_key_jwt`` and the algorithm it signs with
    (RS256, ES256/384/512 by curve, EdDSA).

    Raises:
        AuthError: No key, a public key, or a key that cannot be read or sign.
    """
    data = provider.client_private_key
    if data is None:
        raise AuthError(
            f"Provider {provider.id!r} uses private_key_jwt but has no client_private_key"
        )
    key: Any = None
    if isinstance(data, Mapping):
        try:
            key = jwk.import_key(dict(data))
        except (JoseError, ValueError, TypeError) as exc:
            raise AuthError(
                f"The client_private_key of {provider.id!r} is not a JWK: {exc}"
            ) from exc
    else:
        for kind in (jwk.RSAKey, jwk.ECKey, jwk.OKPKey):
            try:
                key = kind.import_key(data)
                break
            except (JoseError, ValueError, TypeError):
                continue
        if key is None:
            raise AuthError(f"The client_private_key of {provider.id!r} is not a PEM key")
    if not key.is_private:
        raise AuthError(f"The client_private_key of {provider.id!r} is a public key")
    if key.key_type == "RSA":
        return key, "RS256"
    alg = _CURVE_ALGS.get(getattr(key, "curve_name", ""))
    if alg is None:
        raise AuthError(f"The client_private_key of {provider.id!r} cannot sign a client assertion")
    return key, alg


_CURVE_ALGS = {
    "P-256": "ES256",
    "P-384": "ES384",
    "P-521": "ES512",
    "Ed25519": "EdDSA",
    "Ed448": "EdDSA",
}


def _private_key_assertion(
    provider: OAuthProvider, token_url: str, issuer: str | None
) -> dict[str, str]:
    key, alg = private_key(provider)
    audience = [a for a in (issuer, token_url) if a]
    assertion = private_key_jwt_sign(
        key,
        provider.client_id or "",
        token_url,
        alg=alg,
        claims={"aud": audience},
        header={"alg": alg, **({"kid": key.kid} if key.kid else {})},
    )
    return {"client_assertion_type": ASSERTION_TYPE, "client_assertion": _text(assertion)}


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value
