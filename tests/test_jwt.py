"""authui.jwt on its own: key derivation, token format, rotation, expiry, get_token.

The interoperability with the real ``@auth/core`` is in test_jwt_interop.py.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
import uuid
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from joserfc import jwe, jwk
from joserfc.jwe import JWERegistry

from authui import jwt
from authui.cookies import CHUNK_SIZE, CookieOption, SessionChunks
from authui.errors import MissingSecret
from authui.http import Request
from authui.jwt import JWTDecodeError

SALT = "authjs.session-token"
SECURE_SALT = "__Secure-authjs.session-token"
SECRET = "test-secret"
CLAIMS = {"name": "Ada", "email": "ada@example.com", "picture": None, "sub": "1"}

# Computed with the real @auth/core (reference §5.5).
VECTORS = [
    (
        "secret",
        "authjs.session-token",
        "b1ef6cdd915c44c0a71232574a6a70546a5e16d12bb38df4638e3b96bdd32025"
        "131e90695ff072a9d148f1511c7a4981a85b63a628311da1fa7ccfc49c47c2bb",
        "7x9DUMVaEU6giab0l0OWDt4e4SsRH_cbwMof2EzEyy6onK5o8xSPPB799RVoqm2v6z674kQCv9jom2T8S-a1dQ",
    ),
    (
        "secret",
        "__Secure-authjs.session-token",
        "0d8bf2d720367891eda6b7cc8f1960cf3fac4c0e5972e05c0ea71f835d01d69a"
        "60b8d258a71a473d46b0eec5ed3dfe45a7bcfbe54ccfa14f50206f3af0f777f5",
        "7E3YIGAxRtn6djTGy1UjZrFvXELHKzM9vfWl0nQ4b88EsnrmmX0grN0VKis7G3fjgB626TXm_lEtBG1N0E7Xyg",
    ),
    (
        "secret",
        "encodedState",
        "873919037dab91c0520af9b5dbaa5c3642b0ee31f816a0b08fc766b788879243"
        "af6b009a41598809c140510bd5f782dfe391ce3792140318fad4e4cd6b6d99a4",
        "ze1rGMPGVDubcXDnXo8NkdIqeDyuSSG3mI5gRPgxRiRlgDu9MMjrpKw4-pNomgcTqiQZlith1dCysR6uVPfKfg",
    ),
]

BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

_REGISTRY = JWERegistry(algorithms=["dir", "A256CBC-HS512", "A256GCM"])


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def header_of(token: str) -> dict[str, Any]:
    header: dict[str, Any] = json.loads(unb64url(token.split(".")[0]))
    return header


def mint(
    claims: Mapping[str, Any],
    *,
    secret: str = SECRET,
    salt: str = SALT,
    enc: str = "A256CBC-HS512",
    kid: str | None = None,
) -> str:
    """A JWE with exactly these claims (no iat/exp/jti added), made by joserfc directly."""
    header = {"alg": "dir", "enc": enc} | ({"kid": kid} if kid else {})
    key = jwk.OctKey.import_key(jwt.derive_key(secret, salt, enc))
    return jwe.encrypt_compact(header, json.dumps(claims).encode(), key, registry=_REGISTRY)


def round_trip(claims: Mapping[str, Any]) -> dict[str, Any]:
    token = jwt.encode(token=claims, secret=SECRET, salt=SALT)
    decoded = jwt.decode(token=token, secret=SECRET, salt=SALT)
    assert decoded is not None
    return decoded


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """authui.jwt's clock, frozen at ``clock.now`` (set it to move time)."""
    frozen = SimpleNamespace(now=1_700_000_000.0)
    monkeypatch.setattr(jwt, "time", SimpleNamespace(time=lambda: frozen.now))
    return frozen


def get(headers: Mapping[str, str]) -> Request:
    return Request.build("GET", "http://localhost/api", headers=headers)


def chunked_cookie_header(name: str, value: str) -> str:
    cookies = SessionChunks.from_request(CookieOption(name=name), {}).write(value)
    return "; ".join(f"{c.name}={c.value}" for c in cookies)


# --- key derivation ---------------------------------------------------------------------------


