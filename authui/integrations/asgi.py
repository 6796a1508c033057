"""What every ASGI integration reads straight from the scope, without its framework's
request object (Starlette's ``URL``, werkzeug's IRI handling): the request URL of a plain
request, and the headers as text."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

WEB_SCHEMES = {"ws": "http", "wss": "https"}
"""A WebSocket's URL has the ``http(s)`` scheme of its handshake."""

_PLAIN_HOST = re.compile(r"[A-Za-z0-9.-]+(?::([0-9]{1,5}))?")
_PLAIN_PATH = re.compile(r"/(?!/)[A-Za-z0-9/._~!$&'()*+,;=:@-]*")
_PLAIN_QUERY = re.compile(rb"[A-Za-z0-9/._~!$&'()*+,;=:@?%-]*")
_DEFAULT_PORTS = {"http": "80", "https": "443"}


def plain_url(scope: Mapping[str, Any]) -> str | None:
    """The absolute URL of a request whose ``Host`` header, path and query need no
    validation, escaping or decoding; ``None`` for any other, which the framework's own
    URL reconstruction handles.

    For these requests every framework agrees on the URL: the scheme, the ``Host`` header
    (a name or IPv4 address, with a port that is not the scheme's default), the path, and
    the query string exactly as the client sent it.
    """
    scheme: str = scope.get("scheme", "http")
    scheme = WEB_SCHEMES.get(scheme, scheme)
    host = next((v for k, v in scope["headers"] if k == b"host"), None)
    if host is None:
        return None
    host_text = host.decode("latin-1")
    matched = _PLAIN_HOST.fullmatch(host_text)
    port = matched and matched.group(1)
    if matched is None or (port and (int(port) > 65535 or port == _DEFAULT_PORTS.get(scheme))):
        return None
    path: str = scope["path"]
    query: bytes = scope.get("query_string", b"")
    if not _PLAIN_PATH.fullmatch(path) or not _PLAIN_QUERY.fullmatch(query):
        return None
    url = f"{scheme}://{host_text}{path}"
    return f"{url}?{query.decode('ascii')}" if query else url


def text_headers(scope: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The request's headers as text (ASGI gives lower-cased names as bytes)."""
    return [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]


def client_host(scope: Mapping[str, Any]) -> str | None:
    """The client's address as the server saw it."""
    client = scope.get("client")
    return str(client[0]) if client else None
