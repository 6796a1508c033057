"""What a request says about its client and its public URL, and which of it to believe.

``X-Forwarded-For``, ``X-Forwarded-Host`` and ``X-Forwarded-Proto`` are read only when the
configuration says how many proxies stand in front of the app (``trusted_proxies``,
``AUTH_TRUSTED_PROXIES``); otherwise the address the server saw is the client's, and the
``Host`` header and the server's scheme make the URL. Each proxy appends to these headers,
so with ``n`` trusted proxies the value to believe is the ``n``-th from the right (as
Werkzeug's ``ProxyFix`` counts): whatever a client wrote further left is ignored, and a
header with fewer entries than proxies is not believed at all.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from authui.errors import InvalidHost
from authui.http import Headers, Request

_NOT_IN_HOST = re.compile(r"[/?#@\\\s]")
_PATH_START = re.compile(r"[/?#]")


def forwarded(headers: Mapping[str, str], name: str, proxies: int) -> str | None:
    """The entry of the comma-separated header ``name`` that the outermost of ``proxies``
    trusted proxies wrote (every occurrence of the header read, in order); ``None`` when no
    proxy is trusted, or the header is absent or has fewer entries than that."""
    if proxies < 1:
        return None
    if isinstance(headers, Headers):
        values = headers.get_all(name)
    else:
        value = headers.get(name)
        values = [] if value is None else [value]
    entries = [entry.strip() for value in values for entry in value.split(",")]
    if len(entries) < proxies:
        return None
    return entries[-proxies] or None


def client_address(request: Request, proxies: int) -> str | None:
    """The client's IP address: with ``proxies`` trusted proxies (``trusted_proxies``),
    the ``X-Forwarded-For`` entry the outermost of them added; else (or when that entry is
    missing) the address the server saw."""
    return forwarded(request.headers, "x-forwarded-for", proxies) or request.client


def public_url(url: str, headers: Mapping[str, str], proxies: int) -> str:
    """``url`` (the request's URL as the server saw it) with the scheme and host the
    outermost of ``proxies`` trusted proxies wrote in ``X-Forwarded-Proto`` and
    ``X-Forwarded-Host``; unchanged without trusted proxies or those headers. Whether
    the result's host is valid and trusted is ``authui.hosts.request_origin``'s to say.

    Raises:
        InvalidHost: The forwarded host holds a path, a user name or spaces.
    """
    if proxies < 1:
        return url
    host = forwarded(headers, "x-forwarded-host", proxies)
    proto = forwarded(headers, "x-forwarded-proto", proxies)
    if host is None and proto is None:
        return url
    if host is not None and _NOT_IN_HOST.search(host):
        raise InvalidHost(f"X-Forwarded-Host {host[:100]!r} is not a host")
    scheme, _, rest = url.partition("://")
    found = _PATH_START.search(rest)
    authority, path = (rest[: found.start()], rest[found.start() :]) if found else (rest, "")
    return f"{(proto or scheme).lower()}://{host or authority}{path}"
