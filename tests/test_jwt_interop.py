"""authui.jwt against the real ``@auth/core`` from npm: session tokens travel both ways.

Nothing here is recorded output. The ``exchange`` fixture mints authui's tokens, then asks
``@auth/core`` (one node process for the whole module, see tests/peers/authjs_node.py) to
encode, decode, read (``getToken``) and chunk; each test checks one part of the answers.
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import pytest
from joserfc import jwe, jwk
from joserfc.jwe import JWERegistry

from authui import jwt
from authui.cookies import CHUNK_SIZE, CookieOption, SessionChunks
from authui.http import Request
from authui.jwt import JWTDecodeError
from tests.peers import authjs_node
from tests.peers.authjs_node import AuthJS, Operation, Result

authjs = authjs_node.authjs  # the peer: fails under CI, skips elsewhere, without node

SALT = "authjs.session-token"
SECURE_SALT = "__Secure-authjs.session-token"
SALTS = (SALT, SECURE_SALT)
SECRET = "interop-secret"
UNICODE_SECRET = "sëcret ✓ 🔑"
MAX_AGE = 3600

PAYLOADS: dict[str, dict[str, Any]] = {
    "ascii": {
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "picture": "https://example.com/ada.png",
        "sub": "42",
    },
    "unicode": {
        "name": "Zoë Ångström 山田太郎 👩🏽‍💻🦄",
        "email": "zoë@exämple.org",
        "sub": "ü-1",
        "escapes": 'quote " backslash \\ slash / nul \u0000 tab \t line-sep \u2028 é',
    },
    "nested": {
        "sub": "7",
        "user": {"roles": ["admin", "editor"], "profile": {"tags": [], "address": {}}},
        "matrix": [[1, 2], [3, [4, {"x": None, "123": "numeric key", "a": []}]]],
    },
    "scalars": {
        "sub": "8",
        "int": 123,
        "negative": -7,
        "zero": 0,
        "float": 3.25,
        "tiny": 1e-7,
        "huge": 1.5e300,
        "max_safe": 2**53 - 1,
        "true": True,
        "false": False,
        "null": None,
        "empty": "",
    },
    "two-step": {  # a session after a password and a code: authui's claims are just claims
        "sub": "10",
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "auth_time": 1795780000,
        "amr": ["pwd", "otp", "mfa"],
        "sv": 2,
    },
    "large": {
        "sub": "9",
        "name": "Large Payload",
        "groups": [f"group-{i:04d}-ünïcødé-✓" for i in range(500)],
        "matrix": [[i * j for j in range(20)] for i in range(20)],
    },
}

_REGISTRY = JWERegistry(algorithms=["dir", "A256CBC-HS512", "A256GCM"])
_PYTHON_ONLY = ("iat", "exp", "jti")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def header_of(token: str) -> dict[str, Any]:
    segment = token.split(".")[0]
    header: dict[str, Any] = json.loads(
        base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
    )
    return header


def without_times(claims: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in claims.items() if k not in _PYTHON_ONLY}


def gcm_kid(secret: str, salt: str) -> str:
    """The kid @auth/core's decode expects of an A256GCM token: the SHA-256 thumbprint."""
    key = jwt.derive_key(secret, salt, "A256GCM")
    return jwk.thumbprint({"k": b64url(key), "kty": "oct"}, "sha256")


def mint(
    claims: Mapping[str, Any],
    *,
    secret: str = SECRET,
    salt: str = SALT,
    enc: str = "A256CBC-HS512",
    kid: str | None = None,
) -> str:
    """A JWE with exactly these claims and header, made with joserfc directly."""
    header = {"alg": "dir", "enc": enc} | ({"kid": kid} if kid else {})
    key = jwk.OctKey.import_key(jwt.derive_key(secret, salt, enc))
    return jwe.encrypt_compact(header, json.dumps(claims).encode(), key, registry=_REGISTRY)


def chunk_cookies(
    name: str, value: str, present: Mapping[str, str] | None = None
) -> list[tuple[str, str]]:
    """The (name, value) cookies authui writes for a session value."""
    chunks = SessionChunks(CookieOption(name=name), dict(present or {}))
    return [(c.name, c.value) for c in chunks.write(value)]


def cookie_header(cookies: Sequence[tuple[str, str]]) -> str:
    return "; ".join(f"{name}={value}" for name, value in cookies)


