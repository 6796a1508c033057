"""Between ASGI / Starlette and authui's framework-free requests and responses."""

from __future__ import annotations

from starlette.requests import HTTPConnection
from starlette.responses import Response
from starlette.types import Receive, Send

from authui.cookies import Cookie
from authui.http import Request as CoreRequest
from authui.http import Response as CoreResponse
from authui.integrations.asgi import WEB_SCHEMES, client_host, plain_url, text_headers


def url_of(connection: HTTPConnection) -> str:
    """The connection's absolute URL, mount prefix included (a WebSocket's with the
    ``http(s)`` scheme of its handshake)."""
    plain = plain_url(connection.scope)
    if plain is not None:
        return plain
    url = connection.url
    scheme = WEB_SCHEMES.get(url.scheme)
    return str(url.replace(scheme=scheme) if scheme else url)


def core_request(connection: HTTPConnection, body: bytes) -> CoreRequest:
    """An HTTP request (its body already read) as an authui request."""
    scope = connection.scope
    return CoreRequest.build(
        scope.get("method", "GET"),
        url_of(connection),
        headers=text_headers(scope),
        body=body,
        client=client_host(scope),
    )


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
    return [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]


async def send_response(send: Send, response: CoreResponse) -> None:
    """Send an authui response over ASGI (every ``Set-Cookie`` kept)."""
    headers = raw_headers(response.headers)
    headers.append((b"content-length", str(len(response.body)).encode()))
    await send({"type": "http.response.start", "status": response.status, "headers": headers})
    await send({"type": "http.response.body", "body": response.body})


def starlette_response(response: CoreResponse) -> Response:
    """An authui response as a Starlette response (every ``Set-Cookie`` kept)."""
    result = Response(response.body, status_code=response.status)
    for name, value in response.headers:
        result.headers.append(name, value)
    return result


def add_cookies(response: Response, cookies: list[Cookie]) -> None:
    """Set ``cookies`` on a Starlette response."""
    for cookie in cookies:
        response.headers.append("Set-Cookie", cookie.serialize())
