"""Versioned schema management for the SQL adapter: ``authui db init``, ``upgrade``, ``status``.

The applied versions live in a table of their own, ``authui_schema`` by default (one row
per version: ``version``, ``description``, ``applied_at``), next to the adapter's tables
(in ``SQLNaming.schema``). ``MIGRATIONS`` is the ordered list of steps; version 1 is the
schema ``SQLAlchemyAdapter.create_all`` makes, and each later step changes a version-N
database into a version-N+1 one. Every step:

- runs in a transaction of its own, which also records its version, so a failed step
  leaves the database at the previous version (on PostgreSQL and SQLite; MariaDB/MySQL
  commit each DDL statement at once, which is why every step is also idempotent: it
  looks before it creates, and can simply be run again);
- runs under the schema lock (``authui.adapters.sql.schema_lock``), and checks the
  recorded version again once it has it, so that any number of processes may run
  ``init`` or ``upgrade`` at once: each step is applied, and recorded, once;
- only adds (tables, indexes, nullable columns): no step drops or rewrites a table, a
  column or a row, so upgrading never loses data.

Use it from Python with ``SchemaMigrator``::

    async with SQLAlchemyAdapter(url) as adapter:
        result = await SchemaMigrator(adapter).upgrade()

or from the command line with ``authui db init|upgrade|status --url URL``.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    Column,
    Connection,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    func,
    insert,
    inspect,
    select,
)
from sqlalchemy.engine import Inspector
from sqlalchemy.ext.asyncio import AsyncConnection

from authui.adapters.sql.adapter import SQLAlchemyAdapter
from authui.adapters.sql.naming import AUTHJS_COLUMNS
from authui.adapters.sql.schema import IdType, Tables, UTCDateTime, build_tables

#: The default name of the table holding the applied versions.
DEFAULT_VERSION_TABLE = "authui_schema"

#: Tables an existing database must have to be adopted (Auth.js's schema before passkeys
#: has no ``authenticators``; adopting creates it).
_REQUIRED_FOR_ADOPTION = ("users", "accounts", "sessions", "verification_token")

_MAX_IDENTIFIER = 60  # PostgreSQL keeps 63 characters of a name, MariaDB/MySQL allow 64

Step = Callable[[AsyncConnection, Tables], Awaitable[None]]
"""A migration step: given a connection in a transaction and the adapter's tables, change
the schema from the previous version to this one. It must only add, and must look before
it creates (see the module docstring)."""


class MigrationError(Exception):
    """The database is not in a state the command can work on; the message says why and
    what to do."""


@dataclass(frozen=True, slots=True)
class Migration:
    """One step of the schema's history: the version it makes and what it does."""

    version: int
    description: str
    apply: Step


async def _create_tables(conn: AsyncConnection, tables: Tables) -> None:
    """Version 1: the five Auth.js tables as ``SQLAlchemyAdapter.create_all`` makes them."""
    await conn.run_sync(tables.metadata.create_all, tables=list(tables.authjs))


async def _index_expiry_columns(conn: AsyncConnection, tables: Tables) -> None:
    """Version 2: indexes on ``sessions.expires`` and ``verification_token.expires``, for
    queries that delete what has expired."""
    for table in (tables.sessions, tables.verification_tokens):
        await conn.run_sync(_ensure_index, table, "expires")


async def _create_rate_limits(conn: AsyncConnection, tables: Tables) -> None:
    """Version 3: authui's ``rate_limits`` table, the counts of ``increment_rate_limit``
    (limits on sign-in emails), with its index on ``expires``."""
    await conn.run_sync(tables.rate_limits.create, checkfirst=True)
    await conn.run_sync(_ensure_index, tables.rate_limits, "expires")


async def _create_challenges(conn: AsyncConnection, tables: Tables) -> None:
    """Version 4: authui's ``authui_challenges`` table, the single-use WebAuthn challenges
    of ``create_challenge``, with its index on ``expires``."""
    await conn.run_sync(tables.challenges.create, checkfirst=True)
    await conn.run_sync(_ensure_index, tables.challenges, "expires")


#: Every version, in order; the last one is what ``init`` creates.
MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "create the Auth.js tables", _create_tables),
    Migration(
        2,
        "index sessions.expires and verification_token.expires for expiry cleanup",
        _index_expiry_columns,
    ),
    Migration(
        3,
        "create rate_limits, the shared counts of the limits on sign-in emails",
        _create_rate_limits,
    ),
    Migration(
        4,
        "create authui_challenges, the single-use WebAuthn challenges",
        _create_challenges,
    ),
)

