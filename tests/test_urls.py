"""Actions, origins, redirect targets and action URLs (reference §2.1, §2.5, §13.2)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest

from authui import AuthConfig
from authui.errors import AuthError
from authui.http import Headers
from authui.logger import WarningCode
from authui.urls import (
    ACTIONS_WITH_PROVIDER,
    AUTH_ACTIONS,
    create_action_url,
    default_redirect,
    is_auth_action,
    is_valid_callback_url,
    origin_of,
    safe_url,
)

BASE = "https://app.example.com"

ACTIONS = [
    "account",
    "backchannel-logout",
    "callback",
    "csrf",
    "error",
    "mfa",
    "new-user",
    "passkeys",
    "password",
    "providers",
    "session",
    "signin",
    "signout",
    "verify-request",
    "webauthn-options",
]


class RecordingLogger:
    """A logger that remembers what it was told."""

    def __init__(self) -> None:
        self.warnings: list[str] = []
        self.errors: list[AuthError] = []
        self.debugs: list[str] = []

    def error(self, error: AuthError) -> None:
        self.errors.append(error)

    def warn(self, code: WarningCode) -> None:
        self.warnings.append(code)

    def debug(self, message: str, metadata: Any = None) -> None:
        self.debugs.append(message)


def origin_and_host(url: str) -> tuple[str, str | None]:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}", parts.hostname


# -- actions --------------------------------------------------------------------------------


@pytest.mark.parametrize("action", ACTIONS)
def test_every_auth_js_action_is_an_action(action: str) -> None:
    assert is_auth_action(action) is True


@pytest.mark.parametrize(
    "action",
    [
        "",
        "SIGNIN",
        "Session",
        "signin/",
        "/signin",
        " session",
        "verify_request",
        "webauthn_options",
        "authorize",
        "token",
        "unknown",
    ],
)
def test_other_strings_are_not_actions(action: str) -> None:
    assert is_auth_action(action) is False


def test_action_sets() -> None:
    """The Auth.js actions plus authui's own: the ``new-user`` and ``passkeys`` pages, the
    account center (``account/<page>``), the password pages (``password/<page>``), the
    second step of a sign-in (``mfa``) and the provider's ``backchannel-logout``
    notice."""
    assert set(ACTIONS) == AUTH_ACTIONS
    assert {
        "signin",
        "callback",
        "webauthn-options",
        "signout",
        "backchannel-logout",
        "account",
        "password",
        "mfa",
    } == ACTIONS_WITH_PROVIDER


# -- origin_of ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("https://example.com/path?q=1#f", "https://example.com"),
        ("https://example.com", "https://example.com"),
        ("https://example.com:443/x", "https://example.com"),
        ("http://example.com:80/x", "http://example.com"),
        ("http://example.com:443/", "http://example.com:443"),
        ("https://example.com:80/", "https://example.com:80"),
        ("https://example.com:8443/x", "https://example.com:8443"),
        ("http://localhost:3000/auth", "http://localhost:3000"),
        ("https://[::1]:8443/x", "https://[::1]:8443"),
        ("http://[2001:DB8::1]/", "http://[2001:db8::1]"),
        ("https://[::1]:443/", "https://[::1]"),
        ("HTTPS://Example.COM/Path", "https://example.com"),
        ("https://user:pw@example.com/", "https://example.com"),
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000"),
    ],
)
def test_origin_of(url: str, origin: str) -> None:
    assert origin_of(url) == origin


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.com/",
        "javascript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "mailto:ada@example.com",
        "file:///etc/passwd",
        "/relative/path",
        "//example.com/x",
        "example.com",
        "",
        "https://",
        "https:///path",
        "https:example.com",
        "https://example.com:99999/",
        "https://example.com:abc/",
        "http://[::1",
        "::::",
    ],
)
def test_origin_of_refuses_what_is_not_an_absolute_http_url(url: str) -> None:
    with pytest.raises(ValueError):  # noqa: PT011
        origin_of(url)


# -- is_valid_callback_url ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("/", True),
        ("/dashboard?tab=1", True),
        ("https://app.example.com/x", True),
        ("http://localhost:3000", True),
        ("https://elsewhere.example.org/", True),
        ("ftp://example.com", False),
        ("javascript:alert(1)", False),
        ("data:text/html,x", False),
        ("dashboard", False),
        ("", False),
        ("https://example.com:99999", False),
    ],
)
def test_is_valid_callback_url(value: str, valid: bool) -> None:
    assert is_valid_callback_url(value) is valid


# -- default_redirect -----------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/dashboard", "/a/b?c=1&d=2#frag"])
def test_relative_path_is_joined_to_the_base_url(path: str) -> None:
    assert default_redirect(url=path, base_url=BASE) == BASE + path


@pytest.mark.parametrize(
    "url",
    [
        "https://app.example.com",
        "https://app.example.com/",
        "https://app.example.com/account?x=1#y",
        "https://app.example.com:443/ok",
        "HTTPS://APP.EXAMPLE.COM/upper",
    ],
)
def test_same_origin_url_is_kept(url: str) -> None:
    assert default_redirect(url=url, base_url=BASE) == url


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.com",
        "https://evil.com/https://app.example.com",
        "http://app.example.com/",
        "https://app.example.com:8443/",
        "https://sub.app.example.com/",
        "https://app.example.co/",
    ],
)
def test_foreign_origin_goes_to_the_base_url(url: str) -> None:
    assert default_redirect(url=url, base_url=BASE) == BASE


@pytest.mark.parametrize(
    "url",
    [
        "//evil.com",
        "//evil.com/path",
        "/\\evil.com",
        "/\\/evil.com",
        "\\\\evil.com",
        "https://app.example.com.evil.com",
        "https://app.example.com@evil.com",
        "https://app.example.com:@evil.com",
        "https://app.example.com%2F@evil.com",
        "https://evil.com#@app.example.com",
        "https://evil.com?@app.example.com",
        "https:evil.com",
        "https:/evil.com",
        " https://evil.com",
        "\thttps://evil.com",
        "javascript:alert(document.cookie)",
        "JaVaScRiPt:alert(1)",
        "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
        "vbscript:msgbox(1)",
        "evil.com",
        "",
        "::::",
        "https://[::1",
        "https://app.example.com:99999/",
    ],
)
def test_attacks_never_leave_the_site(url: str) -> None:
    result = default_redirect(url=url, base_url=BASE)
    assert result == BASE or result.startswith(BASE + "/")
    assert origin_and_host(result) == (BASE, "app.example.com")


def test_protocol_relative_path_stays_on_the_site() -> None:
    result = default_redirect(url="//evil.com", base_url=BASE)
    assert result == "https://app.example.com//evil.com"
    assert urlsplit(result).hostname == "app.example.com"
    assert urlsplit(result).path == "//evil.com"


@pytest.mark.parametrize(
    "url", ["https://evil.com\\@app.example.com/x", "https://evil.com\\@app.example.com"]
)
def test_backslash_before_userinfo_does_not_escape(url: str) -> None:
    result = default_redirect(url=url, base_url=BASE)
    assert result == BASE or result.startswith(BASE + "/")


def test_base_url_with_a_port_is_honoured() -> None:
    base = "http://localhost:3000"
    assert default_redirect(url="/x", base_url=base) == "http://localhost:3000/x"
    assert default_redirect(url="http://localhost:3000/y", base_url=base) == (
        "http://localhost:3000/y"
    )
    assert default_redirect(url="http://localhost:3001/y", base_url=base) == base
    assert default_redirect(url="http://localhost/y", base_url=base) == base


def test_default_redirect_accepts_extra_keyword_arguments() -> None:
    assert default_redirect(url="/x", base_url=BASE, extra="ignored") == BASE + "/x"


# -- create_action_url ----------------------------------------------------------------------


def test_action_url_from_host_header_and_base_path() -> None:
    url = create_action_url(
        "callback",
        None,
        Headers({"host": "example.com"}),
        {},
        AuthConfig(base_path="/basepath"),
    )
    assert url == "https://example.com/basepath/callback"


def test_x_forwarded_host_overrides_host_from_a_trusted_proxy() -> None:
    headers = Headers({"host": "example.com", "x-forwarded-host": "example.org"})
    config = AuthConfig(base_path="/basepath", trusted_proxies=1)
    url = create_action_url("callback", None, headers, {}, config)
    assert url == "https://example.org/basepath/callback"


@pytest.mark.parametrize("trust_host", [False, None, True])
def test_forwarded_headers_are_ignored_without_trusted_proxies(trust_host: bool | None) -> None:
    headers = Headers(
        {"host": "example.com", "x-forwarded-host": "evil.com", "x-forwarded-proto": "http"}
    )
    config = AuthConfig(base_path="/basepath", trust_host=trust_host)
    url = create_action_url("callback", None, headers, {}, config)
    assert url == "https://example.com/basepath/callback"


def test_x_forwarded_proto_is_used_from_a_trusted_proxy() -> None:
    headers = Headers({"Host": "example.com", "X-Forwarded-Proto": "http"})
    config = AuthConfig(base_path="/auth", trusted_proxies=1)
    assert create_action_url("session", "https", headers, {}, config) == (
        "http://example.com/auth/session"
    )


def test_action_url_from_auth_url_without_base_path() -> None:
    env = {"AUTH_URL": "https://sub.domain.env.com/api/auth"}
    url = create_action_url(
        "signout", None, Headers({"host": "example.com"}), env, AuthConfig(base_path=None)
    )
    assert url == "https://sub.domain.env.com/api/auth/signout"


def test_auth_url_wins_over_headers_even_when_trusted() -> None:
    env = {"AUTH_URL": "https://public.example.com/api/auth/"}
    headers = Headers(
        {"host": "internal:8000", "x-forwarded-host": "evil.com", "x-forwarded-proto": "http"}
    )
    config = AuthConfig(trust_host=True)
    assert create_action_url("session", "http", headers, env, config) == (
        "https://public.example.com/api/auth/session"
    )


@pytest.mark.parametrize(
    ("auth_url", "base_path", "expected"),
    [
        ("https://example.com", "/auth", "https://example.com/auth/signin"),
        ("https://example.com/", None, "https://example.com/signin"),
        ("https://example.com:8443/auth", None, "https://example.com:8443/auth/signin"),
        ("https://example.com/api/auth", "/api/auth/", "https://example.com/api/auth/signin"),
    ],
)
def test_action_url_from_auth_url_variants(
    auth_url: str, base_path: str | None, expected: str
) -> None:
    url = create_action_url(
        "signin", None, Headers(), {"AUTH_URL": auth_url}, AuthConfig(base_path=base_path)
    )
    assert url == expected


@pytest.mark.parametrize("protocol", ["http", "http:", "https", "https:"])
def test_protocol_with_or_without_trailing_colon(protocol: str) -> None:
    scheme = protocol.rstrip(":")
    url = create_action_url(
        "signin", protocol, Headers({"host": "localhost:3000"}), {}, AuthConfig(base_path="/auth")
    )
    assert url == f"{scheme}://localhost:3000/auth/signin"


def test_base_path_slashes_are_normalised() -> None:
    headers = Headers({"host": "example.com"})
    for base_path in ("/auth", "auth", "/auth/", "auth/"):
        url = create_action_url("csrf", None, headers, {}, AuthConfig(base_path=base_path))
        assert url == "https://example.com/auth/csrf"


def test_no_base_path_puts_the_action_at_the_root() -> None:
    url = create_action_url("csrf", None, Headers({"host": "example.com"}), {}, AuthConfig())
    assert url == "https://example.com/csrf"


def test_mismatched_auth_url_path_and_base_path_logs_a_warning() -> None:
    logger = RecordingLogger()
    config = AuthConfig(base_path="/auth", logger=logger)
    env = {"AUTH_URL": "https://example.com/api/auth"}
    url = create_action_url("signin", None, Headers(), env, config)
    assert logger.warnings == ["env-url-basepath-mismatch"]
    assert url == "https://example.com/auth/signin"
    assert logger.errors == []


@pytest.mark.parametrize(
    ("auth_url", "base_path"),
    [
        ("https://example.com/api/auth", "/api/auth"),
        ("https://example.com/api/auth/", "/api/auth"),
        ("https://example.com", "/auth"),
        ("https://example.com/", "/auth"),
        ("https://example.com/api/auth", None),
    ],
)
def test_matching_or_missing_paths_log_nothing(auth_url: str, base_path: str | None) -> None:
    logger = RecordingLogger()
    config = AuthConfig(base_path=base_path, logger=logger)
    create_action_url("signin", None, Headers(), {"AUTH_URL": auth_url}, config)
    assert logger.warnings == []


def test_no_auth_url_never_warns() -> None:
    logger = RecordingLogger()
    config = AuthConfig(base_path="/auth", logger=logger, trust_host=True)
    create_action_url("signin", None, Headers({"host": "example.com"}), {}, config)
    assert logger.warnings == []


def test_nextauth_url_is_honoured_like_auth_js() -> None:
    env = {"NEXTAUTH_URL": "https://legacy.example.com/api/auth"}
    url = create_action_url("signout", None, Headers({"host": "example.com"}), env, AuthConfig())
    assert url == "https://legacy.example.com/api/auth/signout"


@pytest.mark.parametrize(
    ("url", "safe"),
    [
        ("https://app.example.com/a/b?c=d&e=%41#f", "https://app.example.com/a/b?c=d&e=%41#f"),
        ("https://[::1]:8443/~x;y,z'()*+$!@", "https://[::1]:8443/~x;y,z'()*+$!@"),
        ("/a b", "/a%20b"),
        ("/é?q=€", "/%C3%A9?q=%E2%82%AC"),
        ("/x\r\nSet-Cookie: a=b", "/x%0D%0ASet-Cookie:%20a=b"),
        ('/"<>^`{|}\\', "/%22%3C%3E%5E%60%7B%7C%7D%5C"),
        ("/\ud800", "/?"),
    ],
)
def test_safe_url_encodes_what_a_location_header_cannot_hold(url: str, safe: str) -> None:
    assert safe_url(url) == safe
