"""Auth.js-compatible JWT sessions: encrypted JWTs (JWE, ``dir`` + ``A256CBC-HS512``).

The key is derived from the secret with HKDF-SHA256, using the salt (by default the session
cookie's name) both as HKDF salt and inside the info string, exactly as ``@auth/core/jwt``
does; the header's ``kid`` is the RFC 7638 SHA-512 thumbprint of the derived key. A token
minted by Auth.js decodes here and the reverse, given the same secret and salt.

``encode`` always uses the first secret; ``decode`` picks the secret whose key has the
token's ``kid`` (or only the first, for a token without ``kid``), so a list of secrets
rotates without signing anybody out: put the new secret first.
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from joserfc import jwe, jwk
from joserfc import jwt as jose_jwt
from joserfc.errors import JoseError
from joserfc.jwe import JWERegistry

from authui.cookies import CookieOption, SessionChunks, default_cookies
from authui.errors import JWTSessionError, MissingSecret
from authui.http import Request

JWT = dict[str, Any]
"""The JWT payload: ``name``, ``email``, ``picture``, ``sub`` plus whatever callbacks add."""

DEFAULT_MAX_AGE = 30 * 24 * 60 * 60
CLOCK_TOLERANCE = 15
ALG = "dir"
ENC = "A256CBC-HS512"
_KEY_LENGTHS = {"A256CBC-HS512": 64, "A256GCM": 32}
_REGISTRY = JWERegistry(algorithms=[ALG, *_KEY_LENGTHS], strict_check_header=False)

Secret = str | Sequence[str]


class JWTDecodeError(ValueError):
    """The token is malformed, was made with another secret or salt, or has expired."""


class JWTExpired(JWTDecodeError):
    """The token decrypts but its ``exp`` has passed."""


def _secrets(secret: Secret) -> list[str]:
    keys = [secret] if isinstance(secret, str) else list(secret)
    if not keys or not all(keys):
        raise MissingSecret("A secret is required to encode or decode session tokens")
    return keys


@lru_cache(maxsize=256)
def derive_key(secret: str, salt: str, enc: str = ENC) -> bytes:
    """The encryption key Auth.js derives from ``secret`` and ``salt`` for ``enc``."""
    length = _KEY_LENGTHS[enc]
    hkdf = HKDF(
        algorithm=hashes.SHA256(),
        length=length,
        salt=salt.encode(),
        info=f"Auth.js Generated Encryption Key ({salt})".encode(),
    )
    return hkdf.derive(secret.encode())


@lru_cache(maxsize=256)
def _key(secret: str, salt: str, enc: str) -> jwk.OctKey:
    """The derived key as a JWK, made once per secret, salt and encryption."""
    return jwk.OctKey.import_key(derive_key(secret, salt, enc))


@lru_cache(maxsize=256)
def key_id(secret: str, salt: str, enc: str = ENC) -> str:
    """The ``kid`` of the key for ``enc``: its RFC 7638 thumbprint, hashed with SHA-512 for
    the 64-byte ``A256CBC-HS512`` key and SHA-256 for the 32-byte ``A256GCM`` key."""
    key = derive_key(secret, salt, enc)
    k = base64.urlsafe_b64encode(key).rstrip(b"=").decode()
    digest: Literal["sha256", "sha512"] = "sha512" if len(key) == 64 else "sha256"
    return jwk.thumbprint({"k": k, "kty": "oct"}, digest)


def uses_newest_secret(token: str, secret: Secret, salt: str) -> bool:
    """Whether ``token`` (one ``decode`` accepted) was made with the newest secret: after a
    rotation, older tokens are re-issued with it."""
    return _made_with(token.split(".", 1)[0], _secrets(secret)[0], salt)


@lru_cache(maxsize=256)
def _made_with(header_segment: str, secret: str, salt: str) -> bool:
    """Whether a JWE header names the key of ``secret`` (tokens made with one key share
    their header, so this is worked out once per key)."""
    try:
        header = json.loads(base64.urlsafe_b64decode(header_segment + "=="))
    except ValueError:
        return False
    enc = header.get("enc") if isinstance(header, dict) else None
    if enc not in _KEY_LENGTHS:
        return False
    return bool(header.get("kid") == key_id(secret, salt, enc))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_JSON = json.JSONDecoder(parse_constant=_reject_constant)
"""Refuses ``NaN`` and ``Infinity``, which JavaScript's ``JSON.parse`` rejects too."""


def encode(
    *,
    token: Mapping[str, Any],
    secret: Secret,
    salt: str,
    max_age: int = DEFAULT_MAX_AGE,
) -> str:
    """Encrypt ``token`` into a JWE string, as ``@auth/core/jwt``'s ``encode`` does.

    ``iat`` (now), ``exp`` (now + ``max_age``) and a fresh ``jti`` are set on every call.

    Args:
        token: The claims to store. Must be JSON-serialisable.
        secret: One secret, or a list with the newest first; encoding uses the first.
        salt: The HKDF salt; for session tokens, the session cookie's name.
        max_age: Seconds until the token expires.
    """
    first = _secrets(secret)[0]
    now = int(time.time())
    claims = {**token, "iat": now, "exp": now + max_age, "jti": str(uuid.uuid4())}
    header = {"alg": ALG, "enc": ENC, "kid": key_id(first, salt)}
    return jose_jwt.encode(
        header, claims, _key(first, salt, ENC), registry=_REGISTRY, default_type=None
    )