@pytest.mark.parametrize(("secret", "salt", "key_hex", "kid"), VECTORS)
def test_key_and_kid_vectors(secret: str, salt: str, key_hex: str, kid: str) -> None:
    key = jwt.derive_key(secret, salt)
    assert len(key) == 64
    assert key.hex() == key_hex
    assert jwt.derive_key(secret, salt, "A256CBC-HS512") == key
    assert jwt.key_id(secret, salt) == kid


@pytest.mark.parametrize(("secret", "salt", "key_hex", "kid"), VECTORS)
def test_a256gcm_key_is_the_first_32_bytes(secret: str, salt: str, key_hex: str, kid: str) -> None:
    key = jwt.derive_key(secret, salt, "A256GCM")
    assert len(key) == 32
    assert key == bytes.fromhex(key_hex)[:32]


def test_kid_is_the_sha512_thumbprint_of_the_key() -> None:
    key = jwt.derive_key(SECRET, SALT)
    canonical = json.dumps({"k": b64url(key), "kty": "oct"}, separators=(",", ":"))
    assert jwt.key_id(SECRET, SALT) == b64url(hashlib.sha512(canonical.encode()).digest())


def test_keys_differ_by_secret_and_salt() -> None:
    keys = {jwt.derive_key(secret, salt) for secret in ("a", "b") for salt in (SALT, SECURE_SALT)}
    assert len(keys) == 4


# --- token format -----------------------------------------------------------------------------


def test_header_and_segments() -> None:
    token = jwt.encode(token=CLAIMS, secret=SECRET, salt=SALT)
    segments = token.split(".")
    assert len(segments) == 5
    _, encrypted_key, iv, ciphertext, tag = segments
    assert header_of(token) == {
        "alg": "dir",
        "enc": "A256CBC-HS512",
        "kid": jwt.key_id(SECRET, SALT),
    }
    assert encrypted_key == ""
    assert len(unb64url(iv)) == 16
    assert len(unb64url(tag)) == 32
    assert ciphertext


def test_round_trip() -> None:
    decoded = round_trip(CLAIMS)
    assert {k: decoded[k] for k in CLAIMS} == CLAIMS
    assert set(decoded) == {*CLAIMS, "iat", "exp", "jti"}


def test_round_trip_unicode_and_nested() -> None:
    claims = {"name": "Zoë 山田 🦄", "roles": ["a", {"b": [1, 2.5, None, True]}], "n": 0}
    token = jwt.encode(token=claims, secret="sëcret ✓", salt=SECURE_SALT)
    decoded = jwt.decode(token=token, secret="sëcret ✓", salt=SECURE_SALT)
    assert decoded is not None
    assert {k: decoded[k] for k in claims} == claims


def test_iat_exp_jti_are_set() -> None:
    before = int(time.time())
    token = jwt.encode(token=CLAIMS, secret=SECRET, salt=SALT, max_age=3600)
    after = int(time.time())
    decoded = jwt.decode(token=token, secret=SECRET, salt=SALT)
    assert decoded is not None
    assert before <= decoded["iat"] <= after
    assert isinstance(decoded["iat"], int)
    assert decoded["exp"] == decoded["iat"] + 3600
    assert uuid.UUID(decoded["jti"]).version == 4
    assert str(uuid.UUID(decoded["jti"])) == decoded["jti"]


def test_default_max_age_is_30_days(clock: SimpleNamespace) -> None:
    decoded = round_trip({})
    assert decoded["iat"] == 1_700_000_000
    assert decoded["exp"] == 1_700_000_000 + 2_592_000


def test_iat_exp_jti_are_overwritten_and_jti_is_fresh() -> None:
    stale = {"sub": "1", "iat": 1, "exp": 2, "jti": "old"}
    first, second = round_trip(stale), round_trip(stale)
    assert first["iat"] > 1
    assert first["jti"] != "old"
    assert first["jti"] != second["jti"]


def test_input_mapping_is_not_modified() -> None:
    claims = {"sub": "1"}
    jwt.encode(token=claims, secret=SECRET, salt=SALT)
    assert claims == {"sub": "1"}


# --- secrets and rotation ---------------------------------------------------------------------


def test_encode_uses_the_first_secret() -> None:
    token = jwt.encode(token=CLAIMS, secret=["new", "old"], salt=SALT)
    assert header_of(token)["kid"] == jwt.key_id("new", SALT)
    assert jwt.decode(token=token, secret="new", salt=SALT) is not None
    with pytest.raises(JWTDecodeError, match="no matching decryption secret"):
        jwt.decode(token=token, secret="old", salt=SALT)


