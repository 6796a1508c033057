"""One schema change at a time: ``schema_transaction``, which ``create_all`` and the
migrations run in, so that any number of processes can start together on a new database.

Each of them looks at what exists and creates what is missing inside the lock, so the
first one creates the tables and the others, once they get the lock, find them there.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import AsyncIterator

from sqlalchemy import text
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

#: How long a process waits for another one's schema change, in seconds.
LOCK_TIMEOUT = 60


class SchemaLockTimeout(TimeoutError):
    """Another process held the schema lock for ``LOCK_TIMEOUT`` seconds."""


@contextlib.asynccontextmanager
async def schema_transaction(
    engine: AsyncEngine, schema: str | None
) -> AsyncIterator[AsyncConnection]:
    """A transaction, on a connection of its own, in which no other process changes the
    tables of ``schema`` (``None``: the connection's default) in ``engine``'s database.

    PostgreSQL takes an advisory lock for the transaction (``pg_advisory_xact_lock``).
    MariaDB/MySQL take a named lock (``GET_LOCK``) for the connection, since DDL commits
    there at once; SQLite starts the transaction with ``BEGIN IMMEDIATE``, the database's
    write lock. The last two wait at most ``LOCK_TIMEOUT`` seconds for it.

    Raises:
        SchemaLockTimeout: MariaDB/MySQL or SQLite: the lock was not free in time.
    """
    scope = f"{engine.url.database}|{schema}"
    digest = hashlib.sha256(f"authui_schema|{scope}".encode()).digest()
    async with engine.connect() as conn:
        dialect = conn.dialect.name
        if dialect in ("mysql", "mariadb"):
            name = "authui_schema_" + digest.hex()[:40]
            async with _named_lock(conn, name), conn.begin():
                yield conn
        elif dialect == "sqlite":
            async with _write_lock(conn):
                yield conn
        else:
            async with conn.begin():
                if dialect == "postgresql":
                    key = int.from_bytes(digest[:8], "big", signed=True)
                    await conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})
                yield conn


@contextlib.asynccontextmanager
async def _named_lock(conn: AsyncConnection, name: str) -> AsyncIterator[None]:
    query = text("SELECT GET_LOCK(:name, :timeout)")
    got = (await conn.execute(query, {"name": name, "timeout": LOCK_TIMEOUT})).scalar()
    await conn.commit()
    if got != 1:
        raise SchemaLockTimeout(
            f"another process held the schema lock for {LOCK_TIMEOUT} seconds; try again "
            "when it has finished"
        )
    try:
        yield
    finally:
        with contextlib.suppress(SQLAlchemyError):  # a lost connection has freed it
            await conn.execute(text("SELECT RELEASE_LOCK(:name)"), {"name": name})
            await conn.commit()


@contextlib.asynccontextmanager
async def _write_lock(conn: AsyncConnection) -> AsyncIterator[None]:
    """SQLite: a transaction begun with ``BEGIN IMMEDIATE`` (Python's driver begins none
    before DDL), waiting up to ``LOCK_TIMEOUT`` seconds for a writer to finish; the
    connection's own busy timeout is put back afterwards."""
    busy_timeout = (await conn.exec_driver_sql("PRAGMA busy_timeout")).scalar()
    await conn.exec_driver_sql(f"PRAGMA busy_timeout = {LOCK_TIMEOUT * 1000}")
    await conn.commit()
    try:
        async with conn.begin():
            try:
                await conn.exec_driver_sql("BEGIN IMMEDIATE")
            except OperationalError as exc:
                raise SchemaLockTimeout(
                    f"another process held the database's write lock for {LOCK_TIMEOUT} "
                    "seconds; try again when it has finished"
                ) from exc
            yield
    finally:
        await conn.exec_driver_sql(f"PRAGMA busy_timeout = {int(busy_timeout or 0)}")
        await conn.commit()
