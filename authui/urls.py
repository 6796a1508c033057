"""URLs: the public origin, action URLs, and which redirect targets are allowed."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Literal, TypeGuard, get_args
from urllib.parse import quote, urlencode, urlsplit

from authui.hosts import DEFAULT_PORTS, host_rules, origin, request_origin, split_host
from authui.proxies import public_url

AuthAction = Literal[
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
AUTH_ACTIONS: frozenset[str] = frozenset(get_args(AuthAction))
ACTIONS_WITH_PROVIDER = frozenset(
    {
        "signin",
        "callback",
        "webauthn-options",
        "signout",
        "backchannel-logout",
        "account",
        "password",
        "mfa",
    }
)
"""Actions whose path may name a provider (``/signout/<id>``: the return from a federated
sign-out; ``/backchannel-logout/<id>``: a provider's logout notice), or, for ``account``, a
page of the account center (``/account/sessions``), of the password pages
(``/password/forgot``) or of the second step (``/mfa/passkey-options``), read as
``Context.provider_id``."""


def is_auth_action(action: str) -> TypeGuard[AuthAction]:
    """Whether ``action`` is one of the actions authui serves."""
    return action in AUTH_ACTIONS


@lru_cache(maxsize=256)
def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of an absolute URL, lower-cased as browsers compare them,
    an internationalised name in its ``xn--`` form.

    Every request asks it of the same few URLs, so the last 256 answers are kept (as
    ``urlsplit`` keeps its own); a URL it refuses is not kept.

    Raises:
        ValueError: ``url`` is not an absolute http(s) URL with a valid host and port
            (see ``authui.hosts``).
    """
    # Browsers read "\\" as "/" in http(s) URLs; urlsplit does not.
    parts = urlsplit(url.replace("\\", "/"))
    if parts.scheme not in DEFAULT_PORTS:
        raise ValueError(f"not an absolute http(s) URL: {url!r}")
    host, port = split_host(parts.netloc.rpartition("@")[2], unicode=True)
    return origin(parts.scheme, host, port)


_URL_SAFE = "!#$%&'()*+,-./:;=?@[]~_"
_URL_AS_IT_IS = re.compile(r"[A-Za-z0-9!#$%&'()*+,\-./:;=?@\[\]~_]*")


def safe_url(url: str) -> str:
    """``url`` with spaces, control characters and non-ASCII percent-encoded, as browsers
    serialise URLs; existing ``%XX`` escapes stay. Safe to put in a ``Location`` header."""
    if _URL_AS_IT_IS.fullmatch(url):
        return url
    return quote(url, safe=_URL_SAFE, errors="replace")


def with_query(url: str, params: Mapping[str, str]) -> str:
    """``url`` with ``params`` added to its query string (after ``&`` when it has one)."""
    return url + ("&" if "?" in url else "?") + urlencode(params)


def is_valid_callback_url(value: str) -> bool:
    """Relative paths and absolute http(s) URLs are valid ``callbackUrl`` values."""
    if value.startswith("/"):
        return True
    try:
        origin_of(value)
    except ValueError:
        return False
    return True


def default_redirect(*, url: str, base_url: str, **_: Any) -> str:
    """Allow only targets on the site's own origin; anything else goes to ``base_url``.

    A path is joined to ``base_url``; ``//host`` and ``/\\host`` forms cannot escape,
    because the result always starts with the site's origin.
    """
    if url.startswith("/"):
        return base_url + url
    try:
        if origin_of(url) == origin_of(base_url):
            return url
    except ValueError:
        pass
    return base_url


def create_action_url(
    action: str,
    protocol: str | None,
    headers: Mapping[str, str],
    env: Mapping[str, str],
    config: Any,
) -> str:
    """The absolute URL of an action, as the server-side helpers need it.

    ``config.url``, else ``AUTH_URL`` (or the older ``NEXTAUTH_URL``), wins when set.
    Otherwise the origin is the request's: the ``Host`` header and ``protocol``, or
    ``X-Forwarded-Host``/``X-Forwarded-Proto`` as the proxies ``config.trusted_proxies``
    counts wrote them (see ``authui.proxies``; a client's forged header must not steer
    links). That host must be valid and, with ``config.trusted_hosts``, on the list.

    Args:
        action: The action name (``"signin"``, ``"session"``, …).
        protocol: ``"http"`` or ``"https"`` (with or without ``:``); default https.
        headers: The request headers (case-insensitive mapping).
        env: The environment, usually ``os.environ``.
        config: An ``AuthConfig`` (``url``, ``base_path``, ``trusted_hosts``,
            ``trusted_proxies`` and ``logger`` are read).

    Raises:
        InvalidHost: The request's host is invalid, or not in ``config.trusted_hosts``.
        ValueError: ``config.trusted_hosts`` has an entry that is no host.
    """
    base_path = (getattr(config, "base_path", None) or "").strip("/")
    env_url = getattr(config, "url", None) or env.get("AUTH_URL") or env.get("NEXTAUTH_URL")
    if env_url:
        parts = urlsplit(env_url)
        env_path = parts.path.strip("/")
        if base_path and env_path and env_path != base_path:
            logger = getattr(config, "logger", None)
            if logger is not None:
                logger.warn("env-url-basepath-mismatch")
        path = base_path if base_path else env_path
        origin = origin_of(env_url)
    else:
        scheme = (protocol or "https").rstrip(":")
        proxies = getattr(config, "trusted_proxies", 0)
        url = public_url(f"{scheme}://{headers.get('host') or ''}/", headers, proxies)
        rules = host_rules(tuple(getattr(config, "trusted_hosts", ())))
        origin = request_origin(url, rules)
        path = base_path
    return "/".join(p for p in (origin, path, action) if p)