def final_jar(cookies: Sequence[tuple[str, str]]) -> dict[str, str]:
    """What a browser keeps of a Set-Cookie list: later ones win, empty ones are deletions."""
    jar: dict[str, str] = {}
    for name, value in cookies:
        jar[name] = value
    return jar


def get(headers: Mapping[str, str]) -> Request:
    return Request.build("GET", "http://localhost/", headers=headers)


# --- the exchange -----------------------------------------------------------------------------


@dataclass(frozen=True)
class GetTokenCase:
    headers: dict[str, str]
    secret: str | list[str] | None = SECRET
    secure_cookie: bool = False
    cookie_name: str | None = None
    salt: str | None = None
    raw: bool = False
    expect: Literal["payload", "raw", "none"] = "payload"
    raw_value: str = ""
    """With ``expect="raw"``: the token string both should return."""

    def operation(self) -> Operation:
        op: dict[str, Any] = {
            "op": "getToken",
            "headers": self.headers,
            "secret": self.secret,
            "secureCookie": self.secure_cookie,
            "raw": self.raw,
        }
        if self.cookie_name is not None:
            op["cookieName"] = self.cookie_name
        if self.salt is not None:
            op["salt"] = self.salt
        return op

    def in_authui(self) -> object:
        return jwt.get_token(
            get(self.headers),
            secret=self.secret,
            secure_cookie=self.secure_cookie,
            cookie_name=self.cookie_name,
            salt=self.salt,
            raw=self.raw,
        )


@dataclass(frozen=True)
class Exchange:
    python: dict[str, str]
    """Tokens authui minted (or joserfc, for the A256GCM and clock cases), by name."""
    node: dict[str, Result]
    """@auth/core's answers, by operation name."""
    get_token: dict[str, GetTokenCase]
    """The getToken cases, by name; node's answer is ``node[f"getToken/{name}"]``."""

    def jwe(self, name: str) -> str:
        result = self.node[name]
        assert "jwe" in result, result
        jwe_: str = result["jwe"]
        return jwe_

    def payload(self, name: str) -> dict[str, Any]:
        result = self.node[name]
        assert "payload" in result, result
        payload: dict[str, Any] = result["payload"]
        return payload

    def error(self, name: str) -> str:
        result = self.node[name]
        assert "error" in result, result
        error: str = result["error"]
        return error


def _gcm_tokens(now: int) -> dict[str, str]:
    claims = {"sub": "gcm", "exp": now + 600}
    return {
        "gcm/no-kid": mint(claims, enc="A256GCM"),
        "gcm/kid": mint(claims, enc="A256GCM", kid=gcm_kid(SECRET, SALT)),
        "gcm/kid-old": mint(claims, secret="old", enc="A256GCM", kid=gcm_kid("old", SALT)),
        "gcm/sha512-kid": mint(claims, enc="A256GCM", kid=jwt.key_id(SECRET, SALT)),
    }


def _clock_tokens(now: int) -> dict[str, str]:
    kid = jwt.key_id(SECRET, SALT)
    return {
        "clock/exp-5s-ago": mint({"sub": "c", "exp": now - 5}, kid=kid),
        "clock/exp-30s-ago": mint({"sub": "c", "exp": now - 30}, kid=kid),
        "clock/nbf-in-5s": mint({"sub": "c", "nbf": now + 5}, kid=kid),
        "clock/nbf-in-60s": mint({"sub": "c", "nbf": now + 60}, kid=kid),
        "clock/iat-long-ago": mint({"sub": "c", "iat": 1, "exp": now + 600}, kid=kid),
    }