#: The version ``init`` creates and ``upgrade`` reaches.
LATEST_VERSION = MIGRATIONS[-1].version


@dataclass(frozen=True, slots=True)
class SchemaStatus:
    """Where a database stands.

    Attributes:
        version: The version recorded in the version table; ``0`` when none is.
        latest: The latest version this authui knows.
        tables: The adapter's tables that exist, by their names in the database.
        pending: The steps ``upgrade`` would apply.
    """

    version: int
    latest: int
    tables: tuple[str, ...]
    pending: tuple[Migration, ...]

    @property
    def initialised(self) -> bool:
        """A version is recorded."""
        return self.version > 0

    @property
    def unversioned(self) -> bool:
        """The tables exist but no version is recorded (made by Auth.js or ``create_all``)."""
        return self.version == 0 and bool(self.tables)

    @property
    def up_to_date(self) -> bool:
        """The database is at the latest version."""
        return self.version == self.latest

    def describe(self) -> str:
        """One line saying where the database stands and what to do next."""
        if self.version > self.latest:
            return (
                f"at version {self.version}, newer than this authui knows (latest "
                f"{self.latest}): upgrade authui"
            )
        if self.unversioned:
            return (
                f"unversioned: the tables {', '.join(self.tables)} exist but no version is "
                "recorded; run `authui db init --adopt` to adopt them"
            )
        if not self.initialised:
            return "not initialised: no authui tables; run `authui db init`"
        if self.up_to_date:
            return f"up to date at version {self.version}"
        count = len(self.pending)
        return (
            f"at version {self.version} of {self.latest}: {count} migration"
            f"{'' if count == 1 else 's'} pending; run `authui db upgrade`"
        )


@dataclass(frozen=True, slots=True)
class MigrationResult:
    """What ``init`` or ``upgrade`` did.

    Attributes:
        before: The version before (``0``: none recorded).
        after: The version after.
        applied: The steps applied, in order.
        adopted: Existing tables were recorded as version 1.
        created_tables: Tables adopting created because they were missing.
    """

    before: int
    after: int
    applied: tuple[Migration, ...] = ()
    adopted: bool = False
    created_tables: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        """Anything was written."""
        return self.adopted or bool(self.applied)


