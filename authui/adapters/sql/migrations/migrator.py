"""``SchemaMigrator``: creates, adopts and upgrades the adapter's tables, one locked
transaction per step, and records each version in the version table."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from datetime import UTC, datetime

from sqlalchemy import (
    Column,
    Connection,
    Integer,
    MetaData,
    String,
    Table,
    func,
    insert,
    inspect,
    select,
)
from sqlalchemy.ext.asyncio import AsyncConnection

from authui.adapters.sql.adapter import SQLAlchemyAdapter
from authui.adapters.sql.migrations.adoption import check_adoptable
from authui.adapters.sql.migrations.reports import MigrationError, MigrationResult, SchemaStatus
from authui.adapters.sql.migrations.versions import MIGRATIONS, Migration
from authui.adapters.sql.schema import Tables, UTCDateTime

#: The default name of the table holding the applied versions.
DEFAULT_VERSION_TABLE = "authui_schema"

#: The version adopted tables are recorded at: the Auth.js tables (1) and, left out so that
#: adopting changes nothing in them, the indexes on their ``expires`` (2).
ADOPTED_VERSION = 2


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
                adapter uses, record them as versions 1 and 2 (creating
                ``authenticators`` if it is missing), then apply the later versions,
                which add authui's own tables: one step, and Auth.js's tables stay as
                they are (version 2's indexes on their ``expires`` are left out, so
                that their own migration tool finds no change it did not make).
            target: Stop at this version (tests, staged rollouts).

        Raises:
            MigrationError: The tables exist unversioned and ``adopt`` is false, or they
                lack columns, or their user ids are not ``adapter.id_type``.
        """
        goal = self._target(target)
        status = await self.status()
        if status.initialised:
            return MigrationResult(status.version, status.version)
        await self._learn_id_type()
        async with self._locked_transaction() as conn:
            status = await conn.run_sync(self._status)  # again: another process may be first
            if status.initialised:
                return MigrationResult(status.version, status.version)
            if status.tables and not adopt:
                raise MigrationError(
                    f"the database already has authui tables ({', '.join(status.tables)})"
                    " but no recorded version; if an Auth.js app (or create_all) made "
                    "them, run `authui db init --adopt` to adopt them"
                )
            if status.tables:
                created, version = await self._adopt(conn, goal)
                done: tuple[Migration, ...] = ()
            else:
                first = self.migrations[0]
                await conn.run_sync(self.version_table.create, checkfirst=True)
                await self._apply(conn, first, self.adapter.tables)
                created, version, done = (), first.version, (first,)
        later = await self._run_from(version, goal, self.adapter.tables)
        return MigrationResult(
            0, goal, (*done, *later.applied), adopted=not done, created_tables=created
        )

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
        await self._learn_id_type()
        return await self._run_from(status.version, goal, self.adapter.tables)

    # -- internals -----------------------------------------------------------------------

    @property
    def _tables(self) -> Tables:
        return self.adapter.tables

    async def _learn_id_type(self) -> None:
        """Let the adapter learn how ``users.id`` holds ids (its ``prepare``), so that
        authui's tables get ``user_id`` columns of that type.

        Raises:
            MigrationError: The adapter was given another id type.
        """
        try:
            await self.adapter.prepare()
        except ValueError as exc:
            raise MigrationError(str(exc)) from exc

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

    async def _adopt(self, conn: AsyncConnection, goal: int) -> tuple[tuple[str, ...], int]:
        """In a locked transaction: check the unversioned tables (``check_adoptable``),
        create the optional ones missing and record versions 1 and 2 (up to ``goal``),
        which change nothing in Auth.js's tables; the tables created and the version
        recorded."""
        missing = await conn.run_sync(  # before any change
            check_adoptable,
            self._tables,
            schema=self.adapter.naming.schema,
            id_type=self.adapter.id_type,
        )
        await conn.run_sync(self.version_table.create, checkfirst=True)
        for table in missing:
            await conn.run_sync(table.create)
        adopted = min(goal, ADOPTED_VERSION)
        for version in range(1, adopted + 1):
            description = self.migrations[version - 1].description
            await self._record(conn, version, f"adopted existing Auth.js tables: {description}")
        return tuple(table.name for table in missing), adopted
