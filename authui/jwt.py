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
import contextlib
import json
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from secrets import token_bytes
from typing import Any, Literal

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from joserfc import jwe, jwk
from joserfc.errors import JoseError
from joserfc.jwe import JWERegistry

from authui.cookies import CookieOption, SessionChunks, default_cookies
from authui.errors import MissingSecret
from authui.http import Request

JWT = dict[str, Any]
"""The JWT payload: ``name``, ``email``, ``picture``, ``sub`` plus whatever callbacks add."""

DEFAULT_MAX_AGE = 30 * 24 * 60 * 60
CLOCK_TOLERANCE = 15
ALG = "dir"
ENC = "A256CBC-HS512"
_KEY_LENGTHS = {"A256CBC-HS512": 64, "A256GCM": 32}
_REGISTRY = JWERegistry(algorithms=[ALG, *_KEY_LENGTHS], strict_check_header=False)
_CONTENT_ENCRYPTION = _REGISTRY.get_enc(ENC)

Secret = str | Sequence[str]


class JWTDecodeError(ValueError):
    """The token is malformed, was made with another secret or salt, or has expired."""


class JWTExpired(JWTDecodeError):
    """The token decrypts but its ``exp`` has passed."""


def _secrets(secret: Secret) -> list[str]:
    """One secret or a list of them, as a list (``KeyRing`` refuses an empty one)."""
    return [secret] if isinstance(secret, str) else list(secret)


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


def key_id(secret: str, salt: str, enc: str = ENC) -> str:
    """The ``kid`` of the key for ``enc``: its RFC 7638 thumbprint, hashed with SHA-512 for
    the 64-byte ``A256CBC-HS512`` key and SHA-256 for the 32-byte ``A256GCM`` key."""
    return _thumbprint(derive_key(secret, salt, enc))


def _thumbprint(key: bytes) -> str:
    k = _b64(key)
    digest: Literal["sha256", "sha512"] = "sha512" if len(key) == 64 else "sha256"
    return jwk.thumbprint({"k": k, "kty": "oct"}, digest)


