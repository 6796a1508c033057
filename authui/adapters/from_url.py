"""``AuthConfig(adapter="<URL>")``: an adapter from a database URL.

``redis://`` and ``rediss://`` URLs give a ``RedisAdapter``; any other URL is handed to
SQLAlchemy (``sqlite+aiosqlite:///app.db``, ``postgresql+asyncpg://…``,
``mysql+asyncmy://…``; a plain ``postgres://``, ``postgresql://``, ``mysql://`` or
``sqlite://`` gets the async driver). Before its first call, the SQL adapter learns its database
(``prepare``: its tables, and the type of ``users.id``, so that the ``SERIAL`` ids of
Auth.js's PostgreSQL schema work as they are). An embedded SQLite database first gets its
schema (created, or upgraded to the latest version); for a database server, run ``authui
db init`` (``--adopt`` on a database an Auth.js app made) and ``authui db upgrade``.

A database server gets ``SQLAlchemyAdapter``'s time limits (5 s to connect, 10 s for
each statement, see ``authui.adapters.sql.store``); a parameter of the same name in the
URL's query wins (``postgresql+asyncpg://app@db/app?command_timeout=30``).
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

LIFECYCLE = frozenset({"create_all", "drop_all", "close"})

#: The async driver each plain scheme gets: ``postgres://`` and ``postgresql://`` (the
#: form node's ``pg`` and Auth.js apps use) become asyncpg, ``mysql://`` and
#: ``mariadb://`` asyncmy, ``sqlite://`` aiosqlite.
ASYNC_DRIVERS = {
    "postgres": "postgresql+asyncpg",
    "postgresql": "postgresql+asyncpg",
    "mysql": "mysql+asyncmy",
    "mariadb": "mariadb+asyncmy",
    "sqlite": "sqlite+aiosqlite",
}


def with_async_driver(url: str) -> str:
    """``url`` with the async driver of its scheme (``ASYNC_DRIVERS``) when it names
    none."""
    scheme, sep, rest = url.partition("://")
    return f"{ASYNC_DRIVERS[scheme]}://{rest}" if sep and scheme in ASYNC_DRIVERS else url


def adapter_from_url(url: str) -> object:
    """The adapter for ``url`` (see the module docstring).

    Raises:
        ValueError: The URL names no driver authui knows.
    """
    shown = shown_url(url)
    if url.startswith(("redis://", "rediss://")):
        try:
            from authui.adapters.redis import RedisAdapter
        except ImportError as exc:
            raise ValueError(
                f"The database URL {shown!r} needs redis-py: pip install 'authui[redis]'"
            ) from exc
        return RedisAdapter(url)
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    from authui.adapters.sqlalchemy import SQLAlchemyAdapter

    try:
        adapter = SQLAlchemyAdapter(with_async_driver(url))
    except (ArgumentError, NoSuchModuleError, ImportError) as exc:
        reason = str(exc).replace(url, shown)
        raise ValueError(f"No adapter for the database URL {shown!r}: {reason}") from exc
    return ReadyOnFirstUse(adapter, create_tables=adapter.engine.dialect.name == "sqlite")


def shown_url(url: str) -> str:
    """``url`` as an error message may show it: a password in it replaced by ``***``.
    Works on text, so that a URL too broken to parse is shown without its password too."""
    scheme, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not sep or not at or ":" not in credentials:
        return url
    return f"{scheme}://{credentials.split(':', 1)[0]}:***@{host}"


class ReadyOnFirstUse:
    """Wraps a SQL adapter so that, before its first call, it learns its database
    (``prepare``), with ``create_tables`` after creating or upgrading its tables."""

    def __init__(self, adapter: Any, *, create_tables: bool):
        self.adapter = adapter
        self.create_tables = create_tables
        self._ready = False
        self._lock = asyncio.Lock()

    def __getattr__(self, name: str) -> Any:
        target = getattr(self.adapter, name)
        if self._ready or name in LIFECYCLE or not inspect.iscoroutinefunction(target):
            return target

        async def call(*args: Any) -> Any:
            await self._ensure_tables()
            return await target(*args)

        return call

    async def _ensure_tables(self) -> None:
        if self._ready:
            return
        async with self._lock:
            if not self._ready:
                if self.create_tables:
                    await bring_up_to_date(self.adapter)
                await self.adapter.prepare()
                self._ready = True


async def bring_up_to_date(adapter: Any) -> None:
    """Create or upgrade an embedded database's schema to the latest version, as
    ``authui db init --adopt`` and ``authui db upgrade`` would (tables made before
    versioning are adopted). Any number of processes may do so at once: the migrations
    run under the schema lock, and each step is applied once."""
    from authui.adapters.sql.migrations import SchemaMigrator

    migrator = SchemaMigrator(adapter)
    if not (await migrator.status()).pending:
        return
    await migrator.init(adopt=True)
    await migrator.upgrade()
