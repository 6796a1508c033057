"""The session check's read (``authui.adapters.sql.session_reads``) on each database: the
way it takes, that every read sees the row as it is now (no snapshot, no memory of an
earlier read), the engine's connect arguments on the driver's connections, a connection
the server ended, SQLite's lock held by a writer, and closing."""

from __future__ import annotations

import asyncio
import sqlite3
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from authui.adapters import AdapterSession, AdapterUser
from authui.adapters.sqlalchemy import SQLAlchemyAdapter, SQLNaming
from tests.peers.pgadapter_node import fresh_schema

DATABASES = ["sqlite", "postgresql", "mariadb"]
WAYS = {
    "sqlite": "with sqlite3 on the event loop",
    "postgresql": "on the driver's connection",
    "mariadb": "on the driver's connection",
}
USER = AdapterUser(id="u1", email="ada@example.com", name="Ada", email_verified=None)


class Setup:
    """Where a test's tables are, and how to make more adapters over them."""

    def __init__(self, kind: str, url: str, naming: SQLNaming) -> None:
        self.kind, self.url, self.naming = kind, url, naming

    def adapter(self, **engine_options: object) -> SQLAlchemyAdapter:
        return SQLAlchemyAdapter(self.url, naming=self.naming, engine_options=engine_options)


async def _tables(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[Setup]:
    """Fresh tables in the database ``kind`` names; dropped afterwards."""
    if kind == "postgresql":
        url = request.getfixturevalue("postgres_url")
        with fresh_schema(url, "authui_sr_") as schema:
            made = Setup(kind, url, SQLNaming(schema=schema))
            async with made.adapter() as adapter:
                await adapter.create_all()
            yield made
        return
    if kind == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path / 'auth.db'}"
    else:
        url = request.getfixturevalue("mariadb_url")
    made = Setup(kind, url, SQLNaming().prefixed(f"sr_{uuid.uuid4().hex[:8]}_"))
    async with made.adapter() as adapter:
        await adapter.create_all()
    try:
        yield made
    finally:
        async with made.adapter() as adapter:
            await adapter.drop_all()


@pytest.fixture(params=DATABASES)
async def setup(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Setup]:
    async for made in _tables(request.param, request, tmp_path):
        yield made


@pytest.fixture(params=["postgresql", "mariadb"])
async def server_setup(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Setup]:
    async for made in _tables(request.param, request, tmp_path):
        yield made


async def store_session(adapter: SQLAlchemyAdapter, days: int = 30) -> AdapterSession:
    if await adapter.get_user(USER.id) is None:
        await adapter.create_user(USER)
    expires = (datetime.now(UTC) + timedelta(days=days)).replace(microsecond=0)
    session = AdapterSession(session_token=uuid.uuid4().hex, user_id=USER.id, expires=expires)
    return await adapter.create_session(session)


async def test_each_database_reads_on_its_fastest_way(setup: Setup) -> None:
    async with setup.adapter() as adapter:
        session = await store_session(adapter)
        assert adapter.session_read.way == WAYS[setup.kind]
        found = await adapter.get_session_and_user(session.session_token)
        assert found == (session, USER)
        assert await adapter.get_session_and_user("not-a-token") is None


async def test_sqlite_in_memory_reads_through_the_engine() -> None:
    async with SQLAlchemyAdapter("sqlite+aiosqlite://") as adapter:
        await adapter.create_all()
        session = await store_session(adapter)
        assert adapter.session_read.way == "through the engine"
        assert await adapter.get_session_and_user(session.session_token) == (session, USER)


async def test_every_read_sees_what_another_process_wrote_since(setup: Setup) -> None:
    """The reading adapter keeps its connections between reads; another adapter (its own
    engine and connections, as another process has) moves the expiry, then deletes the
    session: each next read sees it."""
    async with setup.adapter() as reader, setup.adapter() as other:
        session = await store_session(other)
        token = session.session_token
        for _ in range(3):  # the same kept connection serves again
            assert await reader.get_session_and_user(token) == (session, USER)
        later = session.expires + timedelta(days=1)
        await other.update_session(token, later)
        found = await reader.get_session_and_user(token)
        assert found is not None
        assert found[0].expires == later
        await other.delete_session(token)
        assert await reader.get_session_and_user(token) is None


