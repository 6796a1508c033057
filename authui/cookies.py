"""Cookies: names, prefixes, attributes, serialisation and session-cookie chunking.

Names and attributes match Auth.js so that both stacks read each other's cookies: in secure
mode (HTTPS) names get the ``__Secure-`` prefix, and the CSRF cookie ``__Host-``. Values are
percent-encoded like JavaScript's ``encodeURIComponent``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from email.utils import format_datetime
from functools import lru_cache
from typing import Literal
from urllib.parse import quote

SameSite = Literal["lax", "strict", "none"]

CHUNK_SIZE = 4096 - 160
"""Characters of value per session-cookie chunk (Auth.js: 4096 minus an estimated 160)."""

CHECK_MAX_AGE = 15 * 60
"""Lifetime of the short-lived check cookies (state, PKCE, nonce, WebAuthn challenge)."""

LAST_USED_MAX_AGE = 365 * 24 * 60 * 60
"""Lifetime of the last-used-provider cookie: a year, renewed by each sign-in."""

CookieKey = Literal[
    "session_token",
    "callback_url",
    "csrf_token",
    "pkce_code_verifier",
    "state",
    "nonce",
    "webauthn_challenge",
    "last_used",
    "federated",
    "logout_state",
    "refresh_error",
    "step_up",
    "known_browser",
    "mfa_pending",
    "mfa_enrolment",
    "trusted_browser",
    "locale",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class CookieAttributes:
    """The attributes of a cookie (everything but its name and value)."""

    http_only: bool = True
    same_site: SameSite = "lax"
    path: str = "/"
    secure: bool = False
    domain: str | None = None
    max_age: int | None = None
    expires: datetime | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CookieOption:
    """One entry of the cookie table: the name and attributes authui gives a cookie."""

    name: str
    options: CookieAttributes = field(default_factory=CookieAttributes)


@dataclass(frozen=True, slots=True, kw_only=True)
class CookieOverride:
    """A user's override of one cookie (``AuthConfig(cookies={"session_token": …})``).

    Fields left as ``None`` keep authui's default.
    """

    name: str | None = None
    http_only: bool | None = None
    same_site: SameSite | None = None
    path: str | None = None
    secure: bool | None = None
    domain: str | None = None
    max_age: int | None = None


@dataclass(frozen=True, slots=True)
class Cookie:
    """A cookie to set (or, with ``max_age=0`` and an empty value, to delete)."""

    name: str
    value: str
    options: CookieAttributes = field(default_factory=CookieAttributes)

    def serialize(self) -> str:
        """The ``Set-Cookie`` header value, attributes in the order Auth.js writes them."""
        return f"{self.name}={encode_uri_component(self.value)}{_attributes(self.options)}"


@lru_cache(maxsize=64)
def _attributes(o: CookieAttributes) -> str:
    """``; Max-Age=…; Path=/; HttpOnly; …`` for a set of attributes (few sets recur, so
    the last ones are kept)."""
    parts = [""]
    if o.max_age is not None:
        parts.append(f"Max-Age={o.max_age}")
    if o.domain:
        parts.append(f"Domain={o.domain}")
    if o.path:
        parts.append(f"Path={o.path}")
    if o.expires is not None:
        expires = o.expires if o.expires.tzinfo else o.expires.replace(tzinfo=UTC)
        parts.append(f"Expires={format_datetime(expires.astimezone(UTC), usegmt=True)}")
    if o.http_only:
        parts.append("HttpOnly")
    if o.secure:
        parts.append("Secure")
    if o.same_site:
        parts.append(f"SameSite={o.same_site.capitalize()}")
    return "; ".join(parts)


_URI_COMPONENT_SAFE = "-_.!~*'()"
_ASCII_SAFE = bytes(c for c in range(128) if chr(c).isalnum() or chr(c) in _URI_COMPONENT_SAFE)
_ASCII_ESCAPES = {chr(code): f"%{code:02X}" for code in range(128)}


def encode_uri_component(value: str) -> str:
    """Percent-encode ``value`` like JavaScript's ``encodeURIComponent``."""
    if not value.isascii():
        return quote(value, safe=_URI_COMPONENT_SAFE)
    unsafe = value.encode("ascii").translate(None, _ASCII_SAFE)
    if not unsafe:
        return value  # the common case of tokens and ids
    # Few distinct characters to escape (a CSRF cookie's "|", a URL's ":/"): each is
    # replaced throughout at once, "%" first as the other escapes bring their own.
    chars = set(unsafe.decode("ascii"))
    if "%" in chars:
        chars.discard("%")
        value = value.replace("%", "%25")
    for char in chars:
        value = value.replace(char, _ASCII_ESCAPES[char])
    return value


