"""Which hosts authui answers for: what a valid host is, and the allow-list of trusted hosts.

A host is a DNS name (labels of letters, digits and ``-``, each 1 to 63 characters, 253 in
all, an optional final dot) or an IP address (IPv6 in brackets), with an optional port from
1 to 65535. The ``Host`` a client sends must be ASCII, as HTTP requires (browsers send
internationalised names as ``xn--`` labels); the names in URLs and in the allow-list may be
Unicode and are compared in their ``xn--`` (IDNA) form.

An allow-list entry (``AuthConfig.trusted_hosts``, ``AUTH_TRUSTED_HOSTS``) is, as in
Django's ``ALLOWED_HOSTS``:

- ``example.com``: that host, on any port;
- ``.example.com``: that host and every subdomain of it;
- ``example.com:8443`` (or ``.example.com:8443``, ``[::1]:8000``): only on that port (a
  request without a port is on its scheme's default port, 80 or 443).

Names are compared case-insensitively, without a final dot.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from functools import lru_cache

import idna

from authui.errors import InvalidHost

DEFAULT_PORTS = {"http": 80, "https": 443}
_NAME = re.compile(r"(?:[a-z0-9-]{1,63}\.)*[a-z0-9-]{1,63}\.?")
_PORT = re.compile(r"[0-9]{1,5}")
_AUTHORITY_END = re.compile(r"[/?#]")
_SHOWN = 100
"""How much of a refused host goes into the log message."""


def split_host(authority: str, *, unicode: bool = False) -> tuple[str, int | None]:
    """The host (lower-case, IPv6 in brackets, Unicode names as ``xn--`` labels) and the
    port of ``host[:port]``.

    Args:
        authority: The ``Host`` header value, or a URL's host and port.
        unicode: Accept Unicode names (in URLs and the allow-list); a ``Host`` header
            must be ASCII.

    Raises:
        ValueError: Not a valid host, or a port outside 1-65535.
    """
    if authority.startswith("["):
        end = authority.find("]")
        host, rest = authority[: end + 1], authority[end + 1 :]
        if end < 0 or "%" in host:
            raise ValueError("not an IPv6 address in brackets")
        host = f"[{ipaddress.IPv6Address(host[1:-1]).compressed}]"
        if rest and not rest.startswith(":"):
            raise ValueError("characters after the IPv6 address")
        port_text = rest[1:] if rest else None
    else:
        host, colon, port_text_ = authority.partition(":")
        port_text = port_text_ if colon else None
        host = _name(host, unicode=unicode)
    if port_text is None:
        return host, None
    if not _PORT.fullmatch(port_text) or not 0 < int(port_text) < 65536:
        raise ValueError("the port is not a number from 1 to 65535")
    return host, int(port_text)


def _name(name: str, *, unicode: bool) -> str:
    if not name.isascii():
        if not unicode:
            raise ValueError("a Host header is ASCII (xn-- labels for other names)")
        try:
            name = idna.encode(name, uts46=True).decode("ascii")
        except idna.IDNAError as exc:
            raise ValueError(f"not an internationalised domain name: {exc}") from None
    name = name.lower()
    if not name:
        raise ValueError("it is empty")
    if not _NAME.fullmatch(name) or len(name.rstrip(".")) > 253:
        raise ValueError("not a host name: labels of letters, digits and '-', 1-63 each")
    return name


def origin(scheme: str, host: str, port: int | None) -> str:
    """``scheme://host[:port]``, the port left out when it is the scheme's default."""
    shown = port is not None and port != DEFAULT_PORTS.get(scheme)
    return f"{scheme}://{host}" + (f":{port}" if shown else "")


@dataclass(frozen=True, slots=True)
class HostRule:
    """One allow-list entry, parsed."""

    name: str
    """The host, lower-case, in ``xn--`` form, without a final dot (IPv6 in brackets)."""
    port: int | None
    """The only port allowed; ``None``: any."""
    subdomains: bool
    """The entry began with a dot: subdomains are allowed too."""

    def allows(self, name: str, port: int) -> bool:
        """Whether a request to ``name`` (as ``name`` here) on ``port`` matches."""
        if self.port is not None and port != self.port:
            return False
        return name == self.name or (self.subdomains and name.endswith("." + self.name))


@lru_cache(maxsize=64)
def host_rules(entries: tuple[str, ...]) -> tuple[HostRule, ...]:
    """The allow-list ``entries`` parsed (see the module's description).

    Raises:
        ValueError: An entry is not a host (a URL, a path, a bad name or port); the
            message names it.
    """
    rules: list[HostRule] = []
    for entry in entries:
        text = entry.strip()
        subdomains = text.startswith(".")
        try:
            if "/" in text or "@" in text:
                raise ValueError("list host names (example.com), not URLs")
            host, port = split_host(text[1:] if subdomains else text, unicode=True)
            if subdomains and host.startswith("["):
                raise ValueError("an IP address has no subdomains")
        except ValueError as exc:
            raise ValueError(f"{entry!r} is not a host: {exc}") from None
        rules.append(HostRule(host.rstrip("."), port, subdomains))
    return tuple(rules)


@lru_cache(maxsize=256)
def request_origin(url: str, rules: tuple[HostRule, ...] = ()) -> str:
    """The origin of a request's URL, whose host is what the client sent: a valid ASCII
    host and, when there is an allow-list, one on it.

    Every request asks it, mostly of the same few URLs: the last 256 answers are kept
    (a refusal is not).

    Raises:
        InvalidHost: The scheme is not http(s), or the host is invalid or not allowed.
    """
    scheme, _, rest = url.partition("://")
    return _checked_origin(scheme, _AUTHORITY_END.split(rest, maxsplit=1)[0], rules)


@lru_cache(maxsize=256)
def _checked_origin(scheme: str, authority: str, rules: tuple[HostRule, ...]) -> str:
    """``request_origin`` of a scheme and host; every request asks it of the same few, so
    the last 256 answers are kept (a refusal is not)."""
    try:
        if scheme not in DEFAULT_PORTS:
            raise ValueError("the scheme is not http or https")
        if "@" in authority:
            raise ValueError("a host has no user name")
        host, port = split_host(authority)
    except ValueError as exc:
        shown = authority[:_SHOWN]
        raise InvalidHost(f"The request's host {shown!r} is not valid: {exc}") from None
    name = host.rstrip(".")
    if rules and not any(r.allows(name, port or DEFAULT_PORTS[scheme]) for r in rules):
        raise InvalidHost(
            f"The request's host {authority[:_SHOWN]!r} is not in trusted_hosts "
            "(AUTH_TRUSTED_HOSTS)"
        )
    return origin(scheme, host, port)
