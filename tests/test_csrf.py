"""The CSRF double-submit token (reference §4) and authui's secret-rotation extension."""

from __future__ import annotations

import hashlib
import hmac
import re

import pytest

from authui.cookies import Cookie, default_cookies
from authui.csrf import CsrfState, create_csrf_state, token_hash
from authui.http import parse_cookie_header

HEX64 = re.compile(r"^[0-9a-f]{64}$")
TOKEN = "5f0c1d0e6f1a4b2c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e"
KEY = "a-secret-that-is-long-enough-for-tests-0123456789"
NEW = "new-secret-that-is-long-enough-for-tests-000000"
OLD = "old-secret-that-is-long-enough-for-tests-111111"


def cookie_for(token: str, secret: str) -> str:
    return f"{token}|{token_hash(token, secret)}"


def assert_new_token(state: CsrfState, *, old_token: str | None, key: str) -> None:
    """A fresh, unverified token whose cookie is hashed with ``key``."""
    assert HEX64.match(state.token)
    assert state.token != old_token
    assert state.verified is False
    assert state.cookie_value == f"{state.token}|{token_hash(state.token, key)}"


# -- token_hash -----------------------------------------------------------------------------


def test_token_hash_reference_vector() -> None:
    assert token_hash("abc", "secret") == (
        "a42178b773273f5c9f24387fbea546af537d08b8c06b23631e44878b9ce47f49"
    )


def test_token_hash_is_plain_sha256_of_the_concatenation_not_an_hmac() -> None:
    assert token_hash("ab", "csecret") == token_hash("abc", "secret")
    assert token_hash("tök", "s€") == hashlib.sha256("tök".encode() + "s€".encode()).hexdigest()
    assert token_hash("abc", "secret") != hmac.new(b"secret", b"abc", "sha256").hexdigest()


# -- issuing --------------------------------------------------------------------------------


@pytest.mark.parametrize("cookie_value", [None, ""])
def test_no_cookie_issues_a_new_token(cookie_value: str | None) -> None:
    state = create_csrf_state(cookie_value=cookie_value, body_token=None, is_post=False, keys=[KEY])
    assert_new_token(state, old_token=None, key=KEY)


def test_new_tokens_are_random() -> None:
    tokens = {
        create_csrf_state(cookie_value=None, body_token=None, is_post=False, keys=[KEY]).token
        for _ in range(20)
    }
    assert len(tokens) == 20


def test_post_without_cookie_is_not_verified_whatever_the_body_says() -> None:
    state = create_csrf_state(cookie_value=None, body_token=TOKEN, is_post=True, keys=[KEY])
    assert_new_token(state, old_token=TOKEN, key=KEY)


# -- verifying ------------------------------------------------------------------------------


def test_valid_cookie_and_matching_post_body_is_verified() -> None:
    state = create_csrf_state(
        cookie_value=cookie_for(TOKEN, KEY), body_token=TOKEN, is_post=True, keys=[KEY]
    )
    assert state == CsrfState(token=TOKEN, verified=True, cookie_value=None)


def test_get_with_valid_cookie_reuses_the_token_but_is_not_verified() -> None:
    state = create_csrf_state(
        cookie_value=cookie_for(TOKEN, KEY), body_token=TOKEN, is_post=False, keys=[KEY]
    )
    assert state == CsrfState(token=TOKEN, verified=False, cookie_value=None)


@pytest.mark.parametrize(
    "body_token",
    [TOKEN[:-1], TOKEN.upper(), TOKEN + "0", "", f"{TOKEN}|{token_hash(TOKEN, KEY)}"],
    ids=["truncated", "upper", "longer", "empty", "whole-cookie"],
)
def test_post_with_a_different_body_token_is_not_verified(body_token: str) -> None:
    state = create_csrf_state(
        cookie_value=cookie_for(TOKEN, KEY), body_token=body_token, is_post=True, keys=[KEY]
    )
    assert state == CsrfState(token=TOKEN, verified=False, cookie_value=None)


@pytest.mark.parametrize(
    "body_token",
    [None, 123, [TOKEN], {"csrfToken": TOKEN}, TOKEN.encode(), True],
    ids=["none", "int", "list", "dict", "bytes", "bool"],
)
def test_body_token_of_the_wrong_type_is_not_verified(body_token: object) -> None:
    state = create_csrf_state(
        cookie_value=cookie_for(TOKEN, KEY), body_token=body_token, is_post=True, keys=[KEY]
    )
    assert state == CsrfState(token=TOKEN, verified=False, cookie_value=None)


def test_forged_hash_issues_a_new_token() -> None:
    forged = cookie_for(TOKEN, "attacker-guess")
    state = create_csrf_state(cookie_value=forged, body_token=TOKEN, is_post=True, keys=[KEY])
    assert_new_token(state, old_token=TOKEN, key=KEY)


def test_hash_must_match_exactly_including_case() -> None:
    shouting = f"{TOKEN}|{token_hash(TOKEN, KEY).upper()}"
    state = create_csrf_state(cookie_value=shouting, body_token=TOKEN, is_post=True, keys=[KEY])
    assert_new_token(state, old_token=TOKEN, key=KEY)


def test_cookie_of_another_token_does_not_verify_this_body() -> None:
    other = "0" * 64
    state = create_csrf_state(
        cookie_value=cookie_for(other, KEY), body_token=TOKEN, is_post=True, keys=[KEY]
    )
    assert state == CsrfState(token=other, verified=False, cookie_value=None)


# -- rotation -------------------------------------------------------------------------------