@pytest.mark.parametrize(
    "secrets",
    [["s", "x", "y"], ["x", "s", "y"], ["x", "y", "s"], ("x", "s"), ["s"], "s"],
    ids=["first", "middle", "last", "tuple", "single-list", "string"],
)
def test_decode_finds_the_secret_in_any_position(secrets: str | list[str]) -> None:
    token = jwt.encode(token=CLAIMS, secret="s", salt=SALT)
    decoded = jwt.decode(token=token, secret=secrets, salt=SALT)
    assert decoded is not None
    assert decoded["sub"] == "1"


def test_no_matching_secret() -> None:
    token = jwt.encode(token=CLAIMS, secret="s", salt=SALT)
    with pytest.raises(JWTDecodeError, match="no matching decryption secret"):
        jwt.decode(token=token, secret=["x", "y"], salt=SALT)


def test_token_without_kid_uses_only_the_first_secret() -> None:
    claims = {"sub": "1", "exp": int(time.time()) + 60}
    token = mint(claims, secret="s")
    assert jwt.decode(token=token, secret=["s", "x"], salt=SALT) == claims
    with pytest.raises(JWTDecodeError):
        jwt.decode(token=token, secret=["x", "s"], salt=SALT)


@pytest.mark.parametrize("salt", [SECURE_SALT, "__Secure-authjs.session-token-invalid", ""])
def test_wrong_salt_fails(salt: str) -> None:
    token = jwt.encode(token=CLAIMS, secret=SECRET, salt=SALT)
    with pytest.raises(JWTDecodeError):
        jwt.decode(token=token, secret=SECRET, salt=salt)


@pytest.mark.parametrize("secret", ["", [], [""], ["a", ""]])
def test_missing_secret(secret: str | list[str]) -> None:
    with pytest.raises(MissingSecret):
        jwt.encode(token=CLAIMS, secret=secret, salt=SALT)
    with pytest.raises(MissingSecret):
        jwt.decode(token="a.b.c.d.e", secret=secret, salt=SALT)


@pytest.mark.parametrize("token", [None, ""])
def test_empty_token_decodes_to_none(token: str | None) -> None:
    assert jwt.decode(token=token, secret=SECRET, salt=SALT) is None


def test_a256gcm_token_without_kid_decodes() -> None:
    claims = {"sub": "gcm", "exp": int(time.time()) + 60}
    token = mint(claims, enc="A256GCM")
    assert header_of(token)["enc"] == "A256GCM"
    assert jwt.decode(token=token, secret=SECRET, salt=SALT) == claims


# --- expiry -----------------------------------------------------------------------------------


def test_expired_token_fails() -> None:
    token = jwt.encode(token=CLAIMS, secret=SECRET, salt=SALT, max_age=-60)
    with pytest.raises(JWTDecodeError, match='"exp" claim timestamp check failed'):
        jwt.decode(token=token, secret=SECRET, salt=SALT)


def test_token_expired_within_the_clock_tolerance_decodes() -> None:
    # exp = now - 5 is still inside the 15 s tolerance (and stays so for 10 s).
    token = jwt.encode(token=CLAIMS, secret=SECRET, salt=SALT, max_age=-5)
    assert jwt.decode(token=token, secret=SECRET, salt=SALT) is not None


def test_expiry_boundary_is_exp_plus_15_seconds(clock: SimpleNamespace) -> None:
    token = jwt.encode(token=CLAIMS, secret=SECRET, salt=SALT, max_age=100)
    exp = 1_700_000_000 + 100
    clock.now = exp + 14.9
    assert jwt.decode(token=token, secret=SECRET, salt=SALT) is not None
    clock.now = exp + 15
    with pytest.raises(JWTDecodeError, match='"exp"'):
        jwt.decode(token=token, secret=SECRET, salt=SALT)


def test_a_token_decoded_before_still_expires(clock: SimpleNamespace) -> None:
    # The second decode finds the plaintext kept by the first; the times are checked anew.
    token = jwt.encode(token=CLAIMS, secret=SECRET, salt=SALT, max_age=100)
    assert jwt.decode(token=token, secret=SECRET, salt=SALT) is not None
    clock.now += 100 + 15
    with pytest.raises(JWTDecodeError, match='"exp"'):
        jwt.decode(token=token, secret=SECRET, salt=SALT)


