"""Cookie names, attributes, serialisation and session-cookie chunking (reference §3)."""

from __future__ import annotations

import dataclasses
import math
import string
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from authui.cookies import (
    CHECK_MAX_AGE,
    CHUNK_SIZE,
    Cookie,
    CookieAttributes,
    CookieKey,
    CookieOption,
    CookieOverride,
    CookieTable,
    SameSite,
    SessionChunks,
    cookie_table,
    default_cookies,
    deletion,
)
from authui.http import parse_cookie_header

ALL_KEYS: tuple[CookieKey, ...] = (
    "session_token",
    "callback_url",
    "csrf_token",
    "pkce_code_verifier",
    "state",
    "nonce",
    "webauthn_challenge",
    "last_used",
    "federated",
    "logout_state",
    "refresh_error",
    "step_up",
    "known_browser",
    "mfa_pending",
    "mfa_enrolment",
    "trusted_browser",
    "locale",
)

PLAIN_NAMES: dict[CookieKey, str] = {
    "session_token": "authjs.session-token",
    "callback_url": "authjs.callback-url",
    "csrf_token": "authjs.csrf-token",
    "pkce_code_verifier": "authjs.pkce.code_verifier",
    "state": "authjs.state",
    "nonce": "authjs.nonce",
    "webauthn_challenge": "authjs.challenge",
    "last_used": "authui.last-used",
    "federated": "authui.federated",
    "logout_state": "authui.logout-state",
    "refresh_error": "authui.refresh-error",
    "step_up": "authui.step-up",
    "known_browser": "authui.known-browser",
    "mfa_pending": "authui.mfa-pending",
    "mfa_enrolment": "authui.mfa-enrolment",
    "trusted_browser": "authui.trusted-browser",
    "locale": "authui.locale",
}

SECURE_NAMES: dict[CookieKey, str] = {
    "session_token": "__Secure-authjs.session-token",
    "callback_url": "__Secure-authjs.callback-url",
    "csrf_token": "__Host-authjs.csrf-token",
    "pkce_code_verifier": "__Secure-authjs.pkce.code_verifier",
    "state": "__Secure-authjs.state",
    "nonce": "__Secure-authjs.nonce",
    "webauthn_challenge": "__Secure-authjs.challenge",
    "last_used": "__Secure-authui.last-used",
    "federated": "__Secure-authui.federated",
    "logout_state": "__Secure-authui.logout-state",
    "refresh_error": "__Secure-authui.refresh-error",
    "step_up": "__Secure-authui.step-up",
    "known_browser": "__Secure-authui.known-browser",
    "mfa_pending": "__Secure-authui.mfa-pending",
    "mfa_enrolment": "__Secure-authui.mfa-enrolment",
    "trusted_browser": "__Secure-authui.trusted-browser",
    "locale": "__Secure-authui.locale",
}

CHECK_COOKIES_WITH_MAX_AGE = {
    "pkce_code_verifier",
    "state",
    "webauthn_challenge",
    "logout_state",
    "step_up",
    "mfa_pending",
    "mfa_enrolment",
}

SESSION = "authjs.session-token"


def session_option(secure: bool = False) -> CookieOption:
    return default_cookies(secure).session_token


