"""``SQLStore``: what every part of ``SQLAlchemyAdapter`` stands on: the engine, its pool
and its time limits, the tables, their creation, the adapter's transactions and single
reads, and user ids as the tables keep them."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import Row, Table, delete, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import NullPool, SingletonThreadPool, StaticPool

from authui.adapters.base import ClosedOnExit
from authui.adapters.sql.naming import SQLNaming
from authui.adapters.sql.presence import Survey, survey
from authui.adapters.sql.schema import IdType, Tables, build_tables
from authui.adapters.sql.schema_lock import schema_transaction
from authui.adapters.sql.session_reads import Row as SessionRow
from authui.adapters.sql.session_reads import SessionRead, lookup_statement, session_read

_SWEEP_SECONDS = 60.0  # how often one adapter deletes a table's expired rows
_MAX_INTEGER_ID = 2**31 - 1  # Auth.js's SERIAL is a 32-bit integer

#: Pool settings for server databases when the adapter creates the engine: at most 15
#: connections per process, opened as needed and then kept (an overflow connection would be
#: closed at every return and opened again, a new server process each time on PostgreSQL);
#: a request finding all 15 busy waits up to 30 s for one. Connections are recycled before
#: MariaDB's or a proxy's idle timeout.
DEFAULT_POOL_OPTIONS: Mapping[str, Any] = {
    "pool_size": 15,
    "max_overflow": 0,
    "pool_timeout": 30,
    "pool_recycle": 1800,
    "pool_pre_ping": True,
}

#: The time limits of server databases when the adapter creates the engine, in seconds: to
#: connect, and for each statement. A server that stops answering (a network partition
#: drops packets rather than refusing them) is then an outage within seconds, answered
#: with 503, instead of a request that hangs.
CONNECT_TIMEOUT = 5
STATEMENT_TIMEOUT = 10

#: Each driver's connect arguments for ``(CONNECT_TIMEOUT, STATEMENT_TIMEOUT)``: asyncpg's
#: ``command_timeout`` bounds each statement; asyncmy's ``read_timeout`` each wait for an
#: answer.
TIMEOUT_ARGUMENTS: Mapping[str, tuple[str, str]] = {
    "asyncpg": ("timeout", "command_timeout"),
    "asyncmy": ("connect_timeout", "read_timeout"),
}

# Options that only a pool of kept connections takes (not the schema engine's NullPool).
_POOL_SIZING = frozenset(
    {"poolclass", "pool_size", "max_overflow", "pool_timeout", "pool_use_lifo"}
)


def _skip_closed(dbapi_connection: Any, record: Any, proxy: Any) -> None:
    """Pool checkout on asyncpg: a connection the server closed while it sat in the pool
    (a restart, an idle timeout) is already marked closed by the driver, so the pool is
    told to take another, without the round trip a pre-ping costs on every checkout."""
    driver = getattr(dbapi_connection, "driver_connection", None)
    is_closed = getattr(driver, "is_closed", None)
    if callable(is_closed) and is_closed():
        raise DisconnectionError("the server closed this pooled connection")


def engine_options_for(url: URL, given: Mapping[str, Any] | None) -> dict[str, Any]:
    """What ``create_async_engine`` gets for ``url``: ``DEFAULT_POOL_OPTIONS`` for a server
    database, ``hide_parameters`` (bound values, session tokens among them, stay out of
    exception messages), the driver's time limits (``TIMEOUT_ARGUMENTS``) in
    ``connect_args``, then ``given``. A time limit set in ``given["connect_args"]`` or in
    the URL's query wins over the default."""
    driver = url.get_driver_name()
    options: dict[str, Any] = (
        {} if url.get_backend_name() == "sqlite" else dict(DEFAULT_POOL_OPTIONS)
    )
    options["hide_parameters"] = True
    if driver == "asyncpg":  # a dead connection is known without a ping: see _skip_closed
        options["pool_pre_ping"] = False
    options.update(given or {})
    if driver in TIMEOUT_ARGUMENTS:
        connect, statement = TIMEOUT_ARGUMENTS[driver]
        limits = {connect: CONNECT_TIMEOUT, statement: STATEMENT_TIMEOUT}
        defaults = {name: value for name, value in limits.items() if name not in url.query}
        options["connect_args"] = defaults | dict(options.get("connect_args") or {})
    return options


