"""No absolute URL from an untrusted host: the allow-list of hosts, what a valid host is,
forwarded headers only from counted proxies, and ``AUTH_URL`` behind every link.

These run the core directly (``AuthClient``, whose ``origin`` is the host the request
came for); ``tests/integrations/test_served_hosts.py`` runs the same through real servers."""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from authui import AuthConfig, Endpoint, OAuth2, Request, assert_config, set_env_defaults
from authui.core import session_of
from authui.errors import InvalidHost, UntrustedHost
from authui.failures import INVALID_HOST_MESSAGE
from authui.hosts import host_rules, request_origin, split_host
from authui.mail.console import ConsoleOutbox
from authui.mail.message import VerificationEmail
from authui.options import resolve
from authui.providers.console_email import ConsoleEmail
from authui.proxies import client_address
from authui.testing import AuthClient
from authui.urls import create_action_url, origin_of
from tests.actions.test_email_confirm import WatchedAdapter
from tests.conftest import ENV, make_config

SITE = "https://app.example.com"
EVIL = "https://evil.example"


def site_config(**overrides: Any) -> tuple[AuthConfig, ConsoleOutbox, WatchedAdapter]:
    """Email sign-in through a console outbox, an OAuth provider, and ``overrides``."""
    outbox = ConsoleOutbox()
    adapter = WatchedAdapter()
    service = OAuth2(
        id="svc",
        client_id="client",
        client_secret="secret",
        authorization=Endpoint(url="https://svc.example/authorize"),
        token="https://svc.example/token",
        userinfo="https://svc.example/me",
    )
    config = make_config(
        providers=[ConsoleEmail(outbox=outbox), service], adapter=adapter, **overrides
    )
    return config, outbox, adapter


def last(outbox: ConsoleOutbox, to: str | None = None) -> VerificationEmail:
    """The newest message (to ``to``); there must be one."""
    message = outbox.last(to)
    assert message is not None
    return message


async def ask_for_link(client: AuthClient, email: str = "ada@example.com", **headers: str) -> Any:
    token = (await client.get("csrf", headers=headers)).data()["csrfToken"]
    form = {"csrfToken": token, "email": email}
    return await client.post("signin/email", form=form, headers=headers)


# -- what a valid host is --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("example.com", ("example.com", None)),
        ("Example.COM:8443", ("example.com", 8443)),
        ("example.com.", ("example.com.", None)),
        ("127.0.0.1:5000", ("127.0.0.1", 5000)),
        ("[::1]", ("[::1]", None)),
        ("[0:0::1]:8000", ("[::1]", 8000)),
        ("xn--bcher-kva.example", ("xn--bcher-kva.example", None)),
        ("a" * 63 + ".com", ("a" * 63 + ".com", None)),
        ("localhost", ("localhost", None)),
    ],
)
def test_valid_hosts(host: str, expected: tuple[str, int | None]) -> None:
    assert split_host(host) == expected


INVALID_HOSTS = [
    pytest.param("", id="empty"),
    pytest.param("a" * 64 + ".com", id="64-char label"),
    pytest.param("a..b", id="empty label"),
    pytest.param(".example.com", id="leading dot"),
    pytest.param("a b", id="space"),
    pytest.param("bücher.example", id="non-ASCII"),
    pytest.param("a_b.com", id="underscore"),
    pytest.param("example.com:", id="empty port"),
    pytest.param("example.com:0", id="port 0"),
    pytest.param("example.com:65536", id="port too big"),
    pytest.param("example.com:http", id="port not a number"),
    pytest.param("example.com:80:80", id="two ports"),
    pytest.param("[::1", id="open bracket"),
    pytest.param("[::1]x", id="after the bracket"),
    pytest.param("[fe80::1%eth0]", id="IPv6 zone"),
    pytest.param("[example.com]", id="name in brackets"),
    pytest.param(("a" * 60 + ".") * 5 + "com", id="over 253"),
    pytest.param("user@example.com", id="user name"),
    pytest.param("a\tb", id="tab"),
    pytest.param("example.com,evil.example", id="two hosts"),
]


@pytest.mark.parametrize("host", INVALID_HOSTS)
def test_invalid_hosts_are_refused(host: str) -> None:
    with pytest.raises(InvalidHost):
        request_origin(f"http://{host}/auth/session")