@dataclass(frozen=True, slots=True)
class CookieTable:
    """The resolved cookie table of one configuration in one security mode."""

    session_token: CookieOption
    callback_url: CookieOption
    csrf_token: CookieOption
    pkce_code_verifier: CookieOption
    state: CookieOption
    nonce: CookieOption
    webauthn_challenge: CookieOption
    last_used: CookieOption
    federated: CookieOption
    logout_state: CookieOption
    refresh_error: CookieOption
    step_up: CookieOption
    known_browser: CookieOption
    mfa_pending: CookieOption
    mfa_enrolment: CookieOption
    trusted_browser: CookieOption
    locale: CookieOption

    def get(self, key: CookieKey) -> CookieOption:
        option: CookieOption = getattr(self, key)
        return option


_BASE_NAMES: dict[CookieKey, str] = {
    "session_token": "authjs.session-token",
    "callback_url": "authjs.callback-url",
    "csrf_token": "authjs.csrf-token",
    "pkce_code_verifier": "authjs.pkce.code_verifier",
    "state": "authjs.state",
    "nonce": "authjs.nonce",
    "webauthn_challenge": "authjs.challenge",
    "last_used": "authui.last-used",
    "federated": "authui.federated",
    "logout_state": "authui.logout-state",
    "refresh_error": "authui.refresh-error",
    "step_up": "authui.step-up",
    "known_browser": "authui.known-browser",
    "mfa_pending": "authui.mfa-pending",
    "mfa_enrolment": "authui.mfa-enrolment",
    "trusted_browser": "authui.trusted-browser",
    "locale": "authui.locale",
}
"""Auth.js's names, and authui's own: ``authui.last-used`` (the provider this browser last
signed in with, which the sign-in page marks), ``authui.federated`` (sealed: what signing
out of a ``federated_logout`` provider needs, kept as long as a session),
``authui.logout-state`` (sealed: the ``state`` of that sign-out's round trip through the
provider) and ``authui.refresh-error`` (the provider whose tokens could not be refreshed:
the session then says ``error: "RefreshTokenError"``), ``authui.step-up`` (sealed: the user
a step-up sign-in must be, while the account center asks for one) and
``authui.known-browser`` (sealed: the users who signed in with this browser, for the notice
of a sign-in from a new browser), ``authui.mfa-pending`` (sealed, possibly in chunks: a
sign-in waiting for its second factor), ``authui.mfa-enrolment`` (sealed: the secret of an
authenticator app being set up, until a code confirms it) and ``authui.trusted-browser``
(sealed: the users who chose not to be asked for a second factor in this browser) and
``authui.locale`` (the language picked with the pages' language menu). Auth.js has none of
them."""

_DEFAULT_MAX_AGE: dict[CookieKey, int] = {
    "pkce_code_verifier": CHECK_MAX_AGE,
    "state": CHECK_MAX_AGE,
    "webauthn_challenge": CHECK_MAX_AGE,
    "last_used": LAST_USED_MAX_AGE,
    "logout_state": CHECK_MAX_AGE,
    "refresh_error": LAST_USED_MAX_AGE,
    "step_up": CHECK_MAX_AGE,
    "mfa_pending": CHECK_MAX_AGE,
    "mfa_enrolment": CHECK_MAX_AGE,
    "locale": LAST_USED_MAX_AGE,
}
"""Lifetimes set by the table; ``federated`` gets the session's ``max_age`` when it is set
(unless overridden here)."""


