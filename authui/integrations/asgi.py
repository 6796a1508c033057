"""What every ASGI integration does straight on the ASGI messages, without its framework's
request and response objects (Starlette's ``URL``, werkzeug's IRI handling): the request
URL of a plain request, the headers as text, the body, sending authui's response, and
``AuthRoutes``, the middleware that refuses invalid hosts and can answer authui's routes
before the framework's routing."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from functools import lru_cache
from typing import Any

from authui.config import AuthConfig
from authui.core import Auth
from authui.errors import InvalidHost
from authui.failures import INVALID_HOST_MESSAGE
from authui.hosts import request_origin
from authui.http import Headers, Request, Response
from authui.integrations.state import Integration
from authui.logger import StandardLogger
from authui.pages.assets import STATIC_PREFIX
from authui.urls import is_auth_action

Receive = Callable[[], Awaitable[Any]]
"""ASGI's ``receive``, as every framework types it."""
Send = Callable[[Any], Awaitable[None]]
"""ASGI's ``send``, as every framework types it."""

WEB_SCHEMES = {"ws": "http", "wss": "https"}
"""A WebSocket's URL has the ``http(s)`` scheme of its handshake."""

_PLAIN_HOST = re.compile(r"[A-Za-z0-9.-]+(?::([0-9]{1,5}))?")
_PLAIN_PATH = re.compile(r"/(?!/)[A-Za-z0-9/._~!$&'()*+,;=:@-]*")
_PLAIN_QUERY = re.compile(rb"[A-Za-z0-9/._~!$&'()*+,;=:@?%-]*")
_DEFAULT_PORTS = {"http": "80", "https": "443"}
_STATIC_DIR = STATIC_PREFIX.strip("/")


def is_own_route(path: str, base_path: str) -> bool:
    """Whether ``path`` is one of authui's routes under ``base_path``: an action
    (``<base>/session``, ``<base>/callback/github``, …) or a static file."""
    if not path.startswith(base_path + "/"):
        return False
    first = path[len(base_path) + 1 :].split("/", 1)[0]
    return is_auth_action(first) or first == _STATIC_DIR


def plain_url(scope: Mapping[str, Any]) -> str | None:
    """The absolute URL of a request whose ``Host`` header, path and query need no
    validation, escaping or decoding; ``None`` for any other, which the framework's own
    URL reconstruction handles.

    For these requests every framework agrees on the URL: the scheme, the ``Host`` header
    (one, a name or IPv4 address, with a port that is not the scheme's default), the path, and
    the query string exactly as the client sent it.
    """
    scheme: str = scope.get("scheme", "http")
    hosts = [v for k, v in scope["headers"] if k == b"host"]
    if len(hosts) != 1:
        return None
    path: str = scope["path"]
    query: bytes = scope.get("query_string", b"")
    if len(path) + len(query) > _KEPT_URL_LENGTH:
        return _plain_url.__wrapped__(scheme, hosts[0], path, query)
    return _plain_url(scheme, hosts[0], path, query)


_KEPT_URL_LENGTH = 256
"""The longest path and query whose URL ``plain_url`` keeps (most of an app's requests go
to a few URLs; a long one is checked anew each time, so the cache stays small)."""


@lru_cache(maxsize=512)
def _plain_url(scheme: str, host: bytes, path: str, query: bytes) -> str | None:
    scheme = WEB_SCHEMES.get(scheme, scheme)
    host_text = host.decode("latin-1")
    matched = _PLAIN_HOST.fullmatch(host_text)
    port = matched and matched.group(1)
    if matched is None or (port and (int(port) > 65535 or port == _DEFAULT_PORTS.get(scheme))):
        return None
    if not _PLAIN_PATH.fullmatch(path) or not _PLAIN_QUERY.fullmatch(query):
        return None
    url = f"{scheme}://{host_text}{path}"
    return f"{url}?{query.decode('ascii')}" if query else url


def host_error(scope: Mapping[str, Any]) -> InvalidHost | None:
    """What is wrong with the request's ``Host`` header (several of them, an invalid host
    or port, see ``authui.hosts``); ``None`` when it is valid or absent (HTTP/1.0, where
    the server's address stands in). Frameworks would answer such a request with 500
    (Quart) or quietly put the server's address in its place (Starlette)."""
    hosts = tuple(v for k, v in scope["headers"] if k == b"host")
    return _host_error(hosts) if hosts else None


@lru_cache(maxsize=256)
def _host_error(hosts: tuple[bytes, ...]) -> InvalidHost | None:
    try:
        request_origin(f"http://{b','.join(hosts).decode('latin-1')}/")
    except InvalidHost as error:
        return error
    return None


def raw_url(scope: Mapping[str, Any]) -> str:
    """The request's URL with its ``Host`` header as it came, unchecked: for a request
    with an invalid host, which the core then refuses (it reads the host and the path)."""
    scheme: str = scope.get("scheme", "http")
    hosts = [v.decode("latin-1") for k, v in scope["headers"] if k == b"host"]
    return f"{WEB_SCHEMES.get(scheme, scheme)}://{','.join(hosts)}{scope['path']}"


