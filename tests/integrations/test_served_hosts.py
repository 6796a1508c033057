"""Hosts and forwarded headers through the served stacks: ``tests.peers.hosts_app`` in a
real server (Quart in hypercorn, with authui's routes on the blueprint and on the fast
path; Starlette's ``handlers`` and FastAPI's ``AuthMiddleware`` + ``AuthApp`` in
uvicorn), asked over sockets.

Every site trusts the hosts ``app.test`` and ``127.0.0.1`` and sends at most two sign-in
links per client. uvicorn runs without its own proxy-header handling, as the deployment
docs say to run it without a proxy: otherwise uvicorn itself believes the
``X-Forwarded-For`` of any client on 127.0.0.1, before authui sees the request.
"""

from __future__ import annotations

import http.client
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

import httpx
import pytest
from quart import Quart

from authui.failures import INVALID_HOST_MESSAGE
from authui.jwt import encode
from authui.quart import AuthUI
from tests.asgi_driver import websocket
from tests.conftest import SECRET, make_config
from tests.peers.servers import Server, asgi_servers

APP = "tests.peers.hosts_app:app"
INVALID_HOST_JSON = json.dumps({"message": INVALID_HOST_MESSAGE}, separators=(",", ":")).encode()
SITE = "app.test"


@dataclass(frozen=True)
class Site:
    """A served site: its URL (127.0.0.1 and a port) and the file its log records go to."""

    framework: str
    url: str
    log: Path

    def get(self, path: str, host: str = SITE, **headers: str) -> httpx.Response:
        return httpx.get(self.url + path, headers={"Host": host, **headers})

    def ask_for_link(
        self, email: str, host: str = SITE, csrf_host: str | None = None, **headers: str
    ) -> httpx.Response:
        """A sign-in link for ``email``, asked for as a browser does: the CSRF token and its
        cookie first (from ``csrf_host`` if given; the cookie kept by hand, as httpx sends
        no ``__Host-`` cookie over http); that refusal if the token is refused."""
        csrf = self.get("/auth/csrf", host=csrf_host or host, **headers)
        if csrf.status_code != 200:
            return csrf
        cookie = csrf.headers["set-cookie"].split(";", 1)[0]
        return httpx.post(
            self.url + "/auth/signin/email",
            headers={"Host": host, "Cookie": cookie, **headers},
            data={"csrfToken": csrf.json()["csrfToken"], "email": email},
        )

    def sent(self) -> list[dict[str, str]]:
        """The links the site has sent, oldest first."""
        answer: list[dict[str, str]] = self.get("/outbox").json()
        return answer

    def assert_no_traceback(self) -> None:
        text = self.log.read_text()
        assert "Traceback" not in text, text
        assert "Exception in ASGI application" not in text, text