@pytest.mark.parametrize("secret", [NEW, OLD, f"{NEW},{OLD}"], ids=["new", "old", "auth-js"])
def test_cookie_hashed_with_any_secret_of_the_rotation_verifies(secret: str) -> None:
    state = create_csrf_state(
        cookie_value=cookie_for(TOKEN, secret), body_token=TOKEN, is_post=True, keys=[NEW, OLD]
    )
    assert state == CsrfState(token=TOKEN, verified=True, cookie_value=None)


@pytest.mark.parametrize(
    "secret",
    [f"{OLD},{NEW}", f"{NEW}{OLD}", f"{NEW}, {OLD}", "retired-secret"],
    ids=["reversed-join", "no-comma", "comma-space", "retired"],
)
def test_cookie_hashed_with_something_else_is_refused(secret: str) -> None:
    state = create_csrf_state(
        cookie_value=cookie_for(TOKEN, secret), body_token=TOKEN, is_post=True, keys=[NEW, OLD]
    )
    assert_new_token(state, old_token=TOKEN, key=NEW)


def test_secret_removed_from_the_rotation_no_longer_verifies() -> None:
    state = create_csrf_state(
        cookie_value=cookie_for(TOKEN, OLD), body_token=TOKEN, is_post=True, keys=[NEW]
    )
    assert_new_token(state, old_token=TOKEN, key=NEW)


def test_new_cookies_are_hashed_with_the_newest_secret_only() -> None:
    state = create_csrf_state(cookie_value=None, body_token=None, is_post=False, keys=[NEW, OLD])
    assert_new_token(state, old_token=None, key=NEW)
    assert state.cookie_value != cookie_for(state.token, f"{NEW},{OLD}")


def test_auth_js_cookie_with_a_single_secret_verifies() -> None:
    state = create_csrf_state(
        cookie_value=cookie_for("abc", "secret"), body_token="abc", is_post=True, keys=["secret"]
    )
    assert state == CsrfState(token="abc", verified=True, cookie_value=None)


def test_a_rotated_in_token_survives_a_second_rotation_step() -> None:
    """A form opened before a rotation still posts successfully after it."""
    issued = create_csrf_state(cookie_value=None, body_token=None, is_post=False, keys=[OLD])
    assert issued.cookie_value is not None
    after = create_csrf_state(
        cookie_value=issued.cookie_value, body_token=issued.token, is_post=True, keys=[NEW, OLD]
    )
    assert after == CsrfState(token=issued.token, verified=True, cookie_value=None)


# -- malformed cookies ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "cookie_value",
    [
        TOKEN,
        "|",
        f"{TOKEN}|",
        f"|{token_hash('', KEY)}",
        f"{TOKEN}|zz",
        f"{TOKEN}|{'g' * 64}",
        f"{TOKEN}|{token_hash(TOKEN, KEY)[:-1]}",
        "||",
        " | ",
    ],
    ids=[
        "no-pipe",
        "only-pipe",
        "empty-hash",
        "empty-token-valid-hash",
        "short-garbage",
        "non-hex",
        "truncated-hash",
        "two-pipes",
        "spaces",
    ],
)
def test_malformed_cookie_issues_a_new_token(cookie_value: str) -> None:
    state = create_csrf_state(cookie_value=cookie_value, body_token=TOKEN, is_post=True, keys=[KEY])
    assert_new_token(state, old_token=TOKEN, key=KEY)


def test_empty_token_with_a_valid_hash_and_empty_body_is_not_verified() -> None:
    state = create_csrf_state(
        cookie_value=f"|{token_hash('', KEY)}", body_token="", is_post=True, keys=[KEY]
    )
    assert_new_token(state, old_token="", key=KEY)


def test_non_ascii_garbage_hash_issues_a_new_token() -> None:
    # What `Cookie: authjs.csrf-token=<token>%7C%C3%A9` decodes to.
    state = create_csrf_state(
        cookie_value=f"{TOKEN}|\u00e9", body_token=TOKEN, is_post=True, keys=[KEY]
    )
    assert_new_token(state, old_token=TOKEN, key=KEY)


# -- constant-time comparison ---------------------------------------------------------------


def test_comparisons_use_hmac_compare_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[object, object]] = []
    real = hmac.compare_digest

    def spy(a: str | bytes, b: str | bytes) -> bool:
        calls.append((a, b))
        return real(a, b)  # type: ignore[arg-type]

    monkeypatch.setattr("authui.csrf.hmac.compare_digest", spy)
    digest = token_hash(TOKEN, KEY)
    state = create_csrf_state(
        cookie_value=f"{TOKEN}|{digest}", body_token=TOKEN, is_post=True, keys=[KEY]
    )
    assert state.verified is True
    compared = [tuple(x.decode() if isinstance(x, bytes) else x for x in pair) for pair in calls]
    assert (digest, digest) in compared
    assert (TOKEN, TOKEN) in compared


# -- on the wire ----------------------------------------------------------------------------


def test_cookie_value_survives_serialisation_and_parsing() -> None:
    option = default_cookies(True).csrf_token
    issued = create_csrf_state(cookie_value=None, body_token=None, is_post=False, keys=[KEY])
    assert issued.cookie_value is not None
    header = Cookie(option.name, issued.cookie_value, option.options).serialize()
    assert header.startswith(f"__Host-authjs.csrf-token={issued.token}%7C")
    assert "; Path=/; " in header
    assert "; Secure; " in header
    assert "Domain" not in header
    sent = parse_cookie_header(header.split("; ", 1)[0])
    state = create_csrf_state(
        cookie_value=sent[option.name], body_token=issued.token, is_post=True, keys=[KEY]
    )
    assert state == CsrfState(token=issued.token, verified=True, cookie_value=None)