def without_statement_limit(url: URL, options: Mapping[str, Any]) -> tuple[URL, dict[str, Any]]:
    """``url`` and ``options`` (from ``engine_options_for``) for the engine of schema
    changes: no pool of kept connections, and no per-statement time limit (waiting for
    another process's schema change, or building an index on a large table, may take
    longer); the connect limit stays."""
    statement = TIMEOUT_ARGUMENTS[url.get_driver_name()][1]
    unlimited = {k: v for k, v in options.items() if k not in _POOL_SIZING}
    connect_args = {k: v for k, v in options["connect_args"].items() if k != statement}
    unlimited |= {"poolclass": NullPool, "connect_args": connect_args}
    return url.difference_update_query([statement]), unlimited


class SQLStore(ClosedOnExit):
    """The engine, the tables and how the adapter talks to them; ``SQLAlchemyAdapter``
    documents the arguments."""

    def __init__(
        self,
        database: str | URL | AsyncEngine,
        *,
        naming: SQLNaming | None = None,
        id_type: IdType | None = None,
        engine_options: Mapping[str, Any] | None = None,
    ) -> None:
        if id_type not in ("text", "integer", None):
            raise ValueError(f"id_type must be 'text', 'integer' or None, not {id_type!r}")
        # Schema changes run on an engine without the statement limit, made when needed.
        self._unlimited: tuple[URL, dict[str, Any]] | None = None
        self._schema_engine: AsyncEngine | None = None
        if isinstance(database, AsyncEngine):
            if engine_options:
                raise TypeError("engine_options apply only when the adapter creates the engine")
            self.engine = database
            self._owns_engine = False
        else:
            url = make_url(database)
            options = engine_options_for(url, engine_options)
            self.engine = create_async_engine(url, **options)
            if url.get_driver_name() == "asyncpg" and not options["pool_pre_ping"]:
                event.listen(self.engine.sync_engine, "checkout", _skip_closed)
            if url.get_driver_name() in TIMEOUT_ARGUMENTS:
                self._unlimited = without_statement_limit(url, options)
            self._owns_engine = True
        # Single reads run outside a transaction: on a server database that saves the BEGIN
        # and ROLLBACK round trips. SQLite's driver begins no transaction for a read, and
        # switching its isolation level would cost two trips to aiosqlite's thread.
        sqlite = self.engine.dialect.name == "sqlite"
        self._reader = (
            self.engine if sqlite else self.engine.execution_options(isolation_level="AUTOCOMMIT")
        )
        self.naming = naming or SQLNaming()
        self._given_id_type = id_type
        self.id_type: IdType = id_type or "text"
        self.tables: Tables = build_tables(self.naming, self.id_type)
        self.survey: Survey | None = None  # what prepare() found
        self._preparing = asyncio.Lock()
        # A pool of one shared connection (SQLite in memory) can't hold two transactions.
        single = isinstance(self.engine.pool, StaticPool | SingletonThreadPool)
        self._serial: asyncio.Lock | None = asyncio.Lock() if single else None
        self._next_sweeps: dict[str, float] = {}  # table name -> when to sweep it (monotonic)
        self._session_read: SessionRead | None = None  # made at the first session check

    # -- lifecycle -----------------------------------------------------------------------

    async def prepare(self) -> Survey:
        """Learn the database, once: which of the adapter's tables it has, and, with
        ``id_type=None``, how ``users.id`` holds ids (an empty database gets text ids).
        authui calls it before its first call; methods needing a table the database lacks
        are then ``unavailable``, as if the adapter had none.

        Raises:
            ValueError: The given ``id_type`` is not how ``users.id`` holds ids.
        """
        if self.survey is not None:
            return self.survey
        async with self._preparing:
            if self.survey is None:
                async with self._serially(), self.engine.connect() as conn:
                    found = await conn.run_sync(survey, self.tables)
                built = self._session_read
                self._learn(found)
                if built is not None and self._session_read is None:
                    await built.aclose()
                self.survey = found
        return self.survey

    def _learn(self, found: Survey) -> None:
        if found.id_type is None or found.id_type == self.id_type:
            return
        if self._given_id_type is not None:
            raise ValueError(
                f"{self.tables.users.name}.id holds {found.id_type} ids, but the adapter's "
                f"id_type is {self._given_id_type!r}: leave id_type out to follow the "
                "database"
            )
        self.id_type = found.id_type
        self.tables = build_tables(self.naming, found.id_type)
        self._session_read = None  # its statement was built from the tables

    def unavailable(self, method: str) -> str | None:
        """Why ``method`` cannot run on this database (tables it lacks, and the command
        that adds them); ``None`` when it can, or before ``prepare``."""
        missing = self.survey.lacks(method) if self.survey is not None else ()
        if not missing:
            return None
        names = ", ".join(getattr(self.tables, name).name for name in missing)
        shown = self.engine.url.render_as_string(hide_password=True)
        return (
            f"the database lacks the table(s) {names}: `authui db init --adopt --url "
            f"{shown}` adds authui's tables and leaves Auth.js's as they are"
        )

    def _present(self, *tables: Table) -> list[Table]:
        """Those of ``tables`` the database has (all of them before ``prepare``)."""
        absent = self.survey.absent if self.survey is not None else frozenset()
        names = {getattr(self.tables, field).name for field in absent}
        return [table for table in tables if table.name not in names]

    async def create_all(self) -> None:
        """Create the tables and indexes that don't exist yet (the schema must exist).

        For tests, quick starts and ``authui db init``; tables that exist are left as
        they are, so it is safe on a database an Auth.js app already uses. It looks and
        creates under the schema lock (``authui.adapters.sql.schema_lock``), so any
        number of processes may call it at once on a new database.
        """
        async with self.schema_transaction() as conn:
            await conn.run_sync(self.tables.metadata.create_all)

    async def drop_all(self) -> None:
        """Drop the adapter's tables, with everything in them."""
        async with self.schema_transaction() as conn:
            await conn.run_sync(self.tables.metadata.drop_all)

    async def close(self) -> None:
        """Close the pool's connections, if the adapter created the engine."""
        if self._session_read is not None:
            await self._session_read.aclose()
            self._session_read = None
        if self._schema_engine is not None:
            await self._schema_engine.dispose()
        if self._owns_engine:
            await self.engine.dispose()

    # -- transactions and reads ----------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _serially(self) -> AsyncIterator[None]:
        """Wait for the other calls when the pool is one shared connection."""
        if self._serial is None:
            yield
        else:
            async with self._serial:
                yield

    @contextlib.asynccontextmanager
    async def schema_transaction(self) -> AsyncIterator[AsyncConnection]:
        """A transaction in which no other process changes the adapter's tables
        (``authui.adapters.sql.schema_lock``), for ``create_all``, ``drop_all`` and the
        migrations. Its statements have no time limit (``STATEMENT_TIMEOUT`` is for the
        adapter's calls): it may wait for another process's schema change, or build an
        index on a large table."""
        try:
            async with (
                self._serially(),
                schema_transaction(self._engine_for_schema(), self.naming.schema) as conn,
            ):
                yield conn
        finally:
            self.survey = None  # the tables may have changed: prepare() looks again

    def _engine_for_schema(self) -> AsyncEngine:
        if self._unlimited is None:
            return self.engine
        if self._schema_engine is None:
            url, options = self._unlimited
            self._schema_engine = create_async_engine(url, **options)
        return self._schema_engine

    @contextlib.asynccontextmanager
    async def _transaction(self) -> AsyncIterator[AsyncConnection]:
        async with self._serially(), self.engine.begin() as conn:
            yield conn

    async def _first(self, query: Any, params: Mapping[str, Any] | None = None) -> Row[Any] | None:
        """One row of a single read: no transaction around it (one round trip, not three)."""
        async with self._serially(), self._reader.connect() as conn:
            return (await conn.execute(query, params)).first()

    @property
    def session_read(self) -> SessionRead:
        """How this adapter runs the session check's one query: on the driver's own
        connection where the engine allows it, else through the engine
        (``authui.adapters.sql.session_reads``; its ``way`` says which)."""
        if self._session_read is None:
            statement = lookup_statement(self.tables)

            async def through_engine(token: str) -> SessionRow | None:
                return await self._first(statement, {"token": token})

            self._session_read = session_read(self.engine, self.tables, through_engine)
        return self._session_read

    async def _sweep(self, table: Table, until: datetime, *, column: str = "expires") -> None:
        """Delete ``table``'s rows whose ``column`` is ``until`` or earlier (through its
        index), in a transaction of their own, unless this adapter did so less than a
        minute ago."""
        if time.monotonic() < self._next_sweeps.get(table.name, 0.0):
            return
        self._next_sweeps[table.name] = time.monotonic() + _SWEEP_SECONDS
        async with self._transaction() as conn:
            await conn.execute(delete(table).where(table.c[column] <= until))

    # -- user ids ------------------------------------------------------------------------

    def _user_key(self, user_id: str) -> str | int | None:
        """The ``users.id`` value for ``user_id``; ``None`` if no row can have it."""
        if self.id_type == "text":
            return user_id
        if user_id.isascii() and user_id.isdigit() and int(user_id) <= _MAX_INTEGER_ID:
            return int(user_id)
        return None

    def _user_ref(self, user_id: str) -> str | int:
        """The ``users.id`` value for ``user_id``, to be written.

        Raises:
            ValueError: ``user_id`` is no integer (``id_type="integer"``).
        """
        key = self._user_key(user_id)
        if key is None:
            raise ValueError(f"user id {user_id!r} is not an integer (id_type='integer')")
        return key