def test_urls_may_hold_unicode_names_compared_in_their_xn_form() -> None:
    assert origin_of("https://Bücher.example/x") == "https://xn--bcher-kva.example"
    assert origin_of("https://[0:0::1]:443/") == "https://[::1]"
    with pytest.raises(ValueError, match="not a host name"):
        origin_of("https://" + "a" * 64 + ".com/")


# -- the allow-list --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entries", "url", "allowed"),
    [
        (["example.com"], "https://example.com/", True),
        (["example.com"], "https://EXAMPLE.com./", True),
        (["example.com"], "http://example.com:8080/", True),
        (["example.com"], "https://www.example.com/", False),
        (["example.com"], "https://example.com.evil.example/", False),
        (["example.com"], "https://evilexample.com/", False),
        ([".example.com"], "https://example.com/", True),
        ([".example.com"], "https://a.b.example.com/", True),
        ([".example.com"], "https://badexample.com/", False),
        (["example.com:8443"], "https://example.com:8443/", True),
        (["example.com:8443"], "https://example.com/", False),
        (["example.com:443"], "https://example.com/", True),
        (["example.com:443"], "http://example.com/", False),
        ([".example.com:8443"], "https://a.example.com:8443/", True),
        (["Bücher.Example"], "https://xn--bcher-kva.example/", True),
        (["[::1]:8000"], "http://[0::1]:8000/", True),
        (["127.0.0.1"], "http://127.0.0.1:5000/", True),
        (["a.test", "b.test"], "http://b.test/", True),
    ],
)
def test_allow_list_entries(entries: list[str], url: str, allowed: bool) -> None:
    rules = host_rules(tuple(entries))
    if allowed:
        assert request_origin(url, rules)
    else:
        with pytest.raises(InvalidHost, match="not in trusted_hosts"):
            request_origin(url, rules)


@pytest.mark.parametrize(
    "entry", ["https://example.com", "example.com/auth", "exa mple.com", ".[::1]", "x:99999", ""]
)
def test_an_entry_that_is_no_host_stops_the_app(entry: str) -> None:
    config = make_config(trusted_hosts=["ok.example", entry])
    [error] = assert_config(config, Request.build("GET", f"{SITE}/auth/session")).errors
    assert isinstance(error, UntrustedHost)
    assert repr(entry) in str(error)


# -- configuration ---------------------------------------------------------------------------


def test_the_environment_fills_the_lists() -> None:
    env = {"AUTH_TRUSTED_HOSTS": " app.example.com, .example.org ,", "AUTH_TRUSTED_PROXIES": "2"}
    config = set_env_defaults(env, AuthConfig())
    assert config.trusted_hosts == ("app.example.com", ".example.org")
    assert config.trusted_proxies == 2
    kept = set_env_defaults(env, AuthConfig(trusted_hosts=["mine.test"], trusted_proxies=1))
    assert (kept.trusted_hosts, kept.trusted_proxies) == (["mine.test"], 1)


@pytest.mark.parametrize("value", ["one", "-1", "1.5", "²"])
def test_a_proxy_count_that_is_no_number_stops_the_app(value: str) -> None:
    with pytest.raises(ValueError, match="AUTH_TRUSTED_PROXIES"):
        set_env_defaults({"AUTH_TRUSTED_PROXIES": value}, AuthConfig())


def test_listing_hosts_trusts_them() -> None:
    config = set_env_defaults(
        {"AUTH_SECRET": ENV["AUTH_SECRET"], "AUTH_TRUSTED_HOSTS": "app.example.com"},
        AuthConfig(),
    )
    assert assert_config(config, Request.build("GET", f"{SITE}/auth/session")).errors == []


def warned(caplog: pytest.LogCaptureFixture) -> bool:
    return "[auth][warn][any-host-trusted]" in caplog.text


@pytest.mark.parametrize(
    ("settings", "warns"),
    [
        ({}, True),
        ({"trusted_hosts": ["app.example.com"]}, False),
        ({"url": f"{SITE}/auth"}, False),
        ({"development": True}, False),
    ],
)
def test_trusting_any_host_warns_at_start_up(
    caplog: pytest.LogCaptureFixture, settings: dict[str, Any], warns: bool
) -> None:
    resolve(make_config(**settings))
    assert warned(caplog) is warns
    if warns:
        assert "links in emails and redirects are built from whatever Host" in caplog.text


