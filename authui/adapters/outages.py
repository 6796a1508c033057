"""An adapter call's failure: an outage of its data store, or an error of the call itself.

An outage is a store that cannot be reached or cannot serve now: a connection refused,
reset or timed out, a server shutting down or out of connections, a pool with no
connection to spare. authui answers it with 503 and ``Retry-After``
(``ServiceUnavailable``): the same request may succeed in a moment, and nothing about the
configuration is wrong. Any other failure (a uniqueness violation, a missing table, a bug
in an adapter) is an ``AdapterError``.

Drivers are recognised by the names of their exception classes (and MySQL's error
numbers, SQLite's result codes), so nothing here imports an optional package. A failure is
an outage when the exception, or one it was raised from or while handling, is one of them.

Both errors say what the driver said, without the values the call was given: drivers
quote them (MySQL's ``Duplicate entry '…'``, SQLAlchemy's ``[parameters: …]``), and they
are session tokens, token hashes and addresses. So the driver's exception is the error's
``__cause__`` only, not ``cause["err"]``, which loggers print; ``cause["method"]`` names
the adapter method.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any

from authui.errors import AdapterError, AuthError, ServiceUnavailable

OUTAGE_TYPES = frozenset(
    {
        "builtins.OSError",  # refused, reset, unreachable, timed out (TimeoutError), DNS
        "sqlalchemy.exc.TimeoutError",  # no pooled connection free within pool_timeout
        "sqlalchemy.exc.DisconnectionError",
        "redis.exceptions.ConnectionError",
        "redis.exceptions.TimeoutError",
        "asyncpg.exceptions.PostgresConnectionError",  # SQLSTATE class 08
        "asyncpg.exceptions.OperatorInterventionError",  # 57: shutting down, starting up
        "asyncpg.exceptions.InsufficientResourcesError",  # 53: out of connections, disk
    }
)
"""Exception classes (``module.QualName``, subclasses included) that mean an outage."""

NOT_OUTAGE_TYPES = frozenset(
    {
        "builtins.FileNotFoundError",  # an embedded database's path: configuration
        "builtins.FileExistsError",
        "builtins.IsADirectoryError",
        "builtins.NotADirectoryError",
        "builtins.PermissionError",
        "ssl.SSLCertVerificationError",
        "redis.exceptions.AuthenticationError",  # wrong credentials: configuration
        "redis.exceptions.AuthorizationError",
        "redis.exceptions.ExternalAuthProviderError",
    }
)
"""Subclasses of ``OUTAGE_TYPES`` that are not outages; the nearer class in the MRO wins."""

MYSQL_OUTAGE_CODES = frozenset({1040, 1053, 2002, 2003, 2005, 2006, 2013, 2055, 4031})
"""MySQL/MariaDB error numbers of outages: too many connections, shutdown in progress,
cannot connect, unknown host, server gone away, connection lost, disconnected by the server."""

MYSQL_DRIVERS = frozenset({"asyncmy", "aiomysql", "pymysql", "MySQLdb"})

SQLITE_OUTAGE_CODES = frozenset({5, 6})
"""SQLite's primary result codes of a database that cannot serve now: ``SQLITE_BUSY``
(another connection holds a lock past the busy timeout) and ``SQLITE_LOCKED``; the low
byte of an extended code (``SQLITE_BUSY_SNAPSHOT``, …)."""

_MESSAGE_LENGTH = 200
_DEEPEST = 10
_SHORTEST_REDACTED = 6
"""Values the call was given that are at least this long are blanked out of messages."""


def adapter_failure(exc: Exception, method: str, args: tuple[Any, ...]) -> AuthError:
    """The error to raise for ``exc``, raised by the adapter's ``method`` called with
    ``args``: ``ServiceUnavailable`` for an outage, else ``AdapterError``."""
    summary = _summary(exc, args)
    if is_outage(exc):
        message = f"The data store could not be reached ({summary})"
        return ServiceUnavailable(message, cause={"method": method})
    return AdapterError(f"The adapter failed ({summary})", cause={"method": method})


def is_outage(exc: BaseException) -> bool:
    """Whether ``exc`` says the data store could not be reached or cannot serve now."""
    return any(_is_outage_itself(e) for e in _chain(exc))


def _is_outage_itself(exc: BaseException) -> bool:
    if getattr(exc, "connection_invalidated", False) is True:
        return True  # SQLAlchemy: the dialect saw a disconnect
    for cls in type(exc).__mro__:
        name = f"{cls.__module__}.{cls.__qualname__}"
        if name in NOT_OUTAGE_TYPES:
            return False
        if name in OUTAGE_TYPES:
            return True
    driver = type(exc).__module__.partition(".")[0]
    if driver == "sqlite3":
        code = getattr(exc, "sqlite_errorcode", None)
        return isinstance(code, int) and code & 0xFF in SQLITE_OUTAGE_CODES
    code = exc.args[0] if exc.args else None
    return driver in MYSQL_DRIVERS and isinstance(code, int) and code in MYSQL_OUTAGE_CODES


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc``, then what it was raised from or while handling (``orig`` for SQLAlchemy)."""
    seen: set[int] = set()
    pending: list[BaseException] = [exc]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        linked = (current.__cause__, current.__context__, getattr(current, "orig", None))
        pending.extend(e for e in linked if isinstance(e, BaseException))


def _summary(exc: BaseException, args: tuple[Any, ...]) -> str:
    """The driver's own error (the innermost one ``exc`` was raised from) as ``Type:
    first line``, without the values in ``args``."""
    root = exc
    for _ in range(_DEEPEST):
        nested = root.__cause__ or getattr(root, "orig", None)
        if not isinstance(nested, BaseException):
            break
        root = nested
    text = str(root).partition("\n")[0]
    for value in sorted(set(_strings(args)), key=len, reverse=True):
        text = text.replace(value, "…")
    if len(text) > _MESSAGE_LENGTH:
        text = text[: _MESSAGE_LENGTH - 1] + "…"
    name = type(root).__name__
    return f"{name}: {text}" if text else name


def _strings(value: Any) -> Iterator[str]:
    """The strings in a call's arguments (records' fields, mappings, sequences)."""
    if isinstance(value, str):
        if len(value) >= _SHORTEST_REDACTED:
            yield value
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for item in dataclasses.fields(value):
            yield from _strings(getattr(value, item.name))
    elif isinstance(value, Mapping):  # update_account's changes: tokens
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from _strings(item)
