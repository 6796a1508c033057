"""Databases of a test's own on the PostgreSQL or MariaDB server: made with authui's
tables, or with Auth.js's alone as an Auth.js app leaves them, and dropped with everything
in them afterwards."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from authui.adapters.from_url import bring_up_to_date
from authui.adapters.sqlalchemy import SQLAlchemyAdapter
from tests.peers.authjs_schema import AUTHJS_MARIADB_DDL, AUTHJS_POSTGRES_DDL
from tests.peers.pgadapter_node import run_isolated

AUTHJS_TABLES = {
    "users": "users",
    "accounts": "accounts",
    "sessions": "sessions",
    "verification_token": "verification_token",
    "authenticators": "authenticators",
}


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


async def _create_authjs_tables(url: str) -> None:
    engine = create_async_engine(url)
    postgres = engine.dialect.name == "postgresql"
    try:
        async with engine.begin() as conn:
            for ddl in AUTHJS_POSTGRES_DDL if postgres else AUTHJS_MARIADB_DDL:
                await conn.execute(text(ddl.format(**AUTHJS_TABLES)))
    finally:
        await engine.dispose()


@contextlib.contextmanager
def authjs_database(server_url: str, prefix: str = "authui_beside_") -> Iterator[str]:
    """A new database on the PostgreSQL or MariaDB server of ``server_url`` holding
    Auth.js's five tables as its documented SQL makes them (``SERIAL`` ids) and nothing of
    authui's; yields its URL, and drops it afterwards."""
    name = f"{prefix}{uuid.uuid4().hex[:10]}"
    url = make_url(server_url).set(database=name).render_as_string(hide_password=False)
    postgres = make_url(server_url).get_backend_name() == "postgresql"
    quoted = f'"{name}"' if postgres else f"`{name}`"
    run_isolated(lambda: _autocommit(server_url, f"CREATE DATABASE {quoted}"))
    try:
        run_isolated(lambda: _create_authjs_tables(url))
        yield url
    finally:
        force = " WITH (FORCE)" if postgres else ""
        run_isolated(lambda: _autocommit(server_url, f"DROP DATABASE {quoted}{force}"))
