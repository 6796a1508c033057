"""Client authentication at the token endpoint (RFC 6749 §2.3, RFC 7523)."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from authlib.oauth2.rfc7523.assertion import client_secret_jwt_sign, private_key_jwt_sign
from authlib.oauth2.rfc7523.client import ASSERTION_TYPE
from joserfc import jwk

from authui.errors import AuthError
from authui.providers.oauth import OAuthProvider

_PRIVATE_KEY_ALGS = {"RSA": "RS256", "EC": "ES256", "OKP": "EdDSA"}


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


def _private_key_assertion(
    provider: OAuthProvider, token_url: str, issuer: str | None
) -> dict[str, str]:
    key_data = provider.client_private_key
    if key_data is None:
        raise AuthError(
            f"Provider {provider.id!r} uses private_key_jwt but has no client_private_key"
        )
    key: Any = jwk.import_key(dict(key_data) if isinstance(key_data, Mapping) else key_data)
    if not key.is_private:
        raise AuthError(f"The client_private_key of {provider.id!r} is a public key")
    alg = _PRIVATE_KEY_ALGS.get(key.key_type)
    if alg is None:
        raise AuthError(f"Unsupported client_private_key type {key.key_type!r}")
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