def test_each_decode_returns_its_own_claims() -> None:
    token = jwt.encode(token={**CLAIMS, "roles": ["admin"]}, secret=SECRET, salt=SALT)
    first = jwt.decode(token=token, secret=SECRET, salt=SALT)
    assert first is not None
    first["roles"].append("owner")
    first["name"] = "Mallory"
    again = jwt.decode(token=token, secret=SECRET, salt=SALT)
    assert again is not None
    assert (again["name"], again["roles"]) == ("Ada", ["admin"])


def test_flat_claims_changed_by_one_caller_are_not_seen_by_the_next() -> None:
    # Every claim a string, number, boolean or null: the kept claims are copied, not parsed.
    token = jwt.encode(token={**CLAIMS, "admin": False, "picture": None}, secret=SECRET, salt=SALT)
    first = jwt.decode(token=token, secret=SECRET, salt=SALT)
    assert first is not None
    first["admin"] = True
    del first["email"]
    first["extra"] = 1
    again = jwt.decode(token=token, secret=SECRET, salt=SALT)
    assert again is not None
    assert (again["admin"], again["email"], "extra" in again) == (False, CLAIMS["email"], False)


def test_a_token_decoded_before_fails_once_its_secret_is_dropped() -> None:
    token = jwt.encode(token=CLAIMS, secret="old-secret", salt=SALT)
    assert jwt.decode(token=token, secret=["new-secret", "old-secret"], salt=SALT) is not None
    with pytest.raises(JWTDecodeError, match="no matching decryption secret"):
        jwt.decode(token=token, secret=["new-secret"], salt=SALT)
    with pytest.raises(JWTDecodeError):
        jwt.decode(token=token, secret="old-secret", salt="another-cookie")


def test_minted_expired_token_fails() -> None:
    token = mint({"sub": "1", "exp": int(time.time()) - 30}, kid=jwt.key_id(SECRET, SALT))
    with pytest.raises(JWTDecodeError, match='"exp"'):
        jwt.decode(token=token, secret=SECRET, salt=SALT)


def test_not_before_is_checked_with_tolerance(clock: SimpleNamespace) -> None:
    nbf = 1_700_000_000
    token = mint({"sub": "1", "nbf": nbf}, kid=jwt.key_id(SECRET, SALT))
    clock.now = nbf - 15
    assert jwt.decode(token=token, secret=SECRET, salt=SALT) == {"sub": "1", "nbf": nbf}
    clock.now = nbf - 16
    with pytest.raises(JWTDecodeError, match='"nbf"'):
        jwt.decode(token=token, secret=SECRET, salt=SALT)


def test_iat_is_not_bounded() -> None:
    claims = {"sub": "1", "iat": 1, "exp": int(time.time()) + 60}
    token = mint(claims, kid=jwt.key_id(SECRET, SALT))
    assert jwt.decode(token=token, secret=SECRET, salt=SALT) == claims


@pytest.mark.parametrize("claim", ["exp", "nbf", "iat"])
def test_time_claims_must_be_numbers(claim: str) -> None:
    token = mint({claim: "soon"}, kid=jwt.key_id(SECRET, SALT))
    with pytest.raises(JWTDecodeError, match=claim):
        jwt.decode(token=token, secret=SECRET, salt=SALT)


# --- tampering and garbage --------------------------------------------------------------------


def _flip(segment: str, index: int) -> str:
    """``segment`` with one base64url character changed so that the bytes change."""
    chars = list(segment)
    chars[index] = "A" if chars[index] != "A" else "B"
    return "".join(chars)


@pytest.mark.parametrize(
    ("part", "index"),
    [(0, 5), (2, 0), (3, 0), (3, 10), (3, -2), (4, 0), (4, 20)],
    ids=["header", "iv", "ciphertext", "ciphertext-middle", "ciphertext-end", "tag", "tag-middle"],
)
def test_tampered_token_fails(part: int, index: int) -> None:
    segments = jwt.encode(token=CLAIMS, secret=SECRET, salt=SALT).split(".")
    segments[part] = _flip(segments[part], index)
    with pytest.raises(JWTDecodeError):
        jwt.decode(token=".".join(segments), secret=SECRET, salt=SALT)