def default_cookies(secure: bool) -> CookieTable:
    """The Auth.js cookie table for secure (HTTPS) or plain mode."""
    prefix = "__Secure-" if secure else ""
    options: dict[str, CookieOption] = {}
    for key, base in _BASE_NAMES.items():
        name_prefix = "__Host-" if secure and key == "csrf_token" else prefix
        options[key] = CookieOption(
            name=f"{name_prefix}{base}",
            options=CookieAttributes(secure=secure, max_age=_DEFAULT_MAX_AGE.get(key)),
        )
    return CookieTable(**options)


def cookie_table(secure: bool, overrides: Mapping[str, CookieOverride]) -> CookieTable:
    """The default table with the user's overrides merged over it.

    Raises:
        ValueError: An override names a cookie key that does not exist.
    """
    table = default_cookies(secure)
    unknown = set(overrides) - set(_BASE_NAMES)
    if unknown:
        raise ValueError(
            f"Unknown cookie keys {sorted(unknown)}; known keys: {sorted(_BASE_NAMES)}"
        )
    merged: dict[str, CookieOption] = {}
    for key in _BASE_NAMES:
        current = table.get(key)
        override = overrides.get(key)
        if override is None:
            merged[key] = current
            continue
        changes = {
            name: getattr(override, name)
            for name in ("http_only", "same_site", "path", "secure", "domain", "max_age")
            if getattr(override, name) is not None
        }
        merged[key] = CookieOption(
            name=override.name or current.name,
            options=replace(current.options, **changes),
        )
    return CookieTable(**merged)


def deletion(name: str, options: CookieAttributes) -> Cookie:
    """The cookie that deletes ``name``: empty, ``Max-Age=0``, same path and domain."""
    return Cookie(name, "", replace(options, max_age=0, expires=None))


_CHUNK_SUFFIX = re.compile(r"\.([0-9]{1,4})$")
"""A chunk's index; four digits allow 40 MB of session, far past what browsers keep."""


@dataclass(frozen=True, slots=True)
class SessionChunks:
    """Reads and writes a cookie value that may be split over ``<name>.0``, ``<name>.1``, …

    The chunk cookies present in the request are remembered, so that writing a shorter
    value (or clearing) also deletes the stale ones.
    """

    option: CookieOption
    present: dict[str, str]

    @classmethod
    def from_request(cls, option: CookieOption, cookies: Mapping[str, str]) -> SessionChunks:
        """Collect the plain cookie and its numbered chunks; other names are ignored."""
        name = option.name
        present = {
            k: v
            for k, v in cookies.items()
            if v and k.startswith(name) and (k == name or _CHUNK_SUFFIX.fullmatch(k[len(name) :]))
        }
        return cls(option, present)

    @property
    def value(self) -> str | None:
        """The whole value (chunks joined in order), or ``None`` when there is none."""
        if not self.present:
            return None
        if self.option.name in self.present and len(self.present) == 1:
            return self.present[self.option.name]
        chunks = sorted(
            (int(m.group(1)), v)
            for k, v in self.present.items()
            if (m := _CHUNK_SUFFIX.search(k)) and k != self.option.name
        )
        return "".join(v for _, v in chunks)

    def write(self, value: str, expires: datetime | None = None) -> list[Cookie]:
        """Cookies that store ``value``, deleting every chunk that no longer belongs."""
        options = replace(self.option.options, expires=expires)
        count = math.ceil(len(value) / CHUNK_SIZE)
        if count == 0:
            new: list[Cookie] = []
        elif count == 1:
            new = [Cookie(self.option.name, value, options)]
        else:
            new = [
                Cookie(
                    f"{self.option.name}.{i}", value[i * CHUNK_SIZE : (i + 1) * CHUNK_SIZE], options
                )
                for i in range(count)
            ]
        written = {c.name for c in new}
        stale = [deletion(k, self.option.options) for k in self.present if k not in written]
        return [*stale, *new]

    def clear(self) -> list[Cookie]:
        """Cookies that delete every chunk seen in the request."""
        names = self.present or {self.option.name: ""}
        return [deletion(k, self.option.options) for k in names]