# -- the core refuses an untrusted host, and builds nothing from it ---------------------------


async def test_a_forged_host_gets_400_and_no_email_cookie_or_adapter_call() -> None:
    config, outbox, adapter = site_config(trusted_hosts=["app.example.com"])
    site = AuthClient(config, origin=SITE)
    token = await site.csrf_token()
    attacker = AuthClient(config, origin=EVIL, cookies=dict(site.cookies))
    form = {"csrfToken": token, "email": "victim@example.com"}
    asked = await attacker.post("signin/email", form=form)
    assert (asked.status, asked.data()) == (400, {"message": INVALID_HOST_MESSAGE})
    assert asked.header_all("set-cookie") == []
    assert outbox.messages == []
    assert adapter.calls == []
    # the same request for the site's own host sends the link, to the site
    sent = await site.post("signin/email", form=form)
    assert sent.status == 302
    assert last(outbox, "victim@example.com").url.startswith(f"{SITE}/auth/callback/email?")


async def test_a_browser_gets_the_error_page_and_an_api_client_json() -> None:
    config, _, _ = site_config(trusted_hosts=["app.example.com"])
    attacker = AuthClient(config, origin=EVIL)
    browser = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    page = await attacker.get("signin", headers=browser)
    assert (page.status, page.header("content-type")) == (400, "text/html")
    assert "does not answer for the address your browser used" in page.text
    assert "evil.example" not in page.text
    assert page.header_all("set-cookie") == []
    form_post = await attacker.post("signin/email", form={"email": "a@b.c"}, headers=browser)
    assert (form_post.status, form_post.header("content-type")) == (400, "text/html")
    for answer in (
        await attacker.get("signin", headers={**browser, "X-Auth-Return-Redirect": "1"}),
        await attacker.get("signin"),
        await attacker.get("session"),
        await attacker.get("csrf"),
        await attacker.get("providers"),
        await attacker.post("signout", form={}),
        await attacker.get("_static/nothing.css"),
    ):
        assert (answer.status, answer.data()) == (400, {"message": INVALID_HOST_MESSAGE})
        assert answer.header_all("set-cookie") == []


async def test_the_refusal_is_one_log_line(caplog: pytest.LogCaptureFixture) -> None:
    config, _, _ = site_config(trusted_hosts=["app.example.com"])
    await AuthClient(config, origin="http://" + "a" * 200 + ".example").get("session")
    [record] = [r for r in caplog.records if "InvalidHost" in r.getMessage()]
    assert record.levelno == logging.ERROR
    assert record.exc_info is None
    assert "is not valid" in record.getMessage()
    assert len(record.getMessage()) < 400  # the host is cut short


async def test_trust_host_alone_builds_the_link_from_any_host() -> None:
    """The risk the ``any-host-trusted`` warning names, shown."""
    config, outbox, _ = site_config()
    await ask_for_link(AuthClient(config, origin=EVIL), "victim@example.com")
    assert last(outbox, "victim@example.com").url.startswith(f"{EVIL}/auth/callback/email?")


async def test_no_session_is_read_for_an_untrusted_host() -> None:
    config, _, _ = site_config(trusted_hosts=["app.example.com"])
    site = AuthClient(config, origin=SITE)
    await ask_for_link(site)
    request = Request.build("GET", f"{EVIL}/me", headers={"cookie": "x=1"})
    assert await session_of(request, config) == (None, [])


# -- AUTH_URL is behind every absolute URL ----------------------------------------------------


async def test_with_auth_url_every_absolute_url_comes_from_it() -> None:
    config, outbox, _ = site_config(url=f"{SITE}/auth")
    client = AuthClient(config, origin="http://evil.example:8080")
    asked = await ask_for_link(client)
    assert asked.header("location") == f"{SITE}/auth/verify-request?provider=email&type=email"
    assert last(outbox).url.startswith(f"{SITE}/auth/callback/email?")
    assert "evil" not in last(outbox).text + last(outbox).html
    oauth = await client.post("signin/svc", form={"csrfToken": await client.csrf_token()})
    redirect_uri = parse_qs(urlsplit(oauth.header("location") or "").query)["redirect_uri"]
    assert redirect_uri == [f"{SITE}/auth/callback/svc"]
    providers = (await client.get("providers")).data()["svc"]
    assert providers["callbackUrl"] == f"{SITE}/auth/callback/svc"
    signed_out = await client.post("signout", form={"csrfToken": await client.csrf_token()})
    assert signed_out.header("location") == SITE