def decode(*, token: str | None, secret: Secret, salt: str) -> JWT | None:
    """Decrypt a JWE made by ``encode`` or by Auth.js; ``None`` for an empty token.

    Both ``A256CBC-HS512`` and ``A256GCM`` are accepted; ``exp`` and ``nbf`` are checked
    with a 15-second clock tolerance, on every call.

    The payload of the last ``DECRYPTED_CACHE_SIZE`` tokens that decrypted is kept in
    memory: a browser sends the same session cookie with every request until it is
    re-issued (once a day by default), and decrypting it again would give the same bytes.
    A failure is never cached, and each call returns a new dict of claims.

    Raises:
        JWTDecodeError: The token is malformed, matches no secret, or has expired.
    """
    if not token:
        return None
    try:
        claims = _payload(token, tuple(_secrets(secret)), salt).claims()
    except JWTDecodeError:
        raise
    except (ValueError, TypeError, JoseError) as exc:
        raise JWTDecodeError("token does not decrypt") from exc
    _check_times(claims)
    return claims


DECRYPTED_CACHE_SIZE = 2048
"""How many decrypted session tokens ``decode`` keeps (a few hundred bytes each)."""


_SCALARS = (str, int, float, bool)
_NUMBERS = (int, float)


@dataclass(frozen=True, slots=True)
class _Payload:
    """A decrypted payload: its JSON text, and the claims themselves when they are all
    strings, numbers, booleans or null (then a copy of the dict is as good as a new
    parse, and cheaper)."""

    text: str
    flat: JWT | None

    def claims(self) -> JWT:
        """A new dict of the claims, which the caller may change."""
        if self.flat is not None:
            return dict(self.flat)
        claims: JWT = _JSON.decode(self.text)
        return claims


@lru_cache(maxsize=DECRYPTED_CACHE_SIZE)
def _payload(token: str, keys: tuple[str, ...], salt: str) -> _Payload:
    """The decrypted payload of ``token``; the key is the one of ``keys`` its ``kid``
    names (the first, for a token without ``kid``).

    Raises:
        JWTDecodeError: The token names an unknown algorithm or key, or its payload is
            not a JSON object (``ValueError``/``JoseError`` for other failures).
    """

    def select_key(guest: jwk.GuestProtocol) -> jwk.OctKey:
        header = guest.headers()
        enc = header.get("enc")
        if header.get("alg") != ALG or enc not in _KEY_LENGTHS:
            raise JWTDecodeError("unsupported token algorithm")
        kid = header.get("kid")
        if kid is None:
            chosen = keys[0]
        else:
            chosen = next((k for k in keys if key_id(k, salt, enc) == kid), "")
            if not chosen:
                raise JWTDecodeError("no matching decryption secret")
        return _key(chosen, salt, enc)

    plaintext = jwe.decrypt_compact(token, select_key, registry=_REGISTRY).plaintext
    text = (plaintext or b"").decode("utf-8")
    claims = _JSON.decode(text)
    if not isinstance(claims, dict):
        raise JWTDecodeError("the token's payload is not a JSON object")
    flat = all(v is None or isinstance(v, _SCALARS) for v in claims.values())
    return _Payload(text, claims if flat else None)


def _check_times(claims: JWT) -> None:
    now = int(time.time())
    for name in ("exp", "nbf", "iat"):
        if name in claims and not isinstance(claims[name], _NUMBERS):
            raise JWTDecodeError(f'"{name}" claim must be a number')
    if "exp" in claims and claims["exp"] <= now - CLOCK_TOLERANCE:
        raise JWTExpired('"exp" claim timestamp check failed')
    if "nbf" in claims and claims["nbf"] > now + CLOCK_TOLERANCE:
        raise JWTDecodeError('"nbf" claim timestamp check failed')


def session_error(exc: Exception) -> JWTSessionError:
    """Wrap a decode or encode failure for the log."""
    return JWTSessionError(cause={"err": exc})


def get_token(
    request: Request,
    *,
    secret: Secret | None,
    secure_cookie: bool = False,
    cookie_name: str | None = None,
    salt: str | None = None,
    raw: bool = False,
) -> JWT | str | None:
    """Read the session token of a request, like ``getToken`` of ``@auth/core/jwt``.

    The session cookie is reassembled from its chunks; without one, an
    ``Authorization: Bearer <token>`` header is used (percent-decoded). Any decode failure
    gives ``None``. This is how another service (say, an API next to a JavaScript app)
    reads the sessions Auth.js or authui issued.

    Args:
        request: The incoming request.
        secret: The secret(s), newest first. Not needed with ``raw=True``.
        secure_cookie: Read ``__Secure-authjs.session-token`` instead of
            ``authjs.session-token``.
        cookie_name: Read this cookie name instead.
        salt: The HKDF salt; defaults to the cookie name.
        raw: Return the token string undecoded.

    Raises:
        MissingSecret: No secret and not ``raw``.
    """
    name = cookie_name or default_cookies(secure_cookie).session_token.name
    option = CookieOption(name=name)
    token = SessionChunks.from_request(option, request.cookies).value
    if not token:
        token = request.bearer_token
    if not token:
        return None
    if raw:
        return token
    if not secret:
        raise MissingSecret("get_token needs a secret unless raw=True")
    try:
        return decode(token=token, secret=secret, salt=salt or name)
    except JWTDecodeError:
        return None
