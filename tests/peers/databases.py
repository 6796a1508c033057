"""Databases of a test's own on the PostgreSQL server: made with authui's tables, dropped
with everything in them afterwards."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from authui.adapters.from_url import bring_up_to_date
from authui.adapters.sqlalchemy import SQLAlchemyAdapter
from tests.peers.pgadapter_node import run_isolated


async def _autocommit(server_url: str, statement: str) -> None:
    """Run ``statement`` outside a transaction (``CREATE``/``DROP DATABASE`` need that)."""
    engine = create_async_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as conn:
            await conn.execute(text(statement))
    finally:
        await engine.dispose()


async def _init_tables(url: str) -> None:
    async with SQLAlchemyAdapter(url) as adapter:
        await bring_up_to_date(adapter)


@contextlib.contextmanager
def fresh_postgres_database(server_url: str, prefix: str = "authui_email_") -> Iterator[str]:
    """A new PostgreSQL database on the server of ``server_url`` (a SQLAlchemy URL), with
    authui's tables in it (as ``authui db init`` makes them: a database server's tables are
    not made on first use); yields its URL, and drops it with everything in it afterwards
    (``WITH (FORCE)``: a connection left over must not keep it)."""
    name = f"{prefix}{uuid.uuid4().hex[:10]}"
    url = make_url(server_url).set(database=name).render_as_string(hide_password=False)
    run_isolated(lambda: _autocommit(server_url, f'CREATE DATABASE "{name}"'))
    try:
        run_isolated(lambda: _init_tables(url))
        yield url
    finally:
        run_isolated(lambda: _autocommit(server_url, f'DROP DATABASE "{name}" WITH (FORCE)'))