async def test_with_auth_url_an_invalid_host_is_still_refused() -> None:
    config, _, _ = site_config(url=f"{SITE}/auth")
    answer = await AuthClient(config, origin="http://a..b").get("session")
    assert answer.status == 400


# -- forwarded headers only from counted proxies ----------------------------------------------

FORGED = {
    "X-Forwarded-Host": "evil.example",
    "X-Forwarded-Proto": "https",
    "X-Forwarded-For": "203.0.113.9",
}


async def test_forwarded_headers_are_ignored_without_trusted_proxies() -> None:
    config, outbox, _ = site_config()
    client = AuthClient(config, origin="http://app.example.com")
    csrf = await client.get("csrf", headers=FORGED)
    assert str(csrf.header("set-cookie")).startswith("authjs.csrf-token=")  # not __Host-: http
    await ask_for_link(client, **FORGED)
    assert last(outbox).url.startswith("http://app.example.com/auth/callback/email?")


async def test_a_trusted_proxy_s_forwarded_host_and_proto_make_the_url() -> None:
    config, outbox, _ = site_config(trusted_hosts=["app.example.com"], trusted_proxies=1)
    behind = AuthClient(config, origin="http://10.0.0.5:8000")  # as the proxy reaches the app
    public = {"X-Forwarded-Host": "app.example.com", "X-Forwarded-Proto": "https"}
    csrf = await behind.get("csrf", headers=public)
    assert str(csrf.header("set-cookie")).startswith("__Host-authjs.csrf-token=")
    await ask_for_link(behind, **public)
    assert last(outbox).url.startswith(f"{SITE}/auth/callback/email?")
    # the client's own entries come first; the proxy's, last, is the one read
    await ask_for_link(behind, **{**public, "X-Forwarded-Host": "evil.example, app.example.com"})
    assert last(outbox).url.startswith(f"{SITE}/auth/callback/email?")
    refused = await behind.get("session", headers={**public, "X-Forwarded-Host": "evil.example"})
    assert refused.status == 400
    bad = await behind.get("session", headers={**public, "X-Forwarded-Host": "evil.example/x"})
    assert bad.status == 400


def address(config: AuthConfig, *forwarded_for: str) -> str | None:
    headers = [("X-Forwarded-For", value) for value in forwarded_for]
    request = Request.build("GET", f"{SITE}/auth/session", headers=headers, client="10.0.0.1")
    return client_address(request, resolve(config).config.trusted_proxies)


@pytest.mark.parametrize(
    ("proxies", "forwarded_for", "client"),
    [
        (0, ["203.0.113.9"], "10.0.0.1"),
        (1, ["203.0.113.9"], "203.0.113.9"),
        (1, ["1.1.1.1, 203.0.113.9"], "203.0.113.9"),
        (1, ["1.1.1.1", "203.0.113.9"], "203.0.113.9"),
        (2, ["1.1.1.1, 203.0.113.9, 198.51.100.2"], "203.0.113.9"),
        (2, ["198.51.100.2"], "10.0.0.1"),
        (1, [], "10.0.0.1"),
        (1, [" , "], "10.0.0.1"),
    ],
)
def test_the_client_is_the_entry_the_outermost_trusted_proxy_wrote(
    proxies: int, forwarded_for: list[str], client: str
) -> None:
    assert address(make_config(trusted_proxies=proxies), *forwarded_for) == client


# -- create_action_url -------------------------------------------------------------------------


def test_create_action_url_uses_the_config_s_url() -> None:
    config = AuthConfig(url=f"{SITE}/auth", base_path="/auth")
    headers = {"host": "evil.example"}
    assert create_action_url("signin", "https", headers, {}, config) == f"{SITE}/auth/signin"


@pytest.mark.parametrize("host", ["evil.example", "a..b", ""])
def test_create_action_url_refuses_an_untrusted_or_invalid_host(host: str) -> None:
    config = AuthConfig(trusted_hosts=["app.example.com"], base_path="/auth")
    with pytest.raises(InvalidHost):
        create_action_url("signin", "https", {"host": host}, {}, config)
    ok = create_action_url("signin", "https", {"host": "app.example.com"}, {}, config)
    assert ok == f"{SITE}/auth/signin"