class SchemaMigrator:
    """Creates, adopts and upgrades the adapter's tables, recording their version.

    Args:
        adapter: The adapter whose engine, naming and ``id_type`` to use.
        version_table: The name of the version table, in ``adapter.naming.schema``.
        migrations: The steps, versions 1, 2, … in order (``MIGRATIONS``).
    """

    def __init__(
        self,
        adapter: SQLAlchemyAdapter,
        *,
        version_table: str = DEFAULT_VERSION_TABLE,
        migrations: Sequence[Migration] = MIGRATIONS,
    ) -> None:
        versions = [migration.version for migration in migrations]
        if not versions or versions != list(range(1, len(versions) + 1)):
            raise ValueError(f"migrations must be versions 1, 2, … in order, not {versions}")
        self.adapter = adapter
        self.migrations = tuple(migrations)
        self.latest = versions[-1]
        self.version_table = Table(
            version_table,
            MetaData(schema=adapter.naming.schema),
            Column("version", Integer(), primary_key=True, autoincrement=False),
            Column("description", String(255), nullable=False),
            Column("applied_at", UTCDateTime(), nullable=False),
            mysql_engine="InnoDB",
            mysql_charset="utf8mb4",
        )

    async def status(self) -> SchemaStatus:
        """The recorded version, the tables that exist and the pending steps."""
        async with self.adapter.engine.connect() as conn:
            return await conn.run_sync(self._status)

    async def init(self, *, adopt: bool = False, target: int | None = None) -> MigrationResult:
        """Create the tables at the latest version (or ``target``) on a database without
        them; on an initialised database, do nothing.

        Args:
            adopt: When the tables exist but no version is recorded (an Auth.js app or
                ``create_all`` made them), check that they have every column the
                adapter uses and record them as version 1, creating ``authenticators``
                if it is missing. Then ``upgrade`` brings them to the latest version.
            target: Stop at this version (tests, staged rollouts).

        Raises:
            MigrationError: The tables exist unversioned and ``adopt`` is false, or they
                lack columns, or their user ids are not ``adapter.id_type``.
        """
        goal = self._target(target)
        status = await self.status()
        if status.initialised:
            return MigrationResult(status.version, status.version)
        async with self._locked_transaction() as conn:
            status = await conn.run_sync(self._status)  # again: another process may be first
            if status.initialised:
                return MigrationResult(status.version, status.version)
            if status.tables:
                if not adopt:
                    raise MigrationError(
                        f"the database already has authui tables ({', '.join(status.tables)})"
                        " but no recorded version; if an Auth.js app (or create_all) made "
                        "them, run `authui db init --adopt` to adopt them as version 1"
                    )
                created = await self._adopt(conn)
                return MigrationResult(0, 1, adopted=True, created_tables=created)
            first = self.migrations[0]
            await conn.run_sync(self.version_table.create, checkfirst=True)
            await self._apply(conn, first, self.adapter.tables)
        later = await self._run_from(first.version, goal, self.adapter.tables)
        return MigrationResult(0, goal, (first, *later.applied))

    async def upgrade(self, *, target: int | None = None) -> MigrationResult:
        """Apply the pending steps in order, each in its own transaction.

        Args:
            target: Stop at this version; the latest by default.

        Raises:
            MigrationError: No version is recorded, the database is newer than this
                authui, or ``target`` is below the current version.
        """
        status = await self.status()
        if not status.initialised:
            raise MigrationError(status.describe())
        if status.version > self.latest:
            raise MigrationError(f"the database is {status.describe()}")
        goal = self._target(target)
        if goal < status.version:
            raise MigrationError(
                f"the database is at version {status.version}; downgrading to {goal} is not "
                "supported"
            )
        async with self.adapter.engine.connect() as conn:
            id_type = await conn.run_sync(lambda sync: _users_id_type(inspect(sync), self._tables))
        tables = build_tables(self.adapter.naming, id_type or self.adapter.id_type)
        return await self._run_from(status.version, goal, tables)

    # -- internals -----------------------------------------------------------------------

    @property
    def _tables(self) -> Tables:
        return self.adapter.tables

    def _target(self, target: int | None) -> int:
        if target is None:
            return self.latest
        if not 1 <= target <= self.latest:
            raise MigrationError(f"no version {target}: versions are 1 to {self.latest}")
        return target

    def _status(self, conn: Connection) -> SchemaStatus:
        inspector = inspect(conn)
        schema = self.adapter.naming.schema
        if schema is not None and schema not in inspector.get_schema_names():
            raise MigrationError(f"the schema {schema!r} does not exist; create it first")
        tables = tuple(
            table.name
            for table in self._tables.metadata.sorted_tables
            if inspector.has_table(table.name, schema=schema)
        )
        version = (
            self._current_version(conn)
            if inspector.has_table(self.version_table.name, schema=schema)
            else 0
        )
        pending = tuple(m for m in self.migrations if m.version > version)
        return SchemaStatus(version, self.latest, tables, pending)

    def _current_version(self, conn: Connection) -> int:
        value = conn.execute(select(func.max(self.version_table.c.version))).scalar()
        return int(value or 0)

    async def _run_from(self, version: int, goal: int, tables: Tables) -> MigrationResult:
        applied: list[Migration] = []
        for migration in self.migrations[version:goal]:
            async with self._locked_transaction() as conn:
                if not await self._check_version(conn, migration.version - 1):
                    continue  # a concurrent upgrade applied it
                await self._apply(conn, migration, tables)
            applied.append(migration)
        return MigrationResult(version, goal, tuple(applied))

    def _locked_transaction(self) -> contextlib.AbstractAsyncContextManager[AsyncConnection]:
        """A transaction that no other process changing this database's schema runs beside
        (``authui.adapters.sql.schema_lock``)."""
        return self.adapter.schema_transaction()

    async def _check_version(self, conn: AsyncConnection, expected: int) -> bool:
        """In a locked transaction: whether the database is still at version ``expected``
        (``False``: a concurrent run passed it)."""
        current = await conn.run_sync(self._current_version)
        if current > expected:
            return False
        if current < expected:  # pragma: no cover - only if someone edits the table meanwhile
            raise MigrationError(f"expected version {expected}, found {current}")
        return True

    async def _apply(self, conn: AsyncConnection, migration: Migration, tables: Tables) -> None:
        await migration.apply(conn, tables)
        await self._record(conn, migration.version, migration.description)

    async def _record(self, conn: AsyncConnection, version: int, description: str) -> None:
        await conn.execute(
            insert(self.version_table).values(
                version=version, description=description, applied_at=datetime.now(UTC)
            )
        )

    async def _adopt(self, conn: AsyncConnection) -> tuple[str, ...]:
        """In a locked transaction: check the unversioned tables, create the optional ones
        missing and record version 1; the tables created."""
        missing = await conn.run_sync(self._check_adoptable)  # before any change
        await conn.run_sync(self.version_table.create, checkfirst=True)
        for table in missing:
            await conn.run_sync(table.create)
        await self._record(conn, 1, "adopted existing Auth.js tables")
        return tuple(table.name for table in missing)

    def _check_adoptable(self, conn: Connection) -> list[Table]:
        """Check the existing tables' columns and id type; the optional tables missing.

        Raises:
            MigrationError: A required table or a column is missing, or ``users.id``
                holds ids of another type than ``adapter.id_type``.
        """
        inspector = inspect(conn)
        t = self._tables
        schema = self.adapter.naming.schema
        by_authjs = {
            "users": t.users,
            "accounts": t.accounts,
            "sessions": t.sessions,
            "verification_token": t.verification_tokens,
            "authenticators": t.authenticators,
        }
        exact = conn.dialect.name == "postgresql"  # elsewhere column names ignore case
        problems: list[str] = []
        missing_optional: list[Table] = []
        for authjs, table in by_authjs.items():
            if not inspector.has_table(table.name, schema=schema):
                if authjs in _REQUIRED_FOR_ADOPTION:
                    problems.append(f"table {table.name} is missing")
                else:
                    missing_optional.append(table)
                continue
            found = {_fold(c["name"], exact) for c in inspector.get_columns(table.name, schema)}
            missing = [c.name for c in table.columns if _fold(c.name, exact) not in found]
            if missing:
                problems.append(f"{table.name} lacks {', '.join(missing)}")
        if problems:
            raise MigrationError(
                "cannot adopt these tables: "
                + "; ".join(problems)
                + f" (expected Auth.js's columns: {_expected_summary()})"
            )
        found_type = _users_id_type(inspector, t)
        if found_type is not None and found_type != self.adapter.id_type:
            raise MigrationError(
                f"{t.users.name}.id holds {found_type} ids but id_type is "
                f"{self.adapter.id_type!r}: pass `--id-type {found_type}` (and "
                f'SQLAlchemyAdapter(..., id_type="{found_type}") in the app)'
            )
        return missing_optional


