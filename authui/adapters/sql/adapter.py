"""``SQLAlchemyAdapter``: every adapter method, and authui's ``increment_rate_limit``, over
SQLAlchemy 2's async engine."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import AsyncIterator, Mapping
from datetime import datetime
from types import TracebackType
from typing import Any, Self

from sqlalchemy import Row, Select, Table, bindparam, delete, event, insert, select, update
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import SingletonThreadPool, StaticPool
from sqlalchemy.sql.expression import ColumnElement

from authui.adapters.base import (
    AdapterAccount,
    AdapterAuthenticator,
    AdapterSession,
    AdapterUser,
    RateLimitWindow,
    UserChanges,
    VerificationToken,
)
from authui.adapters.sql.naming import SQLNaming
from authui.adapters.sql.rate_limits import count_event, delete_ended
from authui.adapters.sql.records import (
    account_from,
    authenticator_from,
    session_from,
    token_from,
    user_from,
    values_of,
)
from authui.adapters.sql.schema import MAX_RATE_LIMIT_KEY, IdType, Tables, build_tables

_MAX_INTEGER_ID = 2**31 - 1  # Auth.js's SERIAL is a 32-bit integer
_RATE_LIMIT_SWEEP_SECONDS = 60.0  # how often one adapter deletes the rows of ended windows
_USER_FIELDS = frozenset(UserChanges.__annotations__)

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


def _skip_closed(dbapi_connection: Any, record: Any, proxy: Any) -> None:
    """Pool checkout on asyncpg: a connection the server closed while it sat in the pool
    (a restart, an idle timeout) is already marked closed by the driver, so the pool is
    told to take another, without the round trip a pre-ping costs on every checkout."""
    driver = getattr(dbapi_connection, "driver_connection", None)
    is_closed = getattr(driver, "is_closed", None)
    if callable(is_closed) and is_closed():
        raise DisconnectionError("the server closed this pooled connection")


class SQLAlchemyAdapter:
    """Users, accounts, database sessions, sign-in tokens and passkeys in a SQL database,
    in the Auth.js SQL schema by default.

    Args:
        database: A database URL for SQLAlchemy's async drivers
            (``sqlite+aiosqlite:///auth.db``, ``postgresql+asyncpg://…``,
            ``mysql+asyncmy://…``), or an ``AsyncEngine`` the application already has
            (the adapter then shares its pool and never disposes of it).
        naming: Table names, column names and schema; Auth.js's by default.
        id_type: ``"text"`` (the default) stores user ids as given: authui makes uuids,
            and Auth.js setups with string ids (Prisma, Drizzle, Kysely) read the same.
            ``"integer"`` is Auth.js's PostgreSQL schema, ``users.id SERIAL``: the
            database numbers new users, ``create_user`` returns the user with that id (as a
            string), and an id that is not a number finds nothing.
        engine_options: Keyword arguments for ``create_async_engine`` when the adapter
            creates the engine; they override ``DEFAULT_POOL_OPTIONS``.

    Create the tables with ``await adapter.create_all()`` (or a migration tool, with
    ``adapter.tables.metadata``), and close the adapter with ``await adapter.close()`` or
    ``async with``. Every method is one transaction; ``use_verification_token`` and
    ``unlink_account`` use ``DELETE … RETURNING`` where the database has it and a
    ``DELETE`` whose row count decides elsewhere, so a token is handed out once.

    ``increment_rate_limit`` (an authui extension) counts in the ``rate_limits`` table,
    which ``create_all`` makes and ``authui db upgrade`` adds to an older database
    (version 3).
    """

    def __init__(
        self,
        database: str | URL | AsyncEngine,
        *,
        naming: SQLNaming | None = None,
        id_type: IdType = "text",
        engine_options: Mapping[str, Any] | None = None,
    ) -> None:
        if id_type not in ("text", "integer"):
            raise ValueError(f"id_type must be 'text' or 'integer', not {id_type!r}")
        if isinstance(database, AsyncEngine):
            if engine_options:
                raise TypeError("engine_options apply only when the adapter creates the engine")
            self.engine = database
            self._owns_engine = False
        else:
            url = make_url(database)
            options = {} if url.get_backend_name() == "sqlite" else dict(DEFAULT_POOL_OPTIONS)
            asyncpg = url.get_driver_name() == "asyncpg"
            if asyncpg:  # a dead connection is known without a ping: see _skip_closed
                options["pool_pre_ping"] = False
            options.update(engine_options or {})
            self.engine = create_async_engine(url, **options)
            if asyncpg and not options["pool_pre_ping"]:
                event.listen(self.engine.sync_engine, "checkout", _skip_closed)
            self._owns_engine = True
        # Single reads run outside a transaction: on a server database that saves the BEGIN
        # and ROLLBACK round trips. SQLite's driver begins no transaction for a read, and
        # switching its isolation level would cost two trips to aiosqlite's thread.
        sqlite = self.engine.dialect.name == "sqlite"
        self._reader = (
            self.engine if sqlite else self.engine.execution_options(isolation_level="AUTOCOMMIT")
        )
        self.naming = naming or SQLNaming()
        self.id_type: IdType = id_type
        self.tables: Tables = build_tables(self.naming, id_type)
        self._session_lookup = _session_lookup(self.tables)
        # A pool of one shared connection (SQLite in memory) can't hold two transactions.
        single = isinstance(self.engine.pool, StaticPool | SingletonThreadPool)
        self._serial: asyncio.Lock | None = asyncio.Lock() if single else None
        self._next_rate_limit_sweep = 0.0  # time.monotonic(): the first count sweeps

    # -- lifecycle -----------------------------------------------------------------------

    async def create_all(self) -> None:
        """Create the tables and indexes that don't exist yet (the schema must exist).

        For tests, quick starts and ``authui db init``; tables that exist are left as
        they are, so it is safe on a database an Auth.js app already uses.
        """
        async with self._transaction() as conn:
            await conn.run_sync(self.tables.metadata.create_all)

    async def drop_all(self) -> None:
        """Drop the adapter's tables, with everything in them."""
        async with self._transaction() as conn:
            await conn.run_sync(self.tables.metadata.drop_all)

    async def close(self) -> None:
        """Close the pool's connections, if the adapter created the engine."""
        if self._owns_engine:
            await self.engine.dispose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    # -- users ---------------------------------------------------------------------------

    async def create_user(self, user: AdapterUser) -> AdapterUser:
        """Insert ``user``; with integer ids the database's id replaces ``user.id``."""
        async with self._transaction() as conn:
            return await self._insert_user(conn, user)

    async def create_user_and_session(
        self, user: AdapterUser, session_token: str, expires: datetime
    ) -> tuple[AdapterUser, AdapterSession]:
        """Insert a new user and its first session in one transaction: both or neither."""
        async with self._transaction() as conn:
            stored = await self._insert_user(conn, user)
            session = AdapterSession(
                session_token=session_token, user_id=stored.id, expires=expires
            )
            await self._insert_session(conn, session)
        return stored, session

    async def _insert_user(self, conn: AsyncConnection, user: AdapterUser) -> AdapterUser:
        values: dict[str, Any] = {
            "name": user.name,
            "email": user.email,
            "email_verified": user.email_verified,
            "image": user.image,
        }
        if self.id_type == "text":
            values["id"] = user.id
        result = await conn.execute(insert(self.tables.users).values(values))
        if self.id_type == "text":
            return user
        (new_id,) = result.inserted_primary_key or (None,)
        return dataclasses.replace(user, id=str(new_id))

    async def get_user(self, user_id: str) -> AdapterUser | None:
        """The user with ``user_id``, or ``None``."""
        users = self.tables.users
        key = self._user_key(user_id)
        if key is None:
            return None
        row = await self._first(select(users).where(users.c.id == key))
        return user_from(users, row) if row else None

    async def get_user_by_email(self, email: str) -> AdapterUser | None:
        """The user with ``email``, or ``None``."""
        users = self.tables.users
        row = await self._first(select(users).where(users.c.email == email))
        return user_from(users, row) if row else None

    async def get_user_by_account(
        self, provider: str, provider_account_id: str
    ) -> AdapterUser | None:
        """The user who linked the account ``provider_account_id`` at ``provider``."""
        users, accounts = self.tables.users, self.tables.accounts
        query = (
            select(users)
            .join(accounts, accounts.c.user_id == users.c.id)
            .where(
                accounts.c.provider == provider,
                accounts.c.provider_account_id == provider_account_id,
            )
        )
        row = await self._first(query)
        return user_from(users, row) if row else None

    async def update_user(self, user_id: str, changes: UserChanges) -> AdapterUser:
        """Apply ``changes`` and return the user.

        Raises:
            KeyError: There is no such user.
            TypeError: ``changes`` has a field users don't have.
        """
        unknown = set(changes) - _USER_FIELDS
        if unknown:
            raise TypeError(f"update_user: users have no field(s) {sorted(unknown)}")
        users = self.tables.users
        key = self._user_key(user_id)
        row = None
        if key is not None:
            async with self._transaction() as conn:
                where = users.c.id == key
                if changes:
                    row = await self._update_returning(conn, users, where, dict(changes))
                else:
                    row = (await conn.execute(select(users).where(where))).first()
        if row is None:
            raise KeyError(f"no user with id {user_id!r}")
        return user_from(users, row)

    async def delete_user(self, user_id: str) -> AdapterUser | None:
        """Delete the user with their sessions, accounts and passkeys, in one transaction."""
        key = self._user_key(user_id)
        if key is None:
            return None
        t = self.tables
        async with self._transaction() as conn:
            for table in (t.sessions, t.accounts, t.authenticators):
                await conn.execute(delete(table).where(table.c.user_id == key))
            row = await self._delete_returning(conn, t.users, t.users.c.id == key)
        return user_from(t.users, row) if row else None

    # -- accounts ------------------------------------------------------------------------

    async def link_account(self, account: AdapterAccount) -> AdapterAccount:
        """Insert ``account``."""
        values = values_of(account) | {"user_id": self._user_ref(account.user_id)}
        async with self._transaction() as conn:
            await conn.execute(insert(self.tables.accounts).values(values))
        return account

    async def unlink_account(
        self, provider: str, provider_account_id: str
    ) -> AdapterAccount | None:
        """Delete the account and return it, or ``None`` if there is none."""
        accounts = self.tables.accounts
        where = (accounts.c.provider == provider) & (
            accounts.c.provider_account_id == provider_account_id
        )
        async with self._transaction() as conn:
            row = await self._delete_returning(conn, accounts, where)
        return account_from(accounts, row) if row else None

    async def get_account(self, provider_account_id: str, provider: str) -> AdapterAccount | None:
        """The account ``provider_account_id`` at ``provider``, or ``None``."""
        accounts = self.tables.accounts
        query = select(accounts).where(
            accounts.c.provider == provider,
            accounts.c.provider_account_id == provider_account_id,
        )
        row = await self._first(query)
        return account_from(accounts, row) if row else None

    # -- sessions ------------------------------------------------------------------------

    async def create_session(self, session: AdapterSession) -> AdapterSession:
        """Insert ``session``."""
        async with self._transaction() as conn:
            await self._insert_session(conn, session)
        return session

    async def _insert_session(self, conn: AsyncConnection, session: AdapterSession) -> None:
        values = values_of(session) | {"user_id": self._user_ref(session.user_id)}
        await conn.execute(insert(self.tables.sessions).values(values))

    async def get_session_and_user(
        self, session_token: str
    ) -> tuple[AdapterSession, AdapterUser] | None:
        """The session and its user in one query, or ``None``."""
        row = await self._first(self._session_lookup, {"token": session_token})
        sessions, users = self.tables.sessions, self.tables.users
        return (session_from(sessions, row), user_from(users, row)) if row else None

    async def update_session(self, session_token: str, expires: datetime) -> AdapterSession | None:
        """Set the session's expiry; ``None`` if there is no such session."""
        sessions = self.tables.sessions
        async with self._transaction() as conn:
            where = sessions.c.session_token == session_token
            row = await self._update_returning(conn, sessions, where, {"expires": expires})
        return session_from(sessions, row) if row else None

    async def delete_session(self, session_token: str) -> AdapterSession | None:
        """Delete the session and return it, or ``None`` if there is none."""
        sessions = self.tables.sessions
        async with self._transaction() as conn:
            where = sessions.c.session_token == session_token
            row = await self._delete_returning(conn, sessions, where)
        return session_from(sessions, row) if row else None

    # -- verification tokens -------------------------------------------------------------

    async def create_verification_token(self, token: VerificationToken) -> VerificationToken:
        """Insert ``token``."""
        async with self._transaction() as conn:
            await conn.execute(insert(self.tables.verification_tokens).values(values_of(token)))
        return token

    async def use_verification_token(self, identifier: str, token: str) -> VerificationToken | None:
        """Delete the token and return it: of concurrent calls exactly one gets it."""
        tokens = self.tables.verification_tokens
        where = (tokens.c.identifier == identifier) & (tokens.c.token == token)
        async with self._transaction() as conn:
            row = await self._delete_returning(conn, tokens, where)
        return token_from(tokens, row) if row else None

    # -- authenticators ------------------------------------------------------------------

    async def get_authenticator(self, credential_id: str) -> AdapterAuthenticator | None:
        """The passkey with ``credential_id``, or ``None``."""
        authenticators = self.tables.authenticators
        query = select(authenticators).where(authenticators.c.credential_id == credential_id)
        row = await self._first(query)
        return authenticator_from(authenticators, row) if row else None

    async def create_authenticator(
        self, authenticator: AdapterAuthenticator
    ) -> AdapterAuthenticator:
        """Insert ``authenticator``."""
        values = values_of(authenticator) | {"user_id": self._user_ref(authenticator.user_id)}
        async with self._transaction() as conn:
            await conn.execute(insert(self.tables.authenticators).values(values))
        return authenticator

    async def list_authenticators_by_user_id(self, user_id: str) -> list[AdapterAuthenticator]:
        """The user's passkeys (``[]`` for none)."""
        authenticators = self.tables.authenticators
        key = self._user_key(user_id)
        if key is None:
            return []
        query = select(authenticators).where(authenticators.c.user_id == key)
        async with self._transaction() as conn:
            rows = (await conn.execute(query)).all()
        return [authenticator_from(authenticators, row) for row in rows]

    async def update_authenticator_counter(
        self, credential_id: str, counter: int
    ) -> AdapterAuthenticator:
        """Set the passkey's signature counter.

        Raises:
            KeyError: There is no passkey with ``credential_id``.
        """
        authenticators = self.tables.authenticators
        async with self._transaction() as conn:
            where = authenticators.c.credential_id == credential_id
            row = await self._update_returning(conn, authenticators, where, {"counter": counter})
        if row is None:
            raise KeyError(f"no authenticator with credential id {credential_id!r}")
        return authenticator_from(authenticators, row)

    # -- rate limits (an authui extension) -----------------------------------------------

    async def increment_rate_limit(self, key: str, window_seconds: int) -> int:
        """Count one event for ``key`` in the current window of ``window_seconds`` and
        return the window's count, this one included.

        One atomic upsert of the ``rate_limits`` row of ``(key, window_seconds, window)``
        (see ``authui.adapters.sql.rate_limits.count_event``). At most once a minute the
        adapter then deletes the rows of every window that has ended, in a transaction of
        its own.

        Raises:
            ValueError: ``window_seconds`` is not a positive integer, or ``key`` is longer
                than 255 characters.
        """
        window = RateLimitWindow.current(window_seconds)
        if len(key) > MAX_RATE_LIMIT_KEY:
            raise ValueError(f"rate limit keys have at most {MAX_RATE_LIMIT_KEY} characters")
        rate_limits = self.tables.rate_limits
        async with self._transaction() as conn:
            count = await count_event(conn, rate_limits, key, window)
        if time.monotonic() >= self._next_rate_limit_sweep:
            self._next_rate_limit_sweep = time.monotonic() + _RATE_LIMIT_SWEEP_SECONDS
            async with self._transaction() as conn:
                await conn.execute(delete_ended(rate_limits, window))
        return count

    # -- internals -----------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _transaction(self) -> AsyncIterator[AsyncConnection]:
        async with contextlib.AsyncExitStack() as stack:
            if self._serial is not None:
                await stack.enter_async_context(self._serial)
            yield await stack.enter_async_context(self.engine.begin())

    async def _first(self, query: Any, params: Mapping[str, Any] | None = None) -> Row[Any] | None:
        """One row of a single read: no transaction around it (one round trip, not three)."""
        async with contextlib.AsyncExitStack() as stack:
            if self._serial is not None:
                await stack.enter_async_context(self._serial)
            conn = await stack.enter_async_context(self._reader.connect())
            return (await conn.execute(query, params)).first()

    async def _update_returning(
        self, conn: AsyncConnection, table: Table, where: ColumnElement[bool], values: Any
    ) -> Row[Any] | None:
        statement = update(table).where(where).values(values)
        if conn.dialect.update_returning:
            return (await conn.execute(statement.returning(*table.c))).first()
        await conn.execute(statement)  # MariaDB: the row stays locked until the commit
        return (await conn.execute(select(table).where(where))).first()

    async def _delete_returning(
        self, conn: AsyncConnection, table: Table, where: ColumnElement[bool]
    ) -> Row[Any] | None:
        if conn.dialect.delete_returning:
            return (await conn.execute(delete(table).where(where).returning(*table.c))).first()
        row = (await conn.execute(select(table).where(where))).first()
        if row is None:
            return None
        deleted = await conn.execute(delete(table).where(where))
        return row if deleted.rowcount == 1 else None  # a concurrent call deleted it first

    def _user_key(self, user_id: str) -> str | int | None:
        """The ``users.id`` value for ``user_id``; ``None`` if no row can have it."""
        if self.id_type == "text":
            return user_id
        if user_id.isascii() and user_id.isdigit() and int(user_id) <= _MAX_INTEGER_ID:
            return int(user_id)
        return None

    def _user_ref(self, user_id: str) -> str | int:
        key = self._user_key(user_id)
        if key is None:
            raise ValueError(f"user id {user_id!r} is not an integer (id_type='integer')")
        return key


def _session_lookup(tables: Tables) -> Select[Any]:
    """The session check's query, built once (building it costs more than running it
    through SQLAlchemy's statement cache): a session and its user by ``:token``."""
    sessions, users = tables.sessions, tables.users
    return (
        select(sessions, users)
        .join(users, users.c.id == sessions.c.user_id)
        .where(sessions.c.session_token == bindparam("token"))
    )
