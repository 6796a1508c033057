"""Framework-free HTTP messages: what integrations hand to ``authui.Auth`` and get back.

A ``Request`` is the method, absolute URL, headers and raw body of one HTTP request;
its parsed parts (query, cookies, form or JSON body) are derived on demand. A
``Response`` is a status, a header list (``Set-Cookie`` may repeat) and a body.
``InternalResponse`` is the unserialised result returned with ``AuthConfig(raw=raw)``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, overload
from urllib.parse import parse_qsl, unquote, urlsplit

from authui.cookies import Cookie

JSONValue = Any
_T = TypeVar("_T")
_Owner = TypeVar("_Owner")
JSON_TYPE = ("Content-Type", "application/json")
"""The ``Content-Type`` header of a JSON answer."""

NO_CACHE = (
    ("Cache-Control", "private, no-cache, no-store"),
    ("Expires", "0"),
    ("Pragma", "no-cache"),
)
"""The headers of an answer no cache may keep (the session, the CSRF token)."""


class BadRequestBody(ValueError):
    """The body cannot be read as its ``Content-Type`` says (bad UTF-8, bad JSON)."""


class Headers(Mapping[str, str]):
    """Case-insensitive, multi-valued HTTP headers. ``headers[name]`` is the first value."""

    __slots__ = ("_items",)

    def __init__(self, items: Iterable[tuple[str, str]] | Mapping[str, str] = ()):
        pairs = items.items() if isinstance(items, Mapping) else items
        self._items: tuple[tuple[str, str], ...] = tuple((k.lower(), v) for k, v in pairs)

    @classmethod
    def lower_case(cls, items: Iterable[tuple[str, str]]) -> Headers:
        """Headers whose names are in lower case already (as ASGI gives them)."""
        headers = cls.__new__(cls)
        headers._items = tuple(items)
        return headers

    def __getitem__(self, name: str) -> str:
        key = name.lower()
        for k, v in self._items:
            if k == key:
                return v
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        key = name.lower()
        return any(k == key for k, _ in self._items)

    @overload
    def get(self, name: str, /) -> str | None: ...
    @overload
    def get(self, name: str, /, default: str | _T) -> str | _T: ...
    def get(self, name: str, /, default: object = None) -> object:
        """The first value of ``name``, or ``default`` (no exception raised and caught, as
        ``Mapping.get`` would: this runs on every request)."""
        key = name.lower()
        for k, v in self._items:
            if k == key:
                return v
        return default

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(k for k, _ in self._items))

    def __len__(self) -> int:
        return len(set(k for k, _ in self._items))

    def get_all(self, name: str) -> list[str]:
        """Every value of ``name``, in order."""
        key = name.lower()
        return [v for k, v in self._items if k == key]

    def items_all(self) -> tuple[tuple[str, str], ...]:
        """Every (lower-cased name, value) pair, in order."""
        return self._items

    def __repr__(self) -> str:
        return f"Headers({list(self._items)!r})"


def parse_cookie_header(header: str) -> dict[str, str]:
    """Parse a ``Cookie`` header as browsers send it.

    The first occurrence of a name wins and values are percent-decoded, as in Auth.js; a
    value that does not decode (bad ``%`` sequence, not UTF-8) is kept as it is.
    Parsing is lenient like browsers and Starlette (``http.cookies`` drops every cookie after
    the first one it dislikes, which would lose sessions to one odd third-party cookie).
    """
    cookies: dict[str, str] = {}
    for part in header.split(";"):
        name, sep, value = part.partition("=")
        name = name.strip()
        if not sep or not name or name in cookies:
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        cookies[name] = _decode_cookie_value(value)
    return cookies


_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


def _has_lone_surrogate(data: object) -> bool:
    """Whether decoded JSON holds a string that cannot be encoded as UTF-8."""
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


_BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")


def _percent_decoded(value: str) -> str | None:
    """Percent-decode like ``decodeURIComponent``; ``None`` where it would throw."""
    if "%" not in value:
        return value
    if _BAD_PERCENT.search(value):
        return None
    try:
        return unquote(value, errors="strict")
    except UnicodeDecodeError:
        return None


def _decode_cookie_value(value: str) -> str:
    """Percent-decode like ``decodeURIComponent``; a value it would refuse stays as it is."""
    decoded = _percent_decoded(value)
    return value if decoded is None else decoded


class _Derived(Generic[_Owner, _T]):
    """A request's part computed on first read and kept in the instance (as
    ``functools.cached_property``, without the lock Python 3.11 takes on every first read:
    0.8 µs each, for the two or three parts every request reads)."""

    def __init__(self, compute: Callable[[_Owner], _T]) -> None:
        self._compute = compute
        self._name = compute.__name__
        self.__doc__ = compute.__doc__

    @overload
    def __get__(self, instance: None, owner: type[_Owner]) -> _Derived[_Owner, _T]: ...
    @overload
    def __get__(self, instance: _Owner, owner: type[_Owner]) -> _T: ...
    def __get__(self, instance: _Owner | None, owner: type[_Owner]) -> _T | _Derived[_Owner, _T]:
        if instance is None:
            return self
        value = self._compute(instance)
        instance.__dict__[self._name] = value  # read from there from now on
        return value


@dataclass(frozen=True)
class Request:
    """An HTTP request as authui sees it.

    Args:
        method: The HTTP method, any case.
        url: The absolute URL the client asked for, as the integration reconstructed it
            (scheme, host and path; behind a proxy, the public ones).
        headers: The request headers.
        body: The raw body bytes.
        client: The client's IP address as the server saw it (``None`` when unknown); the
            email limits count by it.
    """

    method: str
    url: str
    headers: Headers = field(default_factory=Headers)
    body: bytes = b""
    client: str | None = None

    def __post_init__(self) -> None:
        if not self.method.isupper():
            object.__setattr__(self, "method", self.method.upper())

    @classmethod
    def build(
        cls,
        method: str,
        url: str,
        *,
        headers: Iterable[tuple[str, str]] | Mapping[str, str] = (),
        body: bytes | str = b"",
        client: str | None = None,
    ) -> Request:
        """Make a request from plain values (a convenience for integrations and tests)."""
        raw = body.encode() if isinstance(body, str) else body
        return cls(method, url, Headers(headers), raw, client)

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")

    @_Derived
    def query(self) -> dict[str, str]:
        """The query string as a dict; for a repeated key the last value wins."""
        if "?" not in self.url:
            return {}
        return dict(parse_qsl(urlsplit(self.url).query, keep_blank_values=True))

    @_Derived
    def cookies(self) -> dict[str, str]:
        """Cookies from the ``Cookie`` header(s); for a repeated name the first wins."""
        return parse_cookie_header("; ".join(self.headers.get_all("cookie")))

    @_Derived
    def bearer_token(self) -> str | None:
        """The token of an ``Authorization: Bearer <token>`` header, percent-decoded as
        ``getToken`` of ``@auth/core/jwt`` reads it; ``None`` without one, or when it does
        not decode."""
        scheme, _, value = self.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not value.strip():
            return None
        return _percent_decoded(value.strip())

    def form(self) -> dict[str, JSONValue]:
        """The body of a POST as a dict.

        JSON bodies (``application/json``) and URL-encoded forms are read; other content
        types give an empty dict, as in Auth.js.

        Raises:
            BadRequestBody: The body is not valid UTF-8, not valid JSON, or JSON that is not
                an object.
        """
        if self.method != "POST" or not self.body:
            return {}
        content_type = self.content_type.lower()
        if "application/json" in content_type:
            text = self._text()
            try:
                data = json.loads(text)
            except (ValueError, RecursionError) as exc:
                raise BadRequestBody("The request body is not valid JSON.") from exc
            if not isinstance(data, dict):
                raise BadRequestBody("The JSON request body must be an object.")
            if _SURROGATE.search(text) and _has_lone_surrogate(data):
                raise BadRequestBody("The JSON request body holds invalid Unicode.")
            return data
        if "application/x-www-form-urlencoded" in content_type:
            return dict(parse_qsl(self._text(), keep_blank_values=True))
        return {}

    def _text(self) -> str:
        try:
            return self.body.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadRequestBody("The request body is not valid UTF-8.") from exc


@dataclass(slots=True)
class InternalResponse:
    """The unserialised answer of an action (what ``AuthConfig(raw=raw)`` returns).

    ``redirect`` is a URL to send the browser to; otherwise ``body`` is JSON-able data or
    HTML text, with ``headers`` saying which.
    """

    status: int = 200
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: JSONValue = None
    redirect: str | None = None
    cookies: list[Cookie] = field(default_factory=list)

    @classmethod
    def json(
        cls,
        status: int,
        data: JSONValue,
        headers: Iterable[tuple[str, str]] = (),
        cookies: Iterable[Cookie] = (),
    ) -> InternalResponse:
        """A JSON answer: ``data`` with ``Content-Type: application/json``."""
        return cls(status, [JSON_TYPE, *headers], data, cookies=list(cookies))


@dataclass(slots=True)
class Response:
    """An HTTP response: status, headers (``Set-Cookie`` may repeat) and body bytes."""

    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""

    @classmethod
    def json(
        cls, status: int, data: JSONValue, headers: Iterable[tuple[str, str]] = ()
    ) -> Response:
        """A JSON response, serialised compactly like ``JSON.stringify``."""
        body = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()
        return cls(status, [*headers, JSON_TYPE], body)

    def header(self, name: str) -> str | None:
        """The first value of a header, or ``None``."""
        key = name.lower()
        return next((v for k, v in self.headers if k.lower() == key), None)

    def header_all(self, name: str) -> list[str]:
        """Every value of a header, in order."""
        key = name.lower()
        return [v for k, v in self.headers if k.lower() == key]

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")

    def data(self) -> JSONValue:
        """The body parsed as JSON."""
        return json.loads(self.body)


def wants_page(accept: str | None, content_type: str | None) -> bool:
    """Whether the caller is a browser loading a page: it accepts HTML and sends no JSON
    (given its ``Accept`` and ``Content-Type`` headers)."""
    if "json" in (content_type or "").lower():
        return False
    return "text/html" in (accept or "").lower()