def test_truncated_and_extended_tokens_fail() -> None:
    token = jwt.encode(token=CLAIMS, secret=SECRET, salt=SALT)
    for bad in (token[:-1], token[:-4], token + "A", token + ".", token.rsplit(".", 1)[0]):
        with pytest.raises(JWTDecodeError):
            jwt.decode(token=bad, secret=SECRET, salt=SALT)


def _header(value: object) -> str:
    return b64url(json.dumps(value).encode())


def _garbage() -> list[str]:
    good = jwt.encode(token=CLAIMS, secret=SECRET, salt=SALT).split(".")
    body = ".." + ".".join(good[2:])
    kid = jwt.key_id(SECRET, SALT)
    return [
        "x",
        "a.b",
        "a.b.c.d.e",
        "....",
        ".....",
        "a.b.c.d.e.f",
        "é.é.é.é.é",
        "\ud800",
        "\x00" * 10,
        " " + ".".join(good),
        "!!!!" + body,
        _header([]) + "....",
        _header("dir") + "....",
        _header(None) + "....",
        _header(1) + "....",
        _header({"alg": "dir"}) + body,
        _header({"enc": "A256CBC-HS512"}) + body,
        _header({"alg": "dir", "enc": "A128GCM"}) + body,
        _header({"alg": "A256KW", "enc": "A256CBC-HS512", "kid": kid}) + body,
        _header({"alg": "none", "enc": "A256CBC-HS512"}) + body,
        _header({"alg": "dir", "enc": "A256CBC-HS512", "kid": ["x"]}) + body,
        _header({"alg": "dir", "enc": "A256CBC-HS512", "kid": 5}) + body,
        _header({"alg": "dir", "enc": "A256CBC-HS512", "kid": kid, "crit": ["x"]}) + body,
        _header({"alg": "dir", "enc": "A256CBC-HS512", "kid": kid, "zip": "DEF"}) + body,
        good[0] + ".AAAA." + ".".join(good[2:]),
        good[0] + "..." + ".".join(good[3:]),
        good[0] + ".." + good[2] + ".." + good[4],
        good[0] + ".." + good[2] + "." + good[3] + ".",
        good[0] + "..AA." + ".".join(good[3:]),
        good[0] + "..*." + ".".join(good[3:]),
        mint([], kid=kid),  # type: ignore[arg-type]
        mint("s", kid=kid),  # type: ignore[arg-type]
        mint(None, kid=kid),  # type: ignore[arg-type]
        mint(1, kid=kid),  # type: ignore[arg-type]
    ]


@pytest.mark.parametrize("token", _garbage())
def test_garbage_raises_jwt_decode_error(token: str) -> None:
    with pytest.raises(JWTDecodeError):
        jwt.decode(token=token, secret=SECRET, salt=SALT)


def test_undecodable_plaintext_raises_jwt_decode_error() -> None:
    key = jwk.OctKey.import_key(jwt.derive_key(SECRET, SALT))
    header = {"alg": "dir", "enc": "A256CBC-HS512", "kid": jwt.key_id(SECRET, SALT)}
    for plaintext in (b"not json", b"\xff\xfe", b"", b"{"):
        token = jwe.encrypt_compact(header, plaintext, key, registry=_REGISTRY)
        with pytest.raises(JWTDecodeError):
            jwt.decode(token=token, secret=SECRET, salt=SALT)


@given(st.text(min_size=1))
def test_any_text_raises_jwt_decode_error(text: str) -> None:
    with pytest.raises(JWTDecodeError):
        jwt.decode(token=text, secret=SECRET, salt=SALT)


@given(st.lists(st.text(alphabet=BASE64URL), min_size=5, max_size=5))
def test_any_five_segments_raise_jwt_decode_error(segments: list[str]) -> None:
    with pytest.raises(JWTDecodeError):
        jwt.decode(token=".".join(segments), secret=SECRET, salt=SALT)


# --- get_token --------------------------------------------------------------------------------


def test_get_token_from_cookie() -> None:
    token = jwt.encode(token=CLAIMS, secret=SECRET, salt=SALT)
    found = jwt.get_token(get({"cookie": f"other=1; {SALT}={token}"}), secret=SECRET)
    assert isinstance(found, dict)
    assert found["email"] == "ada@example.com"