def pattern(length: int) -> str:
    """A value whose every slice is distinguishable from its neighbours."""
    alphabet = string.ascii_letters + string.digits
    return "".join(alphabet[(i * 7 + i // len(alphabet)) % len(alphabet)] for i in range(length))


def apply_to_jar(jar: dict[str, str], cookies: Iterable[Cookie]) -> dict[str, str]:
    """What a browser keeps after receiving ``cookies`` in order (Max-Age=0 deletes)."""
    result = dict(jar)
    for cookie in cookies:
        if cookie.options.max_age == 0:
            result.pop(cookie.name, None)
        else:
            result[cookie.name] = cookie.value
    return result


def through_the_wire(cookies: Iterable[Cookie]) -> dict[str, str]:
    """Serialise cookies, keep the ``name=value`` pairs, send them back as a Cookie header."""
    pairs = [c.serialize().split("; ", 1)[0] for c in cookies if c.options.max_age != 0]
    return parse_cookie_header("; ".join(pairs))


# -- default table --------------------------------------------------------------------------


def test_cookie_table_has_the_seven_auth_js_keys_and_authuis_own() -> None:
    assert tuple(f.name for f in dataclasses.fields(CookieTable)) == ALL_KEYS


@pytest.mark.parametrize(
    ("secure", "names"), [(False, PLAIN_NAMES), (True, SECURE_NAMES)], ids=["plain", "secure"]
)
def test_default_cookie_names(secure: bool, names: dict[CookieKey, str]) -> None:
    table = default_cookies(secure)
    assert {key: table.get(key).name for key in ALL_KEYS} == names
    assert {key: getattr(table, key).name for key in ALL_KEYS} == names


@pytest.mark.parametrize("secure", [False, True], ids=["plain", "secure"])
@pytest.mark.parametrize("key", ALL_KEYS)
def test_default_cookie_attributes(secure: bool, key: CookieKey) -> None:
    options = default_cookies(secure).get(key).options
    expected_max_age = 900 if key in CHECK_COOKIES_WITH_MAX_AGE else None
    if key in ("last_used", "refresh_error", "locale"):
        expected_max_age = 365 * 24 * 60 * 60
    assert options == CookieAttributes(
        http_only=True,
        same_site="lax",
        path="/",
        secure=secure,
        domain=None,
        max_age=expected_max_age,
        expires=None,
    )


def test_check_cookie_lifetime_is_fifteen_minutes() -> None:
    assert CHECK_MAX_AGE == 900
    assert default_cookies(True).state.options.max_age == 15 * 60


def test_chunk_size_is_4096_minus_160() -> None:
    assert CHUNK_SIZE == 3936


# -- cookie_table overrides -----------------------------------------------------------------


def test_cookie_table_without_overrides_is_the_default_table() -> None:
    assert cookie_table(False, {}) == default_cookies(False)
    assert cookie_table(True, {}) == default_cookies(True)


def test_override_of_name_only_keeps_default_attributes() -> None:
    table = cookie_table(True, {"session_token": CookieOverride(name="my-app.session")})
    assert table.session_token.name == "my-app.session"
    assert table.session_token.options == default_cookies(True).session_token.options
    for key in ALL_KEYS:
        if key != "session_token":
            assert table.get(key) == default_cookies(True).get(key)


def test_override_of_attributes_only_keeps_default_name() -> None:
    override = CookieOverride(
        http_only=False,
        same_site="strict",
        path="/app",
        secure=True,
        domain="example.com",
        max_age=60,
    )
    table = cookie_table(False, {"callback_url": override})
    assert table.callback_url.name == "authjs.callback-url"
    assert table.callback_url.options == CookieAttributes(
        http_only=False,
        same_site="strict",
        path="/app",
        secure=True,
        domain="example.com",
        max_age=60,
    )
    assert table.session_token == default_cookies(False).session_token


def test_partial_attribute_override_keeps_the_other_defaults() -> None:
    table = cookie_table(True, {"state": CookieOverride(same_site="none")})
    assert table.state.name == "__Secure-authjs.state"
    assert table.state.options == CookieAttributes(
        http_only=True, same_site="none", path="/", secure=True, max_age=900
    )


def test_override_false_values_are_applied_not_ignored() -> None:
    table = cookie_table(True, {"csrf_token": CookieOverride(http_only=False, secure=False)})
    assert table.csrf_token.options.http_only is False
    assert table.csrf_token.options.secure is False
    assert table.csrf_token.name == "__Host-authjs.csrf-token"


def test_several_overrides_merge_independently() -> None:
    table = cookie_table(
        False,
        {
            "session_token": CookieOverride(name="s", domain="a.example"),
            "nonce": CookieOverride(max_age=30),
        },
    )
    assert table.session_token.name == "s"
    assert table.session_token.options.domain == "a.example"
    assert table.nonce.name == "authjs.nonce"
    assert table.nonce.options.max_age == 30
    assert table.state == default_cookies(False).state


def test_unknown_override_key_is_refused_listing_the_known_keys() -> None:
    with pytest.raises(ValueError, match="sessionToken") as info:
        cookie_table(False, {"sessionToken": CookieOverride(name="x")})
    message = str(info.value)
    for key in ALL_KEYS:
        assert key in message


# -- Cookie.serialize -----------------------------------------------------------------------


def test_serialize_defaults() -> None:
    assert Cookie("n", "v").serialize() == "n=v; Path=/; HttpOnly; SameSite=Lax"


def test_serialize_writes_every_attribute_in_auth_js_order() -> None:
    options = CookieAttributes(
        http_only=True,
        same_site="strict",
        path="/p",
        secure=True,
        domain="example.com",
        max_age=60,
        expires=datetime(2015, 10, 21, 7, 28, 0, tzinfo=UTC),
    )
    assert Cookie("n", "v", options).serialize() == (
        "n=v; Max-Age=60; Domain=example.com; Path=/p; "
        "Expires=Wed, 21 Oct 2015 07:28:00 GMT; HttpOnly; Secure; SameSite=Strict"
    )


@pytest.mark.parametrize(
    ("same_site", "written"), [("lax", "Lax"), ("strict", "Strict"), ("none", "None")]
)
def test_serialize_capitalises_same_site(same_site: SameSite, written: str) -> None:
    options = CookieAttributes(same_site=same_site)
    assert Cookie("n", "v", options).serialize().endswith(f"; SameSite={written}")


def test_serialize_omits_http_only_and_secure_when_off() -> None:
    options = CookieAttributes(http_only=False, secure=False)
    assert Cookie("n", "v", options).serialize() == "n=v; Path=/; SameSite=Lax"


def test_serialize_writes_max_age_zero() -> None:
    assert Cookie("n", "", CookieAttributes(max_age=0)).serialize() == (
        "n=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax"
    )


def test_serialize_expires_pads_the_day_like_to_utc_string() -> None:
    options = CookieAttributes(expires=datetime(2030, 1, 5, 9, 3, 7, tzinfo=UTC))
    assert "; Expires=Sat, 05 Jan 2030 09:03:07 GMT;" in Cookie("n", "v", options).serialize()


def test_serialize_expires_converts_aware_datetimes_to_gmt() -> None:
    paris = timezone(timedelta(hours=2))
    options = CookieAttributes(expires=datetime(2030, 6, 1, 14, 0, tzinfo=paris))
    assert "Expires=Sat, 01 Jun 2030 12:00:00 GMT" in Cookie("n", "v", options).serialize()


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        ("token|hash", "token%7Chash"),
        ("a b", "a%20b"),
        ("a;b", "a%3Bb"),
        ("a,b", "a%2Cb"),
        ('"q"', "%22q%22"),
        ("é", "%C3%A9"),
        ("€", "%E2%82%AC"),
        ("😀", "%F0%9F%98%80"),
        ("=/?:@&+$#%\\", "%3D%2F%3F%3A%40%26%2B%24%23%25%5C"),
        ("%7C|%", "%257C%7C%25"),  # "%" escaped before the escapes that bring one
        ("!~*'()", "!~*'()"),
        ("\x00\t\x7f", "%00%09%7F"),
        ("AZaz09-_.", "AZaz09-_."),
        ("eyJhbGciOiJkaXIifQ..iv.ct.tag", "eyJhbGciOiJkaXIifQ..iv.ct.tag"),
    ],
)
def test_serialize_encodes_values_like_encode_uri_component(value: str, encoded: str) -> None:
    assert Cookie("n", value).serialize() == f"n={encoded}; Path=/; HttpOnly; SameSite=Lax"


@given(st.text())
def test_serialized_value_reads_back_unchanged(value: str) -> None:
    header = Cookie("n", value).serialize().split("; ", 1)[0]
    assert parse_cookie_header(header) == {"n": value}


# -- deletion -------------------------------------------------------------------------------


def test_deletion_is_empty_with_max_age_zero_and_keeps_path_domain_and_flags() -> None:
    options = CookieAttributes(
        secure=True,
        domain="example.com",
        path="/app",
        max_age=900,
        expires=datetime(2030, 1, 1, tzinfo=UTC),
    )
    cookie = deletion("__Secure-authjs.state", options)
    assert cookie.name == "__Secure-authjs.state"
    assert cookie.value == ""
    assert cookie.options.max_age == 0
    assert cookie.options.expires is None
    assert cookie.serialize() == (
        "__Secure-authjs.state=; Max-Age=0; Domain=example.com; Path=/app; "
        "HttpOnly; Secure; SameSite=Lax"
    )


# -- SessionChunks: writing -----------------------------------------------------------------


def test_small_value_is_one_plain_cookie() -> None:
    option = session_option()
    cookies = SessionChunks.from_request(option, {}).write("eyJ.small")
    assert cookies == [Cookie(SESSION, "eyJ.small", option.options)]


def test_value_of_exactly_chunk_size_is_one_plain_cookie() -> None:
    value = pattern(CHUNK_SIZE)
    cookies = SessionChunks.from_request(session_option(), {}).write(value)
    assert [(c.name, c.value) for c in cookies] == [(SESSION, value)]


def test_value_one_over_chunk_size_is_two_chunks_with_exact_slices() -> None:
    value = pattern(CHUNK_SIZE + 1)
    cookies = SessionChunks.from_request(session_option(), {}).write(value)
    assert [(c.name, c.value) for c in cookies] == [
        (f"{SESSION}.0", value[:3936]),
        (f"{SESSION}.1", value[3936:]),
    ]
    assert len(cookies[1].value) == 1


def test_big_value_is_split_into_ceil_chunks_that_reassemble() -> None:
    value = pattern(20_000)
    cookies = SessionChunks.from_request(session_option(), {}).write(value)
    assert len(cookies) == math.ceil(20_000 / 3936) == 6
    assert [c.name for c in cookies] == [f"{SESSION}.{i}" for i in range(6)]
    assert [len(c.value) for c in cookies] == [3936] * 5 + [20_000 - 5 * 3936]
    assert "".join(c.value for c in cookies) == value
    assert SessionChunks.from_request(session_option(), through_the_wire(cookies)).value == value


def test_written_cookies_carry_expires_and_the_options() -> None:
    expires = datetime(2030, 1, 1, tzinfo=UTC)
    option = session_option(secure=True)
    cookies = SessionChunks.from_request(option, {}).write(pattern(5000), expires)
    assert [c.name for c in cookies] == [f"__Secure-{SESSION}.0", f"__Secure-{SESSION}.1"]
    for cookie in cookies:
        assert cookie.options == dataclasses.replace(option.options, expires=expires)
        assert cookie.serialize().endswith(
            "; Path=/; Expires=Tue, 01 Jan 2030 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax"
        )


def test_shrinking_from_four_chunks_to_one_deletes_every_chunk() -> None:
    option = session_option()
    request = {f"{SESSION}.{i}": pattern(3936) for i in range(3)} | {f"{SESSION}.3": "tail"}
    cookies = SessionChunks.from_request(option, request).write("small")
    assert [(c.name, c.value, c.options.max_age) for c in cookies] == [
        (f"{SESSION}.0", "", 0),
        (f"{SESSION}.1", "", 0),
        (f"{SESSION}.2", "", 0),
        (f"{SESSION}.3", "", 0),
        (SESSION, "small", None),
    ]
    assert cookies[0].serialize() == f"{SESSION}.0=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax"
    jar = apply_to_jar(request, cookies)
    assert jar == {SESSION: "small"}


def test_growing_from_plain_to_chunks_deletes_the_plain_cookie() -> None:
    option = session_option()
    value = pattern(8000)
    cookies = SessionChunks.from_request(option, {SESSION: "old"}).write(value)
    assert [(c.name, c.options.max_age) for c in cookies] == [
        (SESSION, 0),
        (f"{SESSION}.0", None),
        (f"{SESSION}.1", None),
        (f"{SESSION}.2", None),
    ]
    assert cookies[0].value == ""
    jar = apply_to_jar({SESSION: "old"}, cookies)
    assert set(jar) == {f"{SESSION}.0", f"{SESSION}.1", f"{SESSION}.2"}
    assert SessionChunks.from_request(option, jar).value == value


def test_fewer_chunks_delete_only_the_surplus() -> None:
    option = session_option()
    request = {f"{SESSION}.{i}": "x" for i in range(3)}
    cookies = SessionChunks.from_request(option, request).write(pattern(5000))
    deleted = [c.name for c in cookies if c.options.max_age == 0]
    written = [c.name for c in cookies if c.options.max_age != 0]
    assert deleted == [f"{SESSION}.2"]
    assert written == [f"{SESSION}.0", f"{SESSION}.1"]


def test_same_chunk_count_deletes_nothing() -> None:
    option = session_option()
    request = {f"{SESSION}.0": "a", f"{SESSION}.1": "b"}
    cookies = SessionChunks.from_request(option, request).write(pattern(6000))
    assert all(c.options.max_age != 0 for c in cookies)
    assert [c.name for c in cookies] == [f"{SESSION}.0", f"{SESSION}.1"]


def test_stale_deletions_do_not_carry_the_new_expiry() -> None:
    option = session_option()
    cookies = SessionChunks.from_request(option, {f"{SESSION}.0": "a"}).write(
        "v", datetime(2030, 1, 1, tzinfo=UTC)
    )
    stale = cookies[0]
    assert (stale.name, stale.value, stale.options.max_age) == (f"{SESSION}.0", "", 0)
    assert stale.options.expires is None
    assert "Expires" not in stale.serialize()


def test_chunks_use_an_overridden_name() -> None:
    option = cookie_table(False, {"session_token": CookieOverride(name="my.sess")}).session_token
    cookies = SessionChunks.from_request(option, {}).write(pattern(4000))
    assert [c.name for c in cookies] == ["my.sess.0", "my.sess.1"]
    assert SessionChunks.from_request(option, {"my.sess.0": "a", "my.sess.1": "b"}).value == "ab"


# -- SessionChunks: clearing ----------------------------------------------------------------


def test_clear_deletes_every_chunk_present() -> None:
    option = session_option(secure=True)
    name = option.name
    request = {f"{name}.0": "a", f"{name}.1": "b", f"{name}.2": "c", "other": "x"}
    cookies = SessionChunks.from_request(option, request).clear()
    assert sorted(c.name for c in cookies) == [f"{name}.0", f"{name}.1", f"{name}.2"]
    for cookie in cookies:
        assert cookie.value == ""
        assert cookie.options.max_age == 0
        assert cookie.serialize() == (
            f"{cookie.name}=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax"
        )


def test_clear_deletes_the_plain_name_when_it_is_present() -> None:
    cookies = SessionChunks.from_request(session_option(), {SESSION: "jwe"}).clear()
    assert [(c.name, c.value, c.options.max_age) for c in cookies] == [(SESSION, "", 0)]


def test_clear_without_any_session_cookie_deletes_the_plain_name() -> None:
    cookies = SessionChunks.from_request(session_option(), {"unrelated": "1"}).clear()
    assert [(c.name, c.value, c.options.max_age) for c in cookies] == [(SESSION, "", 0)]


# -- SessionChunks: reading -----------------------------------------------------------------


def test_no_session_cookie_reads_as_none() -> None:
    assert SessionChunks.from_request(session_option(), {}).value is None
    assert SessionChunks.from_request(session_option(), {"a": "b"}).value is None


def test_plain_cookie_reads_back() -> None:
    assert SessionChunks.from_request(session_option(), {SESSION: "jwe"}).value == "jwe"


def test_unrelated_names_sharing_the_prefix_are_ignored() -> None:
    request = {
        f"{SESSION}-foo": "foo",
        f"{SESSION}.x": "x",
        f"{SESSION}.": "dot",
        f"{SESSION}.0.1": "nested",
        f"{SESSION}.-1": "neg",
        f"x{SESSION}": "prefixed",
        SESSION: "real",
    }
    chunks = SessionChunks.from_request(session_option(), request)
    assert chunks.present == {SESSION: "real"}
    assert chunks.value == "real"


def test_only_unrelated_names_read_as_none() -> None:
    request = {f"{SESSION}-foo": "foo", f"{SESSION}.x": "x"}
    assert SessionChunks.from_request(session_option(), request).value is None


def test_non_ascii_digit_suffix_is_not_a_chunk() -> None:
    request = {SESSION: "real", f"{SESSION}.\u00b2": "junk"}
    assert SessionChunks.from_request(session_option(), request).value == "real"


def test_chunks_reassemble_in_numeric_index_order() -> None:
    values = {i: f"<{i}>" for i in range(12)}
    shuffled = [11, 2, 10, 0, 1, 9, 3, 8, 4, 7, 5, 6]
    request = {f"{SESSION}.{i}": values[i] for i in shuffled}
    value = SessionChunks.from_request(session_option(), request).value
    assert value == "".join(values[i] for i in range(12))


def test_empty_chunk_cookies_are_ignored() -> None:
    request = {f"{SESSION}.0": "a", f"{SESSION}.1": "", f"{SESSION}.2": "c"}
    chunks = SessionChunks.from_request(session_option(), request)
    assert set(chunks.present) == {f"{SESSION}.0", f"{SESSION}.2"}
    assert chunks.value == "ac"


def test_empty_plain_cookie_reads_as_none() -> None:
    assert SessionChunks.from_request(session_option(), {SESSION: ""}).value is None


def test_secure_mode_reads_only_the_prefixed_name() -> None:
    option = session_option(secure=True)
    assert SessionChunks.from_request(option, {SESSION: "plain"}).value is None
    assert SessionChunks.from_request(option, {f"__Secure-{SESSION}": "s"}).value == "s"


# -- properties -----------------------------------------------------------------------------

session_values: st.SearchStrategy[str] = st.one_of(
    st.text(min_size=1),
    st.builds(lambda s, n: s * n, st.text(min_size=1, max_size=40), st.integers(1, 600)),
)
previous_jars: st.SearchStrategy[dict[str, str]] = st.one_of(
    st.just({}),
    st.just({SESSION: "old"}),
    st.integers(1, 7).map(lambda n: {f"{SESSION}.{i}": f"old{i}" for i in range(n)}),
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(value=session_values, jar=previous_jars)
def test_any_value_round_trips_through_the_browser(value: str, jar: dict[str, str]) -> None:
    option = session_option()
    cookies = SessionChunks.from_request(option, jar).write(value)
    written = [c for c in cookies if c.options.max_age != 0]
    assert all(len(c.value) <= CHUNK_SIZE for c in written)
    assert len(written) == max(1, math.ceil(len(value) / CHUNK_SIZE))
    after = apply_to_jar(jar, cookies)
    assert SessionChunks.from_request(option, after).value == value
    assert SessionChunks.from_request(option, through_the_wire(written)).value == value
