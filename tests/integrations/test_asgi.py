"""The request URL read straight off an ASGI scope: the same as the frameworks' for a plain
request, and left to them (``None``) for anything that needs validation or escaping."""

from __future__ import annotations

from typing import Any

import pytest
from quart import Quart
from starlette.datastructures import URL
from werkzeug.sansio.utils import get_current_url

from authui.integrations.asgi import _plain_url, client_host, plain_url, text_headers
from authui.quart import AuthUI
from tests.conftest import make_config


def scope(
    path: str = "/auth/session",
    *,
    host: bytes | None = b"app.example.com:8000",
    query: bytes = b"",
    scheme: str = "http",
    root_path: str = "",
) -> dict[str, Any]:
    headers = [(b"accept", b"*/*")]
    if host is not None:
        headers.insert(0, (b"host", host))
    return {
        "type": "http",
        "scheme": scheme,
        "server": ("10.0.0.5", 8000),
        "client": ("203.0.113.7", 50123),
        "method": "GET",
        "root_path": root_path,
        "path": path,
        "query_string": query,
        "headers": headers,
    }


PLAIN = [
    scope(),
    scope(host=b"localhost"),
    scope(host=b"127.0.0.1:3000", scheme="https"),
    scope("/"),
    scope("/auth/callback/github", query=b"code=abc&state=x-y_z.1~"),
    scope("/auth/signin", query=b"callbackUrl=/docs?page=2"),
    scope("/app/auth/session", root_path="/app"),
    scope("/user/me@example.com/a;b=c/(1)!$*+,'"),
]


@pytest.mark.parametrize("plain", PLAIN, ids=lambda s: s["path"] + "?" + s["query_string"].decode())
def test_a_plain_request_has_the_url_starlette_and_werkzeug_give(plain: dict[str, Any]) -> None:
    url = plain_url(plain)
    assert url == str(URL(scope=plain))
    host = dict(plain["headers"])[b"host"].decode()
    root = plain["root_path"]
    werkzeug = get_current_url(
        plain["scheme"], host, root, plain["path"][len(root) :], plain["query_string"]
    )
    assert url == werkzeug


def test_a_long_url_is_checked_as_a_short_one_and_not_kept() -> None:
    long_path = "/auth/" + "a" * 300
    before = _plain_url.cache_info().currsize
    assert plain_url(scope(long_path)) == f"http://app.example.com:8000{long_path}"
    assert plain_url(scope(long_path + " b")) is None
    assert plain_url(scope("/auth/session", query=b"q=" + b"x" * 300 + b" y")) is None
    assert _plain_url.cache_info().currsize == before


def test_websocket_schemes_become_http() -> None:
    assert plain_url(scope(scheme="ws")) == "http://app.example.com:8000/auth/session"
    assert plain_url(scope(scheme="wss")) == "https://app.example.com:8000/auth/session"


@pytest.mark.parametrize(
    "odd",
    [
        scope(host=None),  # no Host header: the server's address decides
        scope(host=b"bad host"),
        scope(host=b"evil.example/path"),
        scope(host=b"[::1]:8000"),  # IPv6 literals are validated by the framework
        scope(host=b"app.example.com:99999"),
        scope(host=b"app.example.com:80"),  # default ports are dropped differently
        scope(host=b"app.example.com:443", scheme="https"),
        scope("/a b"),
        scope("/caf\u00e9"),
        scope("/a%2Fb"),
        scope("/a\\b"),
        scope("//evil.example/x"),
        scope("relative"),
        scope(query=b"q=a b"),
        scope(query=b"q=caf\xc3\xa9"),
        scope(query=b"q=1#frag"),
    ],
    ids=repr,
)
def test_anything_else_is_left_to_the_framework(odd: dict[str, Any]) -> None:
    assert plain_url(odd) is None


def test_headers_and_client() -> None:
    plain = scope()
    assert text_headers(plain) == [("host", "app.example.com:8000"), ("accept", "*/*")]
    assert client_host(plain) == "203.0.113.7"
    assert client_host({**plain, "client": None}) is None


async def test_quart_keeps_an_encoded_plus_in_the_callback_url() -> None:
    """The query is read as the browser sent it: an encoded ``+`` stays a plus, not a
    space."""
    app = Quart(__name__)
    AuthUI(app, make_config())

    client = app.test_client()
    answer = await client.get("/auth/signin", query_string={"callbackUrl": "/search?q=a+b"})
    assert answer.status_code == 200
    cookie = next(c for c in answer.headers.getlist("Set-Cookie") if "callback-url" in c)
    assert cookie.startswith("authjs.callback-url=http%3A%2F%2Flocalhost%2Fsearch%3Fq%3Da%2Bb;")