def test_get_token_from_chunked_cookies() -> None:
    claims = {"sub": "1", "blob": "x" * (3 * CHUNK_SIZE)}
    token = jwt.encode(token=claims, secret=SECRET, salt=SALT)
    header = chunked_cookie_header(SALT, token)
    assert f"{SALT}.2=" in header
    assert f"{SALT}=" not in header
    found = jwt.get_token(get({"cookie": header}), secret=SECRET)
    assert isinstance(found, dict)
    assert found["blob"] == claims["blob"]


def test_get_token_from_chunked_cookies_in_any_order() -> None:
    claims = {"sub": "1", "blob": "y" * (3 * CHUNK_SIZE)}
    token = jwt.encode(token=claims, secret=SECRET, salt=SALT)
    parts = chunked_cookie_header(SALT, token).split("; ")
    found = jwt.get_token(get({"cookie": "; ".join(reversed(parts))}), secret=SECRET)
    assert isinstance(found, dict)
    assert found["blob"] == claims["blob"]


def test_get_token_from_secure_cookie() -> None:
    token = jwt.encode(token=CLAIMS, secret=SECRET, salt=SECURE_SALT)
    request = get({"cookie": f"{SECURE_SALT}={token}"})
    found = jwt.get_token(request, secret=SECRET, secure_cookie=True)
    assert isinstance(found, dict)
    assert found["sub"] == "1"
    assert jwt.get_token(request, secret=SECRET) is None


def test_get_token_secure_name_needs_the_secure_salt() -> None:
    token = jwt.encode(token=CLAIMS, secret=SECRET, salt=SALT)
    request = get({"cookie": f"{SECURE_SALT}={token}"})
    assert jwt.get_token(request, secret=SECRET, secure_cookie=True) is None


def test_get_token_custom_cookie_name_and_salt() -> None:
    token = jwt.encode(token=CLAIMS, secret=SECRET, salt="custom-salt")
    request = get({"cookie": f"my-session={token}"})
    assert jwt.get_token(request, secret=SECRET, cookie_name="my-session") is None
    found = jwt.get_token(request, secret=SECRET, cookie_name="my-session", salt="custom-salt")
    assert isinstance(found, dict)
    assert found["sub"] == "1"


def test_get_token_rotated_secrets() -> None:
    token = jwt.encode(token=CLAIMS, secret="old", salt=SALT)
    found = jwt.get_token(get({"cookie": f"{SALT}={token}"}), secret=["new", "old"])
    assert isinstance(found, dict)


def test_get_token_from_bearer_header() -> None:
    token = jwt.encode(token=CLAIMS, secret=SECRET, salt=SALT)
    encoded = "".join(f"%{ord(c):02X}" if c == "." else c for c in token)
    found = jwt.get_token(get({"authorization": f"Bearer {encoded}"}), secret=SECRET)
    assert isinstance(found, dict)
    assert found["sub"] == "1"


def test_cookie_wins_over_bearer() -> None:
    from_cookie = jwt.encode(token={"sub": "cookie"}, secret=SECRET, salt=SALT)
    from_header = jwt.encode(token={"sub": "header"}, secret=SECRET, salt=SALT)
    request = get({"cookie": f"{SALT}={from_cookie}", "authorization": f"Bearer {from_header}"})
    found = jwt.get_token(request, secret=SECRET)
    assert isinstance(found, dict)
    assert found["sub"] == "cookie"


@pytest.mark.parametrize("value", ["%", "%A", "%ZZ", "abc%", "%C3%28", "%E0%A4%A"])
def test_malformed_bearer_gives_none(value: str) -> None:
    request = get({"authorization": f"Bearer {value}"})
    assert jwt.get_token(request, secret=SECRET) is None
    assert jwt.get_token(request, secret=SECRET, raw=True) is None


@pytest.mark.parametrize("header", ["Basic abc", "Bearer", "Bearer ", "Token abc"])
def test_no_bearer_token_gives_none(header: str) -> None:
    assert jwt.get_token(get({"authorization": header}), secret=SECRET) is None


def test_invalid_tokens_give_none() -> None:
    foreign = jwt.encode(token=CLAIMS, secret="foreign", salt=SALT)
    expired = jwt.encode(token=CLAIMS, secret=SECRET, salt=SALT, max_age=-60)
    for token in (foreign, expired, "garbage"):
        assert jwt.get_token(get({"cookie": f"{SALT}={token}"}), secret=SECRET) is None
        assert jwt.get_token(get({"authorization": f"Bearer {token}"}), secret=SECRET) is None


