"""The session check's one query, run on the database driver's own connection.

A database session check is one query: the session row and its user, by the session token
(``lookup_statement``). It is built with SQLAlchemy, like every other statement, and
compiled once by the engine's dialect; only the way it is run differs. Through
SQLAlchemy's ``AsyncConnection`` a read costs about 270 µs of CPU on PostgreSQL (a
connection object, an execution context, a result, and several switches between
greenlets, which cost more the deeper the stack they leave), against about 40 µs for
asyncpg's own ``fetchrow`` on the same kind of connection. So ``session_read`` runs the
compiled statement, for the checks that wait at the same time together (``… IN (…)``,
``authui.adapters.read_batches``):

- **PostgreSQL (asyncpg)**: on a connection kept for it
  (``authui.adapters.sql.driver_lane``), with asyncpg's ``fetch``, which prepares each
  statement once per connection and keeps it. No transaction: one round trip.
- **MariaDB/MySQL (asyncmy)**: on a lane connection too, with a cursor; the connection is
  in autocommit mode, so a read leaves no snapshot behind and the next one sees what was
  written since: one round trip.
- **SQLite, a file**: with the standard library's ``sqlite3`` on the event loop's own
  thread. An indexed read of a few cached pages takes microseconds, less than one hand-off
  to aiosqlite's thread; the checks that arrive within two turns of the event loop
  (``GATHER_TURNS``) are read in one query. The connection is read-only and never waits
  for a lock: while a writer holds one, that read goes through the engine, which waits
  for it in its thread.
- **Anything else** (another driver, SQLite in memory, a URL with query options): through
  the engine, as every other single read.

Nothing is kept between calls but connections: each check reads the row as it is now.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar, Protocol

from sqlalchemy import Select, bindparam, select
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncEngine

from authui.adapters.read_batches import GATHER_TURNS, ROUND_TRIPS, ReadBatches
from authui.adapters.sql.driver_lane import Driver, DriverLane
from authui.adapters.sql.records import row_positions
from authui.adapters.sql.schema import Tables

Row = Sequence[Any]
"""The session's columns, then the user's, as the driver or SQLAlchemy gives them."""
RowRead = Callable[[str], Awaitable[Row | None]]
"""A read of the session check's row by session token."""
DriverFetch = Callable[[Any, str, list[str]], Awaitable[list[Row]]]
"""Run ``sql`` with the tokens on the driver's connection: the rows found."""


def lookup_statement(tables: Tables, count: int | None = None) -> Select[Any]:
    """The session check's query: the session (its columns first) and its user by
    ``:token``; with a ``count``, the sessions of ``count`` tokens (``:t0`` … in an
    ``IN``), for checks read together."""
    sessions, users = tables.sessions, tables.users
    token = sessions.c.session_token
    where = (
        token == bindparam("token")
        if count is None
        else token.in_([bindparam(f"t{n}") for n in range(count)])
    )
    return select(sessions, users).join(users, users.c.id == sessions.c.user_id).where(where)


class SessionRead(Protocol):
    """How an adapter reads the session check's row; ``aclose`` releases what it holds."""

    way: ClassVar[str]
    """Which of the module docstring's ways this is, in words."""

    async def __call__(self, token: str) -> Row | None: ...

    async def aclose(self) -> None: ...


class _ThroughEngine:
    way: ClassVar[str] = "through the engine"

    def __init__(self, through_engine: RowRead) -> None:
        self._through_engine = through_engine

    async def __call__(self, token: str) -> Row | None:
        return await self._through_engine(token)

    async def aclose(self) -> None:
        """Nothing is kept: the engine's pool is the adapter's to close."""


async def _asyncpg_fetch(connection: Any, sql: str, tokens: list[str]) -> list[Row]:
    rows: list[Row] = await connection.fetch(sql, *tokens)
    return rows


async def _asyncmy_fetch(connection: Any, sql: str, tokens: list[str]) -> list[Row]:
    async with connection.cursor() as cursor:
        await cursor.execute(sql, tokens)
        rows: list[Row] = await cursor.fetchall()
        return rows


async def _nothing_to_prepare(connection: Any) -> None:
    """asyncpg runs statements outside a transaction unless asked."""


async def _autocommit(connection: Any) -> None:
    await connection.autocommit(True)