def invalid_host_response(error: InvalidHost) -> Response:
    """The answer to a request with an invalid ``Host`` when no configuration is at hand
    to answer it with (the core's answer, for a lazy configuration): 400 JSON, logged
    as the core logs it."""
    StandardLogger().error(error)
    return Response.json(400, {"message": INVALID_HOST_MESSAGE})


def text_headers(scope: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The request's headers as text (ASGI gives lower-cased names as bytes)."""
    return [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]


def client_host(scope: Mapping[str, Any]) -> str | None:
    """The client's address as the server saw it."""
    client = scope.get("client")
    return str(client[0]) if client else None


def scope_request(scope: Mapping[str, Any], url: str, body: bytes) -> Request:
    """An HTTP request as an authui request, from its scope, its absolute URL and its
    body (already read)."""
    headers = Headers.lower_case(text_headers(scope))
    return Request(scope.get("method", "GET"), url, headers, body, client_host(scope))


async def answer_scope(
    scope: Mapping[str, Any], receive: Receive, url: str, config: AuthConfig
) -> Response:
    """The core's answer to an HTTP request to the auth routes, its body read from
    ``receive``."""
    body = await read_body(receive, config.max_body_size)
    answer = await Auth(scope_request(scope, url, body), config)
    if not isinstance(answer, Response):
        raise TypeError("the app's config must not set raw")
    return answer


async def read_body(receive: Receive, limit: int) -> bytes:
    """The request body from the ASGI messages, at most ``limit + 1`` bytes kept (enough
    for the core to refuse an oversized one without holding all of it)."""
    chunks: list[bytes] = []
    size = 0
    more = True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        if size <= limit:
            chunk: bytes = message.get("body", b"")
            chunks.append(chunk[: limit + 1 - size])
            size += len(chunk)
        more = message.get("more_body", False)
    return b"".join(chunks)


def raw_headers(headers: list[tuple[str, str]]) -> list[tuple[bytes, bytes]]:
    """Headers as ASGI sends them: lower-cased names, both as bytes."""
    return [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]


async def send_response(send: Send, response: Response) -> None:
    """Send an authui response over ASGI (every ``Set-Cookie`` kept)."""
    headers = raw_headers(response.headers)
    headers.append((b"content-length", str(len(response.body)).encode()))
    await send({"type": "http.response.start", "status": response.status, "headers": headers})
    await send({"type": "http.response.body", "body": response.body})


ASGIApp = Callable[[Any, Receive, Send], Awaitable[None]]
"""An ASGI application, as every framework types it."""


class AuthRoutes:
    """The ASGI middleware every integration puts around the app (on Quart's
    ``app.asgi_app``, inside Starlette's ``AuthMiddleware``), framework-free.

    A request whose ``Host`` header is invalid (several of them, an empty label or one of 64
    characters, a bad port, non-ASCII) is refused whatever its path: 400 from the core, a
    WebSocket closed with 1008. Frameworks would answer it with 500 (Quart: werkzeug's IDNA
    encoding fails) or put the server's address in its place (Starlette).

    With ``answer_routes``, authui's own routes (``<base>/session``, ``/csrf``, ``/signin``,
    ``/callback/…``, the pages and their static files) are answered here, before the
    framework's routing: the same answers, for a fraction of the cost, but the app's request
    hooks, signals and error handlers do not run for them. Every other request goes on to
    the app.

    Args:
        app: The app to wrap.
        integration: The app's integration.
        answer_routes: Answer authui's routes here.
        connection: Makes, from a scope, what a lazy configuration is called with (a
            Starlette ``HTTPConnection``); without it, requests of a lazy configuration go
            on to the app.
        url: The absolute URL of a request; ``None`` sends it on to the app. Defaults to
            ``plain_url``.
    """

    def __init__(
        self,
        app: ASGIApp,
        integration: Integration,
        *,
        answer_routes: bool,
        connection: Callable[[Any], Any] | None = None,
        url: Callable[[Any], str | None] = plain_url,
    ) -> None:
        self.app = app
        self.integration = integration
        self.answer_routes = answer_routes
        self._connection = connection
        self._url = url

    async def __call__(self, scope: Any, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        error = host_error(scope)
        if error is not None:
            await self._refuse(scope, receive, send, error)
            return
        if (
            kind == "http"
            and self.answer_routes
            and is_own_route(scope["path"], self.integration.base_path)
        ):
            url = self._url(scope)
            config = None if url is None else await self._config(scope)
            if url is not None and config is not None:
                await send_response(send, await answer_scope(scope, receive, url, config))
                return
        await self.app(scope, receive, send)

    async def _config(self, scope: Any) -> AuthConfig | None:
        """The request's configuration; ``None`` for a lazy one without ``connection``."""
        static = self.integration.static
        if static is not None or self._connection is None:
            return static
        return await self.integration.config_for(self._connection(scope))

    async def _refuse(self, scope: Any, receive: Receive, send: Send, error: InvalidHost) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        config = await self._config(scope)
        if config is None:
            await send_response(send, invalid_host_response(error))
            return
        await send_response(send, await answer_scope(scope, receive, raw_url(scope), config))