def test_get_token_without_any_token_gives_none() -> None:
    assert jwt.get_token(get({}), secret=SECRET) is None
    assert jwt.get_token(get({"cookie": f"{SALT}="}), secret=SECRET) is None


def test_get_token_raw() -> None:
    token = jwt.encode(token=CLAIMS, secret=SECRET, salt=SALT)
    assert jwt.get_token(get({"cookie": f"{SALT}={token}"}), secret=None, raw=True) == token
    assert jwt.get_token(get({"authorization": f"Bearer {token}"}), secret=None, raw=True) == token
    big = "z" * (2 * CHUNK_SIZE + 7)
    request = get({"cookie": chunked_cookie_header(SALT, big)})
    assert jwt.get_token(request, secret=None, raw=True) == big


def test_get_token_without_secret_raises() -> None:
    token = jwt.encode(token=CLAIMS, secret=SECRET, salt=SALT)
    with pytest.raises(MissingSecret):
        jwt.get_token(get({"cookie": f"{SALT}={token}"}), secret=None)
    with pytest.raises(MissingSecret):
        jwt.get_token(get({"authorization": f"Bearer {token}"}), secret="")


# --- A configuration's key ring: what it keeps -------------------------------------------------


@pytest.fixture
def decryptions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The tokens decrypted (by joserfc) from here on."""
    seen: list[str] = []
    decrypt = jwe.decrypt_compact

    def counting(value: str, *args: Any, **kwargs: Any) -> Any:
        seen.append(value)
        return decrypt(value, *args, **kwargs)

    monkeypatch.setattr(jwe, "decrypt_compact", counting)
    return seen


def test_a_token_the_ring_made_comes_back_without_decrypting_it(decryptions: list[str]) -> None:
    ring = jwt.KeyRing([SECRET], cache_size=8)
    token = ring.encode({"sub": "1", "name": "Ada", "roles": ["admin"]}, SALT, 60)

    first = ring.decode(token, SALT)
    assert first == jwt.KeyRing([SECRET]).decode(token, SALT)  # what decrypting it gives
    assert decryptions == [token]  # the fresh ring's, not the maker's
    assert first is not None
    first["roles"].append("changed")  # a caller's changes stay the caller's
    assert ring.decode(token, SALT) == {**first, "roles": ["admin"]}


def test_a_kept_token_still_expires(clock: SimpleNamespace) -> None:
    ring = jwt.KeyRing([SECRET], cache_size=8)
    token = ring.encode({"sub": "1"}, SALT, 60)
    assert ring.decode(token, SALT) is not None
    clock.now += 60 + jwt.CLOCK_TOLERANCE
    with pytest.raises(jwt.JWTExpired):
        ring.decode(token, SALT)


def test_a_token_made_for_one_salt_is_refused_under_another() -> None:
    ring = jwt.KeyRing([SECRET], cache_size=8)
    token = ring.encode({"sub": "1"}, SALT, 60)
    with pytest.raises(JWTDecodeError):
        ring.decode(token, "__Secure-" + SALT)


def test_a_claim_no_decoder_accepts_is_refused_by_the_ring_that_made_it() -> None:
    ring = jwt.KeyRing([SECRET], cache_size=8)
    token = ring.encode({"sub": "1", "score": float("nan")}, SALT, 60)
    with pytest.raises(JWTDecodeError):
        jwt.KeyRing([SECRET]).decode(token, SALT)
    with pytest.raises(JWTDecodeError):
        ring.decode(token, SALT)


def test_the_ring_keeps_only_the_most_recent_tokens(decryptions: list[str]) -> None:
    ring = jwt.KeyRing([SECRET], cache_size=2)
    first, second, third = (ring.encode({"sub": str(n)}, SALT, 60) for n in range(3))
    assert [ring.decode(t, SALT)["sub"] for t in (third, second)] == ["2", "1"]  # type: ignore[index]
    assert decryptions == []
    assert ring.decode(first, SALT) == jwt.decode(token=first, secret=SECRET, salt=SALT)
    assert decryptions == [first, first]  # dropped: decrypted again (and by jwt.decode)