def _fold(name: str, exact: bool) -> str:
    return name if exact else name.lower()


def _expected_summary() -> str:
    return "; ".join(f"{table}: {', '.join(cols)}" for table, cols in AUTHJS_COLUMNS.items())


def _users_id_type(inspector: Inspector, tables: Tables) -> IdType | None:
    """Whether ``users.id`` holds integers or text; ``None`` if there is no such column."""
    users = tables.users
    if not inspector.has_table(users.name, schema=users.schema):
        return None
    for column in inspector.get_columns(users.name, schema=users.schema):
        if column["name"].lower() == users.c.id.name.lower():
            return "integer" if isinstance(column["type"], Integer) else "text"
    return None


def _ensure_index(conn: Connection, table: Table, key: str) -> None:
    """Create an index on ``table.c[key]`` unless one on exactly that column exists."""
    column = table.c[key]
    existing: list[Any] = [
        index["column_names"] for index in inspect(conn).get_indexes(table.name, table.schema)
    ]
    wanted = [column.name.lower()]
    if any([(name or "").lower() for name in names] == wanted for names in existing):
        return
    copy = table.to_metadata(MetaData())
    Index(_index_name(table.name, column.name), copy.c[key]).create(conn)


def _index_name(table: str, column: str) -> str:
    """``ix_<table>_<column>``, shortened with a hash where a database would refuse it."""
    name = f"ix_{table}_{column}"
    if len(name) <= _MAX_IDENTIFIER:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[: _MAX_IDENTIFIER - 9]}_{digest}"