class KeyRing:
    """The keys of one list of secrets (newest first), derived once per salt and
    encryption, and the payloads of the tokens that recently decrypted with them.

    A resolved configuration holds one (``Options.key_ring``): a browser sends the same
    session cookie with every request until it is re-issued (once a day by default), and
    decrypting it again would give the same bytes. A token the ring encodes is kept as
    well, so the request that brings it back (the one after a sign-in or a re-issue) does
    not decrypt what this process just encrypted. A failure is never cached.

    Args:
        secrets: The secrets, newest first.
        cache_size: How many decrypted payloads to keep; 0 keeps none.
    """

    def __init__(self, secrets: Sequence[str], cache_size: int = 0) -> None:
        self.secrets = tuple(secrets)
        self._keys: dict[tuple[str, str, str], _DerivedKey] = {}
        self._headers: dict[tuple[str, str], bool] = {}
        self._kept = _RecentPayloads(cache_size)

    def _payload(self, token: str, salt: str) -> _Payload:
        """The payload of ``token``: kept, or decrypted (and kept)."""
        found = self._kept.get(token, salt)
        if found is None:
            found = self._decrypt(token, salt)
            self._kept.put(token, salt, found)
        return found

    def _key(self, secret: str, salt: str, enc: str) -> _DerivedKey:
        """The key of ``secret`` for ``salt`` and ``enc``."""
        found = self._keys.get((secret, salt, enc))
        if found is None:
            found = _DerivedKey.of(derive_key(secret, salt, enc), enc)
            if len(self._keys) < _KEYS_KEPT:
                self._keys[(secret, salt, enc)] = found
        return found

    def encode(self, token: Mapping[str, Any], salt: str, max_age: int) -> str:
        """Encrypt ``token`` with the newest secret (see ``authui.jwt.encode``).

        The content is encrypted by joserfc's ``A256CBC-HS512`` (its JWE registry's), and
        the compact form is put together here: ``joserfc.jwt.encode`` would serialise the
        same constant header and check the same registry on every call, twice the time of
        the encryption itself, on every sign-in and every re-issue of a session token.
        """
        key = self._key(_newest(self.secrets), salt, ENC)
        now = int(time.time())
        claims = {**token, "iat": now, "exp": now + max_age, "jti": str(uuid.uuid4())}
        text = json.dumps(claims, ensure_ascii=False, separators=(",", ":"))
        iv = token_bytes(_CONTENT_ENCRYPTION.iv_size // 8)
        aad = key.protected.encode()
        ciphertext, tag = _CONTENT_ENCRYPTION.encrypt(text.encode(), key.raw, iv, aad)
        # The compact serialisation: protected header, encrypted key (empty for ``dir``),
        # initialisation vector, ciphertext, authentication tag.
        made = f"{key.protected}..{_b64(iv)}.{_b64(ciphertext)}.{_b64(tag)}"
        if self._kept.size:
            with contextlib.suppress(ValueError):  # kept as its decryption would read it
                self._kept.put(made, salt, _Payload.parse(text))
        return made

    def decode(self, token: str | None, salt: str) -> JWT | None:
        """Decrypt ``token`` and check its times (see ``authui.jwt.decode``).

        Raises:
            JWTDecodeError: The token is malformed, matches no secret, or has expired.
        """
        if not token:
            return None
        _newest(self.secrets)  # MissingSecret before anything is decrypted
        try:
            claims = self._payload(token, salt).claims()
        except JWTDecodeError:
            raise
        except (ValueError, TypeError, JoseError) as exc:
            raise JWTDecodeError("token does not decrypt") from exc
        _check_times(claims)
        return claims

    def is_newest(self, token: str, salt: str) -> bool:
        """Whether ``token`` (one ``decode`` accepted) was made with the newest secret:
        after a rotation, older tokens are re-issued with it. Tokens made with one key
        share their header, so this is worked out once per header."""
        header_segment = token.split(".", 1)[0]
        found = self._headers.get((header_segment, salt))
        if found is None:
            found = self._names_newest_key(header_segment, salt)
            if len(self._headers) < _KEYS_KEPT:
                self._headers[(header_segment, salt)] = found
        return found

    def _names_newest_key(self, header_segment: str, salt: str) -> bool:
        try:
            header = json.loads(base64.urlsafe_b64decode(header_segment + "=="))
        except ValueError:
            return False
        enc = header.get("enc") if isinstance(header, dict) else None
        if enc not in _KEY_LENGTHS:
            return False
        return bool(header.get("kid") == self._key(_newest(self.secrets), salt, enc).kid)

    def _decrypt(self, token: str, salt: str) -> _Payload:
        """The decrypted payload of ``token``; the key is the one its ``kid`` names (the
        newest, for a token without ``kid``).

        Raises:
            JWTDecodeError: The token names an unknown algorithm or key, or its payload
                is not a JSON object (``ValueError``/``JoseError`` for other failures).
        """

        def select_key(guest: jwk.GuestProtocol) -> jwk.OctKey:
            header = guest.headers()
            enc = header.get("enc")
            if header.get("alg") != ALG or enc not in _KEY_LENGTHS:
                raise JWTDecodeError("unsupported token algorithm")
            kid = header.get("kid")
            if kid is None:
                return self._key(self.secrets[0], salt, enc).as_jwk
            for secret in self.secrets:
                key = self._key(secret, salt, enc)
                if key.kid == kid:
                    return key.as_jwk
            raise JWTDecodeError("no matching decryption secret")

        plaintext = jwe.decrypt_compact(token, select_key, registry=_REGISTRY).plaintext
        return _Payload.parse((plaintext or b"").decode("utf-8"))


@dataclass(frozen=True, slots=True)
class _DerivedKey:
    """A key derived from one secret for one salt and encryption: its bytes, as a JWK, its
    ``kid``, and the protected header of the tokens made with it (base64url, as it starts
    them and as their additional authenticated data)."""

    raw: bytes
    as_jwk: jwk.OctKey
    kid: str
    protected: str

    @classmethod
    def of(cls, raw: bytes, enc: str) -> _DerivedKey:
        kid = _thumbprint(raw)
        header = json.dumps({"alg": ALG, "enc": enc, "kid": kid}, separators=(",", ":"))
        protected = _b64(header.encode())
        return cls(raw, jwk.OctKey.import_key(raw), kid, protected)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


_KEYS_KEPT = 64
"""How many derived keys (and header verdicts) a key ring keeps; salts are cookie names,
so a configuration needs a handful."""


def _newest(secrets: Sequence[str]) -> str:
    """The secret tokens are made with.

    Raises:
        MissingSecret: There is none, or one of them is empty.
    """
    if not secrets or not all(secrets):
        raise MissingSecret("A secret is required to encode or decode session tokens")
    return secrets[0]


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
    return KeyRing(_secrets(secret)).encode(token, salt, max_age)


def decode(*, token: str | None, secret: Secret, salt: str) -> JWT | None:
    """Decrypt a JWE made by ``encode`` or by Auth.js; ``None`` for an empty token.

    Both ``A256CBC-HS512`` and ``A256GCM`` are accepted; ``exp`` and ``nbf`` are checked
    with a 15-second clock tolerance, on every call.

    Each call derives the keys anew; a resolved configuration's ``KeyRing`` keeps them,
    and the payloads of recent tokens, for the session check.

    Raises:
        JWTDecodeError: The token is malformed, matches no secret, or has expired.
    """
    if not token:
        return None
    return KeyRing(_secrets(secret)).decode(token, salt)


DECRYPTED_CACHE_SIZE = 2048
"""How many decrypted session tokens a configuration's ``KeyRing`` keeps (a few hundred
bytes each)."""


_SCALARS = (str, int, float, bool)
_NUMBERS = (int, float)


@dataclass(frozen=True, slots=True)
class _Payload:
    """A decrypted payload: its JSON text, and the claims themselves when they are all
    strings, numbers, booleans or null (then a copy of the dict is as good as a new
    parse, and cheaper)."""

    text: str
    flat: JWT | None

    @classmethod
    def parse(cls, text: str) -> _Payload:
        """The payload of a token whose plaintext is ``text``.

        Raises:
            JWTDecodeError: ``text`` is JSON but not an object.
            ValueError: ``text`` is not JSON (``NaN`` and ``Infinity`` included).
        """
        claims = _JSON.decode(text)
        if not isinstance(claims, dict):
            raise JWTDecodeError("the token's payload is not a JSON object")
        flat = all(v is None or isinstance(v, _SCALARS) for v in claims.values())
        return cls(text, claims if flat else None)

    def claims(self) -> JWT:
        """A new dict of the claims, which the caller may change."""
        if self.flat is not None:
            return dict(self.flat)
        claims: JWT = _JSON.decode(self.text)
        return claims


class _RecentPayloads:
    """The payloads of the ``size`` tokens (with their salts) used last; none for 0."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._payloads: dict[tuple[str, str], _Payload] = {}  # least recently used first

    def get(self, token: str, salt: str) -> _Payload | None:
        key = (token, salt)
        found = self._payloads.pop(key, None)  # and put back last: a plain dict's pop and
        if found is not None:  # insert cost less than an OrderedDict's move_to_end
            self._payloads[key] = found
        return found

    def put(self, token: str, salt: str, payload: _Payload) -> None:
        if not self.size:
            return
        self._payloads[(token, salt)] = payload
        if len(self._payloads) > self.size:
            del self._payloads[next(iter(self._payloads))]


def _check_times(claims: JWT) -> None:
    now = int(time.time())
    for name in ("exp", "nbf", "iat"):
        if name in claims and not isinstance(claims[name], _NUMBERS):
            raise JWTDecodeError(f'"{name}" claim must be a number')
    if "exp" in claims and claims["exp"] <= now - CLOCK_TOLERANCE:
        raise JWTExpired('"exp" claim timestamp check failed')
    if "nbf" in claims and claims["nbf"] > now + CLOCK_TOLERANCE:
        raise JWTDecodeError('"nbf" claim timestamp check failed')


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