_DRIVERS: dict[str, tuple[Driver, DriverFetch]] = {
    "asyncpg": (
        Driver(_nothing_to_prepare, lambda c: bool(c.is_closed()), lambda c: c.terminate()),
        _asyncpg_fetch,
    ),
    "asyncmy": (
        Driver(_autocommit, lambda c: not c.connected, lambda c: c.close()),
        _asyncmy_fetch,
    ),
}
"""The drivers whose connections run the session check in a ``DriverLane``."""


class _Queries:
    """The session check's query for one token or several, compiled by the engine's
    dialect once per count, and the rows it returns by session token."""

    def __init__(self, tables: Tables, dialect: Dialect) -> None:
        self._tables = tables
        self._dialect = dialect
        self._token_at = row_positions(tables.sessions, tables.users)["session_token"]
        self._sql: dict[int, str] = {}

    def sql(self, count: int) -> str:
        found = self._sql.get(count)
        if found is None:
            statement = lookup_statement(self._tables, count)
            found = self._sql[count] = str(statement.compile(dialect=self._dialect))
        return found

    def by_token(self, rows: Sequence[Row]) -> dict[str, Row]:
        at = self._token_at
        return {row[at]: row for row in rows}


class _InDriverLane:
    """PostgreSQL and MariaDB/MySQL: on a lane connection, through the driver, the checks
    waiting at the same time in one query (``authui.adapters.read_batches``)."""

    way: ClassVar[str] = "on the driver's connection"

    def __init__(
        self, engine: AsyncEngine, queries: _Queries, driver: Driver, fetch: DriverFetch
    ) -> None:
        self._lane = DriverLane(engine, driver, size=ROUND_TRIPS)
        self._batches = ReadBatches(self._read_many)
        self._queries = queries
        self._fetch = fetch

    async def __call__(self, token: str) -> Row | None:
        return await self._batches.read(token)

    async def _read_many(self, tokens: list[str]) -> dict[str, Row]:
        sql, fetch = self._queries.sql(len(tokens)), self._fetch
        rows = await self._lane.run(lambda connection: fetch(connection, sql, tokens))
        return self._queries.by_token(rows)

    async def aclose(self) -> None:
        await self._lane.aclose()


class _OnTheLoop:
    """SQLite: ``sqlite3`` on the event loop's thread, read-only, without waiting for
    locks, the checks that arrive within ``GATHER_TURNS`` of the loop in one query; a read
    that meets a lock (or any other SQLite error) goes through the engine, which waits, or
    raises the error as every other call does."""

    way: ClassVar[str] = "with sqlite3 on the event loop"

    def __init__(self, path: str, queries: _Queries, through_engine: RowRead) -> None:
        self._uri = Path(path).absolute().as_uri() + "?mode=ro"
        self._queries = queries
        self._through_engine = through_engine
        self._connection: sqlite3.Connection | None = None
        self._batches = ReadBatches(self._read_many, gather=GATHER_TURNS)

    async def __call__(self, token: str) -> Row | None:
        return await self._batches.read(token)

    async def _read_many(self, tokens: list[str]) -> dict[str, Row]:
        try:
            if self._connection is None:
                self._connection = sqlite3.connect(
                    self._uri, uri=True, timeout=0, isolation_level=None, check_same_thread=False
                )
            # fetchall() steps the statement to its end, which releases the read lock.
            rows = self._connection.execute(self._queries.sql(len(tokens)), tokens).fetchall()
        except sqlite3.Error:
            through = [(token, await self._through_engine(token)) for token in tokens]
            return {token: row for token, row in through if row is not None}
        return self._queries.by_token(rows)

    async def aclose(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


def session_read(engine: AsyncEngine, tables: Tables, through_engine: RowRead) -> SessionRead:
    """The fastest way this engine offers to run the session check's query
    (``lookup_statement``); ``through_engine`` is the way through SQLAlchemy, for the cases
    listed in the module's docstring."""
    url = engine.url
    driver = url.get_driver_name()
    queries = _Queries(tables, engine.dialect)
    if driver in _DRIVERS:
        return _InDriverLane(engine, queries, *_DRIVERS[driver])
    if driver in ("aiosqlite", "pysqlite") and _is_file(url.database) and not url.query:
        return _OnTheLoop(str(url.database), queries, through_engine)
    return _ThroughEngine(through_engine)


def _is_file(database: str | None) -> bool:
    return bool(database) and database != ":memory:" and not str(database).startswith("file:")