async def test_the_engines_connect_arguments_apply_to_the_kept_connections(
    postgres_url: str,
) -> None:
    """The session check's connection is made by the engine's pool: the application name
    set in its connect arguments shows on the connection that ran the check; closing the
    adapter closes every connection it made."""
    name = f"authui-test-{uuid.uuid4().hex[:8]}"
    with fresh_schema(postgres_url, "authui_sr_") as schema:
        naming = SQLNaming(schema=schema)
        options = {"connect_args": {"server_settings": {"application_name": name}}}
        async with SQLAlchemyAdapter(postgres_url, naming=naming) as watcher:
            await watcher.create_all()
            adapter = SQLAlchemyAdapter(postgres_url, naming=naming, engine_options=options)
            try:
                session = await store_session(adapter)
                await asyncio.gather(
                    *(adapter.get_session_and_user(session.session_token) for _ in range(6))
                )
                assert await _connections_named(watcher, name, checks_only=True) == 1
            finally:
                await adapter.close()
            assert await _connections_named(watcher, name) == 0


async def _connections_named(
    adapter: SQLAlchemyAdapter, name: str, *, checks_only: bool = False
) -> int:
    """How many connections carry ``name`` (only those whose last query was a session
    check, with ``checks_only``), once closed ones have left ``pg_stat_activity``."""
    query = "SELECT count(*) FROM pg_stat_activity WHERE application_name = :name"
    if checks_only:
        query += """ AND query LIKE '%"sessionToken" IN%'"""
    count = 0
    for _ in range(50):  # a closed connection leaves pg_stat_activity a moment later
        async with adapter.engine.connect() as conn:
            count = int((await conn.execute(text(query), {"name": name})).scalar_one())
        if count == 0 or checks_only:
            return count
        await asyncio.sleep(0.02)
    return count


KILL_THE_OTHERS = {
    "postgresql": "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
    "WHERE datname = current_database() AND pid <> pg_backend_pid()",
    "mariadb": "SELECT id FROM information_schema.processlist "
    "WHERE db = DATABASE() AND id <> CONNECTION_ID()",
}


async def test_a_connection_the_server_ended_is_replaced_without_an_error(
    server_setup: Setup,
) -> None:
    """The server ends every connection of the reading adapter (a restart, an idle
    timeout); the next check still answers: it tries once more on a new connection."""
    async with server_setup.adapter() as killer, server_setup.adapter() as adapter:
        session = await store_session(adapter)
        token = session.session_token
        assert await adapter.get_session_and_user(token) == (session, USER)
        async with killer.engine.connect() as conn:
            found = (await conn.execute(text(KILL_THE_OTHERS[server_setup.kind]))).scalars()
            if server_setup.kind == "mariadb":
                for connection_id in list(found):
                    await conn.execute(text(f"KILL CONNECTION {int(connection_id)}"))
        await asyncio.sleep(0.1)
        assert await adapter.get_session_and_user(token) == (session, USER)


async def test_a_sqlite_read_waits_for_a_writers_lock(tmp_path: Path) -> None:
    """While another connection holds SQLite's lock, the read cannot take it at once; it
    goes through the engine, which waits, and answers once the writer is done."""
    path = tmp_path / "auth.db"
    async with SQLAlchemyAdapter(f"sqlite+aiosqlite:///{path}") as adapter:
        await adapter.create_all()
        session = await store_session(adapter)
        assert await adapter.get_session_and_user(session.session_token) == (session, USER)
        writer = sqlite3.connect(path, isolation_level=None)
        try:
            writer.execute("BEGIN EXCLUSIVE")
            reading = asyncio.create_task(adapter.get_session_and_user(session.session_token))
            await asyncio.sleep(0.3)
            assert not reading.done(), "the read did not wait for the writer"
            later = session.expires + timedelta(days=1)
            writer.execute(  # Auth.js's names, the adapter's default naming
                'UPDATE sessions SET expires = ? WHERE "sessionToken" = ?',
                (later.replace(tzinfo=None).isoformat(sep=" "), session.session_token),
            )
            writer.execute("COMMIT")
            found = await asyncio.wait_for(reading, 10)
        finally:
            writer.close()
        assert found is not None
        assert found[0].expires == later  # what the writer committed
