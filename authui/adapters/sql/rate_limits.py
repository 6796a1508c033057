"""``increment_rate_limit`` in SQL: one atomic upsert per event, in each database's words,
and the deletion of the rows of windows that have ended."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Delete, Table, delete, func, select
from sqlalchemy.dialects import mysql, postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from authui.adapters.base import RateLimitWindow

# The dialects that upsert with ``INSERT … ON CONFLICT … DO UPDATE … RETURNING``.
_ON_CONFLICT: dict[str, Callable[[Table], Any]] = {
    "postgresql": postgresql.insert,
    "sqlite": sqlite.insert,
}


async def count_event(
    conn: AsyncConnection, table: Table, key: str, window: RateLimitWindow
) -> int:
    """Add one to ``key``'s count in ``window`` (a new row starts at 1); the new count.

    One statement, so of concurrent calls each gets a count of its own: on PostgreSQL and
    SQLite ``INSERT … ON CONFLICT (key, window_seconds, window) DO UPDATE SET count =
    count + 1 RETURNING count``; on MariaDB/MySQL, whose upserts return nothing,
    ``INSERT … VALUES (…, LAST_INSERT_ID(1)) ON DUPLICATE KEY UPDATE count =
    LAST_INSERT_ID(count + 1)`` and then ``SELECT LAST_INSERT_ID()``, which is the
    connection's own.

    Raises:
        NotImplementedError: Another database.
    """
    count = table.c["count"]
    values: dict[str, Any] = {
        "key": key,
        "window_seconds": window.seconds,
        "window": window.number,
        "expires": datetime.fromtimestamp(window.ends_at, UTC),
    }
    dialect = conn.dialect.name
    if dialect in ("mysql", "mariadb"):
        upsert = mysql.insert(table).values({**values, "count": func.last_insert_id(1)})
        await conn.execute(upsert.on_duplicate_key_update(count=func.last_insert_id(count + 1)))
        return int((await conn.execute(select(func.last_insert_id()))).scalar_one())
    insert = _ON_CONFLICT.get(dialect)
    if insert is None:
        raise NotImplementedError(
            f"increment_rate_limit supports PostgreSQL, MariaDB/MySQL and SQLite, not {dialect}"
        )
    statement = (
        insert(table)
        .values({**values, "count": 1})
        .on_conflict_do_update(
            index_elements=list(table.primary_key.columns), set_={"count": count + 1}
        )
        .returning(count)
    )
    return int((await conn.execute(statement)).scalar_one())


def delete_ended(table: Table, window: RateLimitWindow) -> Delete:
    """``DELETE`` the rows of every window that had ended at ``window.now`` (by the index
    on ``expires``)."""
    return delete(table).where(table.c.expires <= datetime.fromtimestamp(window.now, UTC))