def _get_token_cases(python: Mapping[str, str]) -> dict[str, GetTokenCase]:
    small, small_secure = python[f"ascii/{SALT}"], python[f"ascii/{SECURE_SALT}"]
    large, large_secure = python[f"large/{SALT}"], python[f"large/{SECURE_SALT}"]
    chunks = chunk_cookies(SALT, large)
    secure_chunks = chunk_cookies(SECURE_SALT, large_secure)
    dotted = small.replace(".", "%2E")
    counting = "".join(f"<{i:05d}>" for i in range(10 * CHUNK_SIZE // 7 + 1))
    eleven = chunk_cookies(SALT, counting)
    return {
        "cookie": GetTokenCase({"cookie": f"{SALT}={small}"}),
        "secure-cookie": GetTokenCase(
            {"cookie": f"{SECURE_SALT}={small_secure}"}, secure_cookie=True
        ),
        "secure-cookie-read-as-plain": GetTokenCase(
            {"cookie": f"{SECURE_SALT}={small_secure}"}, expect="none"
        ),
        "plain-name-secure-salt": GetTokenCase({"cookie": f"{SALT}={small_secure}"}, expect="none"),
        "chunked": GetTokenCase({"cookie": cookie_header(chunks)}),
        "chunked-secure": GetTokenCase(
            {"cookie": cookie_header(secure_chunks)}, secure_cookie=True
        ),
        "chunked-reversed": GetTokenCase({"cookie": cookie_header(chunks[::-1])}),
        "chunked-among-others": GetTokenCase(
            {"cookie": cookie_header([("a", "1"), *chunks[:1], ("b", "2"), *chunks[1:]])}
        ),
        "chunked-raw": GetTokenCase(
            {"cookie": cookie_header(chunks)}, secret=None, raw=True, expect="raw", raw_value=large
        ),
        "eleven-chunks-raw": GetTokenCase(
            {"cookie": cookie_header(eleven[::-1])},
            secret=None,
            raw=True,
            expect="raw",
            raw_value=counting,
        ),
        "bearer": GetTokenCase({"authorization": f"Bearer {small}"}),
        "bearer-percent-encoded": GetTokenCase({"authorization": f"Bearer {dotted}"}),
        "bearer-percent-encoded-raw": GetTokenCase(
            {"authorization": f"Bearer {dotted}"},
            secret=None,
            raw=True,
            expect="raw",
            raw_value=small,
        ),
        "bearer-%": GetTokenCase({"authorization": "Bearer %"}, expect="none"),
        "bearer-%A": GetTokenCase({"authorization": "Bearer %A"}, expect="none"),
        "bearer-%ZZ": GetTokenCase({"authorization": "Bearer %ZZ"}, expect="none"),
        "bearer-bad-utf8": GetTokenCase({"authorization": "Bearer %C3%28"}, expect="none"),
        "cookie-over-bearer": GetTokenCase(
            {"cookie": f"{SALT}={small}", "authorization": f"Bearer {large}"}
        ),
        "foreign-secret": GetTokenCase(
            {"cookie": f"{SALT}={small}"}, secret="foreign", expect="none"
        ),
        "rotated-secrets": GetTokenCase(
            {"cookie": f"{SALT}={python['rotated']}"}, secret=["other", "new"]
        ),
        "custom-name-and-salt": GetTokenCase(
            {"cookie": f"my.session={python['custom-salt']}"},
            cookie_name="my.session",
            salt="custom-salt",
        ),
        "custom-name-default-salt": GetTokenCase(
            {"cookie": f"my.session={python['custom-salt']}"},
            cookie_name="my.session",
            expect="none",
        ),
        "nothing": GetTokenCase({"cookie": "a=1"}, expect="none"),
    }


def _chunk_cases(python: Mapping[str, str]) -> dict[str, tuple[str, str, dict[str, str]]]:
    large = python[f"large/{SALT}"]
    four = {f"{SALT}.{i}": "x" for i in range(4)}
    return {
        "large": (SALT, large, {}),
        "large-secure": (SECURE_SALT, python[f"large/{SECURE_SALT}"], {}),
        "large-over-plain": (SALT, large, {SALT: "old"}),
        "small-over-four-chunks": (SALT, "small", four),
        "large-over-four-chunks": (SALT, large, four),
        "exactly-one-chunk": (SALT, "v" * CHUNK_SIZE, {}),
        "one-over": (SALT, "w" * (CHUNK_SIZE + 1), {}),
    }


@pytest.fixture(scope="module")
def exchange(authjs: AuthJS) -> Exchange:
    now = int(time.time())
    python: dict[str, str] = {}
    ops: dict[str, Operation] = {}

    for pid, payload in PAYLOADS.items():
        for salt in SALTS:
            python[f"{pid}/{salt}"] = jwt.encode(
                token=payload, secret=SECRET, salt=salt, max_age=MAX_AGE
            )
            ops[f"encode/{pid}/{salt}"] = {
                "op": "encode",
                "token": payload,
                "secret": SECRET,
                "salt": salt,
                "maxAge": MAX_AGE,
            }
            ops[f"decode/{pid}/{salt}"] = {
                "op": "decode",
                "jwe": python[f"{pid}/{salt}"],
                "secret": SECRET,
                "salt": salt,
            }

    # Rotation, foreign secrets, salts, a secret beyond ASCII.
    claims = PAYLOADS["ascii"]
    python["rotated"] = jwt.encode(token=claims, secret=["new", "old"], salt=SALT)
    python["custom-salt"] = jwt.encode(token=claims, secret=SECRET, salt="custom-salt")
    python["unicode-secret"] = jwt.encode(token=claims, secret=UNICODE_SECRET, salt=SALT)
    encodes: dict[str, tuple[str | list[str], str]] = {
        "rotated": (["new", "old"], SALT),
        "foreign": ("foreign", SALT),
        "unicode-secret": (UNICODE_SECRET, SALT),
    }
    for name, (secret, salt) in encodes.items():
        ops[f"encode/{name}"] = {"op": "encode", "token": claims, "secret": secret, "salt": salt}
    decodes: dict[str, tuple[str, str | list[str], str]] = {
        "rotated/old-new": ("rotated", ["old", "new"], SALT),
        "rotated/other-new": ("rotated", ["other", "new"], SALT),
        "rotated/old": ("rotated", ["old"], SALT),
        "rotated/other-old": ("rotated", ["other", "old"], SALT),
        "foreign": (f"ascii/{SALT}", "foreign", SALT),
        "salt/plain-as-secure": (f"ascii/{SALT}", SECRET, SECURE_SALT),
        "salt/secure-as-plain": (f"ascii/{SECURE_SALT}", SECRET, SALT),
        "salt/invalid": (f"ascii/{SECURE_SALT}", SECRET, f"{SECURE_SALT}-invalid"),
        "unicode-secret": ("unicode-secret", UNICODE_SECRET, SALT),
    }

    python |= _gcm_tokens(now) | _clock_tokens(now)
    decodes |= {
        "gcm/no-kid": ("gcm/no-kid", SECRET, SALT),
        "gcm/kid": ("gcm/kid", SECRET, SALT),
        "gcm/kid-old": ("gcm/kid-old", ["new", "old"], SALT),
        "gcm/sha512-kid": ("gcm/sha512-kid", SECRET, SALT),
    }
    decodes |= {name: (name, SECRET, SALT) for name in python if name.startswith("clock/")}
    for name, (token, secret, salt) in decodes.items():
        ops[f"decode/{name}"] = {
            "op": "decode",
            "jwe": python[token],
            "secret": secret,
            "salt": salt,
        }

    cases = _get_token_cases(python)
    ops |= {f"getToken/{name}": case.operation() for name, case in cases.items()}
    for name, (cookie, value, present) in _chunk_cases(python).items():
        ops[f"chunk/{name}"] = {"op": "chunk", "name": cookie, "value": value, "cookies": present}

    return Exchange(python=python, node=authjs.named(ops), get_token=cases)


CASES = [pytest.param(pid, salt, id=f"{pid}-{salt}") for pid in PAYLOADS for salt in SALTS]


def case_names(build: Callable[[Mapping[str, str]], Mapping[str, object]]) -> list[str]:
    """The names of the cases ``build`` makes (run on placeholder tokens, at collection)."""
    return list(build(defaultdict(lambda: "a.b.c.d.e")))


# --- payloads, both ways ----------------------------------------------------------------------


@pytest.mark.parametrize(("pid", "salt"), CASES)
def test_authjs_token_decodes_in_authui(exchange: Exchange, pid: str, salt: str) -> None:
    token = exchange.jwe(f"encode/{pid}/{salt}")
    decoded = jwt.decode(token=token, secret=SECRET, salt=salt)
    assert decoded is not None
    assert without_times(decoded) == PAYLOADS[pid]
    assert decoded["exp"] == decoded["iat"] + MAX_AGE
    assert uuid.UUID(decoded["jti"]).version == 4


@pytest.mark.parametrize(("pid", "salt"), CASES)
def test_authui_token_decodes_in_authjs(exchange: Exchange, pid: str, salt: str) -> None:
    token = exchange.python[f"{pid}/{salt}"]
    payload = exchange.payload(f"decode/{pid}/{salt}")
    assert payload == jwt.decode(token=token, secret=SECRET, salt=salt)
    assert without_times(payload) == PAYLOADS[pid]


@pytest.mark.parametrize("salt", SALTS)
def test_headers_and_kid_are_the_same(exchange: Exchange, salt: str) -> None:
    node = header_of(exchange.jwe(f"encode/ascii/{salt}"))
    python = header_of(exchange.python[f"ascii/{salt}"])
    assert node == python == {"alg": "dir", "enc": "A256CBC-HS512", "kid": jwt.key_id(SECRET, salt)}


def test_token_shapes_are_the_same(exchange: Exchange) -> None:
    for pid in PAYLOADS:
        node = exchange.jwe(f"encode/{pid}/{SALT}").split(".")
        python = exchange.python[f"{pid}/{SALT}"].split(".")
        assert [len(s) for s in node[:3]] == [len(s) for s in python[:3]]
        assert node[1] == python[1] == ""
        assert len(node[4]) == len(python[4]) == 43


def test_large_payload_needs_several_chunks(exchange: Exchange) -> None:
    for token in (exchange.jwe(f"encode/large/{SALT}"), exchange.python[f"large/{SALT}"]):
        assert len(token) > 2 * CHUNK_SIZE


def test_unicode_secret(exchange: Exchange) -> None:
    decoded = jwt.decode(
        token=exchange.jwe("encode/unicode-secret"), secret=UNICODE_SECRET, salt=SALT
    )
    assert decoded is not None
    assert without_times(decoded) == PAYLOADS["ascii"]
    assert without_times(exchange.payload("decode/unicode-secret")) == PAYLOADS["ascii"]


# --- rotation, foreign secrets, salts ---------------------------------------------------------


@pytest.mark.parametrize("secrets", [["new", "old"], ["other", "new"], ["old", "other", "new"]])
def test_authjs_rotated_token_decodes_in_authui(exchange: Exchange, secrets: list[str]) -> None:
    token = exchange.jwe("encode/rotated")
    assert header_of(token)["kid"] == jwt.key_id("new", SALT)
    decoded = jwt.decode(token=token, secret=secrets, salt=SALT)
    assert decoded is not None
    assert without_times(decoded) == PAYLOADS["ascii"]


def test_authjs_rotated_token_needs_the_first_secret(exchange: Exchange) -> None:
    with pytest.raises(JWTDecodeError, match="no matching decryption secret"):
        jwt.decode(token=exchange.jwe("encode/rotated"), secret=["old", "other"], salt=SALT)


@pytest.mark.parametrize("secrets", ["old-new", "other-new"])
def test_authui_rotated_token_decodes_in_authjs(exchange: Exchange, secrets: str) -> None:
    assert header_of(exchange.python["rotated"])["kid"] == jwt.key_id("new", SALT)
    payload = exchange.payload(f"decode/rotated/{secrets}")
    assert payload == jwt.decode(token=exchange.python["rotated"], secret="new", salt=SALT)


@pytest.mark.parametrize("secrets", ["old", "other-old"])
def test_authui_rotated_token_needs_the_first_secret_in_authjs(
    exchange: Exchange, secrets: str
) -> None:
    assert exchange.error(f"decode/rotated/{secrets}") == "no matching decryption secret"


def test_foreign_secret_is_rejected_both_ways(exchange: Exchange) -> None:
    assert exchange.error("decode/foreign") == "no matching decryption secret"
    with pytest.raises(JWTDecodeError, match="no matching decryption secret"):
        jwt.decode(token=exchange.jwe("encode/foreign"), secret=[SECRET, "other"], salt=SALT)


@pytest.mark.parametrize("name", ["salt/plain-as-secure", "salt/secure-as-plain", "salt/invalid"])
def test_salt_mismatch_is_rejected_by_authjs(exchange: Exchange, name: str) -> None:
    assert exchange.error(f"decode/{name}") == "no matching decryption secret"


@pytest.mark.parametrize(
    ("minted", "read"),
    [(SALT, SECURE_SALT), (SECURE_SALT, SALT), (SECURE_SALT, f"{SECURE_SALT}-invalid")],
)
def test_salt_mismatch_is_rejected_by_authui(exchange: Exchange, minted: str, read: str) -> None:
    with pytest.raises(JWTDecodeError):
        jwt.decode(token=exchange.jwe(f"encode/ascii/{minted}"), secret=SECRET, salt=read)


# --- A256GCM (only decoded by Auth.js; minted here with joserfc) ------------------------------


@pytest.mark.parametrize("name", ["gcm/no-kid", "gcm/kid", "gcm/kid-old"])
def test_a256gcm_token_decodes_in_authjs(exchange: Exchange, name: str) -> None:
    assert header_of(exchange.python[name])["enc"] == "A256GCM"
    assert without_times(exchange.payload(f"decode/{name}")) == {"sub": "gcm"}


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        pytest.param("gcm/no-kid", [SECRET, "other"], id="no-kid"),
        pytest.param("gcm/kid", SECRET, id="kid"),
        pytest.param("gcm/kid-old", ["new", "old"], id="kid-rotated"),
    ],
)
def test_a256gcm_token_decodes_in_authui(
    exchange: Exchange, name: str, secret: str | list[str]
) -> None:
    decoded = jwt.decode(token=exchange.python[name], secret=secret, salt=SALT)
    assert decoded is not None
    assert without_times(decoded) == {"sub": "gcm"}