def raw_get(site: Site, path: str, hosts: list[bytes], **headers: str) -> tuple[int, str, bytes]:
    """``GET path`` with these ``Host`` headers exactly as given (none, several, bytes no
    client library would send): the status, the content type and the body."""
    parts = urlsplit(site.url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    try:
        connection.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
        for host in hosts:
            connection.putheader("Host", host)
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.getheader("content-type") or "", response.read()
    finally:
        connection.close()


def serve(framework: str, log: Path, proxies: int) -> Iterator[Site]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTH_", "UVICORN_"))}
    env.update(
        AUTHUI_HOSTS_FRAMEWORK=framework,
        AUTHUI_HOSTS_LOG=str(log),
        AUTH_SECRET=SECRET,
        AUTH_TRUSTED_HOSTS=f"{SITE},127.0.0.1",
        AUTH_TRUSTED_PROXIES=str(proxies),
        UVICORN_PROXY_HEADERS="false",
    )
    server: Server = "hypercorn" if framework.startswith("quart") else "uvicorn"
    with asgi_servers(APP, 1, env, server=server) as (url,):
        yield Site(framework, url, log)


@pytest.fixture(scope="module", params=["quart", "quart-fast", "starlette", "fastapi"])
def site(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Site]:
    """The site in each framework, trusting no proxy."""
    log = tmp_path_factory.mktemp(request.param) / "server.log"
    yield from serve(request.param, log, proxies=0)


@pytest.fixture(scope="module", params=["quart", "starlette", "fastapi"])
def proxied(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Site]:
    """The site in each framework, behind one trusted proxy (``AUTH_TRUSTED_PROXIES=1``)."""
    log = tmp_path_factory.mktemp(f"{request.param}-proxied") / "server.log"
    yield from serve(request.param, log, proxies=1)


INVALID_HOSTS = [
    pytest.param([b"a" * 64 + b".example"], id="64-char label"),
    pytest.param([b"x." + b"a" * 200 + b".example"], id="200-char label"),
    pytest.param([b""], id="empty"),
    pytest.param([b"a..b"], id="empty label"),
    pytest.param([b"app.test:99999"], id="port too big"),
    pytest.param([b"app.test:http"], id="port not a number"),
    pytest.param(["bücher.example".encode()], id="non-ASCII"),
    pytest.param([b"app test"], id="space"),
    pytest.param([b"[::1"], id="open bracket"),
    pytest.param([b"app.test", b"evil.example"], id="two Host headers"),
]


@pytest.mark.parametrize("hosts", INVALID_HOSTS)
def test_an_invalid_host_is_a_400_never_a_500(site: Site, hosts: list[bytes]) -> None:
    session = raw_get(site, "/auth/session", hosts)
    page = raw_get(site, "/auth/signin", hosts, Accept="text/html")
    own = raw_get(site, "/", hosts)
    if session == page == own == (400, "", b""):
        return  # the server refused it before any app saw it (h11: two Host headers)
    assert session == (400, "application/json", INVALID_HOST_JSON)
    status, kind, body = page
    assert (status, kind) == (400, "text/html"), body
    assert b"does not answer for the address your browser used" in body
    # the app's own route: 400 where authui's hook sees every request (Quart's connection
    # handler, AuthMiddleware); the app's business otherwise, but never a 500
    assert own[0] == (200 if site.framework == "starlette" else 400), own
    if own[0] == 400:
        assert own[1:] == ("application/json", INVALID_HOST_JSON)
    site.assert_no_traceback()


def test_a_forged_host_gets_400_and_no_email(site: Site) -> None:
    refused = site.ask_for_link("victim@example.com", host="evil.example", csrf_host=SITE)
    assert refused.status_code == 400
    assert "set-cookie" not in refused.headers
    assert site.get("/auth/session", host="evil.example").status_code == 400
    assert site.get("/auth/signin", host="evil.example", Accept="text/html").status_code == 400
    assert site.sent() == []
    site.assert_no_traceback()


def test_a_server_side_helper_answers_an_untrusted_host_with_400(site: Site) -> None:
    assert site.get("/leave", host="evil.example").status_code == 400
    left = site.get("/leave")
    assert (left.status_code, left.headers["location"]) == (302, f"http://{SITE}/")
    site.assert_no_traceback()


def test_forwarded_headers_from_a_client_are_ignored(site: Site) -> None:
    """Without a trusted proxy, ``X-Forwarded-*`` steer nothing: neither the links' host
    and scheme, nor the client address the limit of two links per client counts by, so a
    rotating ``X-Forwarded-For`` gets no third link."""
    answers = [
        site.ask_for_link(
            f"user{n}@example.com",
            **{
                "X-Forwarded-Host": "evil.example",
                "X-Forwarded-Proto": "https",
                "X-Forwarded-For": f"203.0.113.{n}",
            },
        )
        for n in range(3)
    ]
    assert [a.status_code for a in answers[:2]] == [302, 302]
    assert answers[2].status_code != 302 or "error" in answers[2].headers["location"]
    sent = site.sent()
    assert [m["to"] for m in sent] == ["user0@example.com", "user1@example.com"]
    assert all(m["url"].startswith(f"http://{SITE}/auth/callback/email?") for m in sent)
    site.assert_no_traceback()


def links_to(site: Site) -> Mapping[str, Any]:
    return {m["to"]: m["url"] for m in site.sent()}


def test_a_trusted_proxy_s_forwarded_headers_are_honoured(proxied: Site) -> None:
    public = {"X-Forwarded-Host": SITE, "X-Forwarded-Proto": "https"}
    # the host and scheme the proxy forwards make the link, from the host it came for
    first = proxied.ask_for_link("ada@example.com", host="10.0.0.5:8000", **public)
    assert first.status_code == 302
    assert links_to(proxied)["ada@example.com"].startswith(f"https://{SITE}/auth/callback/")
    # a forwarded host outside the allow-list is refused like a Host
    evil = {**public, "X-Forwarded-Host": f"evil.example, {SITE}, evil.example"}
    assert proxied.ask_for_link("eve@example.com", **evil).status_code == 400
    # the client is the address the proxy appended: each its own limit ...
    for n in range(3):
        forwarded = {**public, "X-Forwarded-For": f"198.51.100.{n}"}
        assert proxied.ask_for_link(f"c{n}@example.com", **forwarded).status_code == 302
    # ... and what a client wrote before it does not make another client
    for n in range(3):
        forged = {**public, "X-Forwarded-For": f"203.0.113.{n}, 192.0.2.77"}
        proxied.ask_for_link(f"f{n}@example.com", **forged)
    sent = links_to(proxied)
    assert {"c0@example.com", "c1@example.com", "c2@example.com"} <= set(sent)
    assert {"f0@example.com", "f1@example.com"} <= set(sent)
    assert "f2@example.com" not in sent
    assert "eve@example.com" not in sent
    proxied.assert_no_traceback()


SECURE_SESSION = "__Secure-authjs.session-token"


def secure_session() -> dict[str, str]:
    """What a browser sends behind a TLS proxy: its ``__Secure-`` session cookie, and the
    ``X-Forwarded-Proto`` the proxy adds."""
    token = encode(token={"name": "Ada", "sub": "42"}, secret=SECRET, salt=SECURE_SESSION)
    return {"X-Forwarded-Proto": "https", "Cookie": f"{SECURE_SESSION}={token}"}


def test_the_app_reads_the_session_by_the_scheme_a_trusted_proxy_forwarded(
    proxied: Site,
) -> None:
    assert proxied.get("/", **secure_session()).json()["auth"]["user"] == {"name": "Ada"}
    proxied.assert_no_traceback()


def test_a_client_s_forwarded_scheme_changes_no_cookie_name(site: Site) -> None:
    assert site.get("/", **secure_session()).json() == {"auth": None}
    site.assert_no_traceback()


async def test_quart_with_a_configuration_function_refuses_an_invalid_host_too(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Without a configuration at hand (a function of the request, which Quart cannot
    build a request for), the refusal is JSON, logged as the core logs it."""
    app = Quart(__name__)
    AuthUI(app, lambda request: make_config(), base_path="/auth")
    transport = httpx.ASGITransport(app=cast(Any, app))  # Quart types its ASGI call narrowly
    async with httpx.AsyncClient(transport=transport, base_url=f"http://{SITE}") as client:
        for path in ("/auth/session", "/"):
            answer = await client.get(path, headers={"Host": "a" * 64 + ".example"})
            assert (answer.status_code, answer.json()) == (400, {"message": INVALID_HOST_MESSAGE})
    assert caplog.text.count("[auth][error] InvalidHost") == 2
    assert "Traceback" not in caplog.text


@pytest.mark.parametrize("fast_path", [False, True])
async def test_quart_closes_a_websocket_with_an_invalid_host(fast_path: bool) -> None:
    """Quart would fail inside werkzeug's IDNA encoding; the wrapper on ``app.asgi_app``
    closes the WebSocket (1008) before Quart sees it, as Starlette's middleware does."""
    app = Quart(__name__)
    AuthUI(app, make_config(), fast_path=fast_path)

    @app.websocket("/ws")
    async def ws() -> None:
        raise AssertionError("a WebSocket with an invalid Host reached the app")

    sent = await websocket(app, "/ws", host=b"a" * 64 + b".example")
    assert sent == [{"type": "websocket.close", "code": 1008}]
