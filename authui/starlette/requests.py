"""Between ASGI / Starlette and authui's framework-free requests and responses."""

from __future__ import annotations

from starlette.requests import HTTPConnection
from starlette.responses import Response

from authui.cookies import Cookie
from authui.http import Request as CoreRequest
from authui.http import Response as CoreResponse
from authui.integrations.asgi import WEB_SCHEMES, host_error, plain_url, raw_url, scope_request


def url_of(connection: HTTPConnection) -> str:
    """The connection's absolute URL, mount prefix included (a WebSocket's with the
    ``http(s)`` scheme of its handshake). With an invalid ``Host`` header, that header as
    it came (Starlette would put the server's address in its place), for the core to
    refuse."""
    plain = plain_url(connection.scope)
    if plain is not None:
        return plain
    if host_error(connection.scope) is not None:
        return raw_url(connection.scope)  # for the core to refuse, not the server's address
    url = connection.url
    scheme = WEB_SCHEMES.get(url.scheme)
    return str(url.replace(scheme=scheme) if scheme else url)


def core_request(connection: HTTPConnection, body: bytes) -> CoreRequest:
    """An HTTP request (its body already read) as an authui request."""
    return scope_request(connection.scope, url_of(connection), body)


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