def test_a256gcm_token_with_sha512_kid_is_rejected_by_authjs(exchange: Exchange) -> None:
    assert exchange.error("decode/gcm/sha512-kid") == "no matching decryption secret"


def test_a256gcm_token_with_sha512_kid_is_rejected_by_authui(exchange: Exchange) -> None:
    try:
        decoded = jwt.decode(token=exchange.python["gcm/sha512-kid"], secret=SECRET, salt=SALT)
    except JWTDecodeError:
        decoded = None
    assert decoded is None


# --- clock tolerance --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "accepted"),
    [
        ("clock/exp-5s-ago", True),
        ("clock/exp-30s-ago", False),
        ("clock/nbf-in-5s", True),
        ("clock/nbf-in-60s", False),
        ("clock/iat-long-ago", True),
    ],
)
def test_clock_checks_agree(exchange: Exchange, name: str, accepted: bool) -> None:
    node = exchange.node[f"decode/{name}"]
    try:
        python: object = jwt.decode(token=exchange.python[name], secret=SECRET, salt=SALT)
    except JWTDecodeError as exc:
        python = exc
    if accepted:
        assert node == {"payload": python}
    else:
        assert isinstance(python, JWTDecodeError)
        assert "error" in node
        assert str(python) == node["error"]


# --- getToken and chunked cookies -------------------------------------------------------------


@pytest.mark.parametrize("name", case_names(_get_token_cases))
def test_get_token_agrees(exchange: Exchange, name: str) -> None:
    case = exchange.get_token[name]
    node = exchange.node[f"getToken/{name}"]
    assert "token" in node, node
    python = case.in_authui()
    assert python == node["token"]
    if case.expect == "none":
        assert python is None
    elif case.expect == "raw":
        assert python == case.raw_value
    else:
        assert isinstance(python, dict)
        assert python["sub"]


@pytest.mark.parametrize("salt", SALTS)
def test_authjs_large_token_read_from_authui_chunks(exchange: Exchange, salt: str) -> None:
    token = exchange.jwe(f"encode/large/{salt}")
    cookies = chunk_cookies(salt, token)
    assert len(cookies) >= 3
    request = get({"cookie": cookie_header(cookies)})
    found = jwt.get_token(request, secret=SECRET, secure_cookie=salt == SECURE_SALT)
    assert isinstance(found, dict)
    assert without_times(found) == PAYLOADS["large"]


@pytest.mark.parametrize(("name", "salt"), [("large", SALT), ("large-secure", SECURE_SALT)])
def test_authjs_chunks_read_by_authui(exchange: Exchange, name: str, salt: str) -> None:
    cookies = [(c["name"], c["value"]) for c in exchange.node[f"chunk/{name}"]["cookies"]]
    assert len(cookies) >= 3
    request = get({"cookie": cookie_header(cookies)})
    found = jwt.get_token(request, secret=SECRET, secure_cookie=salt == SECURE_SALT)
    assert isinstance(found, dict)
    assert found == jwt.decode(token=exchange.python[f"large/{salt}"], secret=SECRET, salt=salt)


@pytest.mark.parametrize("name", case_names(_chunk_cases))
def test_chunk_writing_agrees(exchange: Exchange, name: str) -> None:
    cookie, value, present = _chunk_cases(exchange.python)[name]
    node = [(c["name"], c["value"]) for c in exchange.node[f"chunk/{name}"]["cookies"]]
    python = chunk_cookies(cookie, value, present)
    assert sorted(python) == sorted(node)
    assert final_jar(python) == final_jar(node)
    assert "".join(v for _, v in sorted(final_jar(python).items()) if v) == value
