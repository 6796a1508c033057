"""The statements whose shape differs between databases, each in every database's words:
``UPDATE``/``DELETE … RETURNING`` where the database has them, the upsert that adds one to
a count (a rate-limit event, a session version), the upsert that replaces a row, the insert
of a row unless its key is taken, and the upsert that takes a lease unless another holds
it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Row, Table, case, delete, func, select, update
from sqlalchemy.dialects import mysql, postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.expression import ColumnElement

from authui.adapters.base import RateLimitWindow

_MYSQL = ("mysql", "mariadb")

# The dialects that upsert with ``INSERT … ON CONFLICT``.
_ON_CONFLICT: dict[str, Callable[[Table], Any]] = {
    "postgresql": postgresql.insert,
    "sqlite": sqlite.insert,
}


async def update_returning(
    conn: AsyncConnection, table: Table, where: ColumnElement[bool], values: Any
) -> Row[Any] | None:
    """``UPDATE`` the row and return it as it is now; ``None`` if no row matched."""
    statement = update(table).where(where).values(values)
    if conn.dialect.update_returning:
        return (await conn.execute(statement.returning(*table.c))).first()
    await conn.execute(statement)  # MariaDB: the row stays locked until the commit
    return (await conn.execute(select(table).where(where))).first()


async def delete_returning(
    conn: AsyncConnection, table: Table, where: ColumnElement[bool]
) -> Row[Any] | None:
    """``DELETE`` the row and return it; ``None`` if there was none. Of concurrent calls
    for one row exactly one gets it: ``DELETE … RETURNING`` where the database has it,
    else a ``SELECT`` and a ``DELETE`` whose row count says whether this call deleted it."""
    if conn.dialect.delete_returning:
        return (await conn.execute(delete(table).where(where).returning(*table.c))).first()
    row = (await conn.execute(select(table).where(where))).first()
    if row is None:
        return None
    deleted = await conn.execute(delete(table).where(where))
    return row if deleted.rowcount == 1 else None  # a concurrent call deleted it first


def _unsupported(conn: AsyncConnection, what: str) -> NotImplementedError:
    return NotImplementedError(
        f"{what} supports PostgreSQL, MariaDB/MySQL and SQLite, not {conn.dialect.name}"
    )


async def count_event(
    conn: AsyncConnection, table: Table, key: str, window: RateLimitWindow
) -> int:
    """Add one to ``key``'s count in ``window`` (a new row starts at 1); the new count
    (``increment`` of the ``rate_limits`` row of ``(key, window_seconds, window)``).

    Raises:
        NotImplementedError: Another database.
    """
    values: dict[str, Any] = {
        "key": key,
        "window_seconds": window.seconds,
        "window": window.number,
        "expires": datetime.fromtimestamp(window.ends_at, UTC),
    }
    return await increment(conn, table, values, "count", "increment_rate_limit")


async def increment(
    conn: AsyncConnection, table: Table, values: Mapping[str, Any], column: str, what: str
) -> int:
    """Insert the row of ``values`` with ``column`` at 1, or add one to ``column`` of the
    row with its primary key; the new value.

    One statement, so of concurrent calls each gets a value of its own: on PostgreSQL and
    SQLite ``INSERT … ON CONFLICT (<primary key>) DO UPDATE SET <column> = <column> + 1
    RETURNING <column>``; on MariaDB/MySQL, whose upserts return nothing, ``INSERT …
    VALUES (…, LAST_INSERT_ID(1)) ON DUPLICATE KEY UPDATE <column> =
    LAST_INSERT_ID(<column> + 1)`` and then ``SELECT LAST_INSERT_ID()``, which is the
    connection's own.

    Raises:
        NotImplementedError: Another database (``what`` names the method for the message).
    """
    counted = table.c[column]
    if conn.dialect.name in _MYSQL:
        upsert = mysql.insert(table).values({**values, column: func.last_insert_id(1)})
        await conn.execute(
            upsert.on_duplicate_key_update({column: func.last_insert_id(counted + 1)})
        )
        return int((await conn.execute(select(func.last_insert_id()))).scalar_one())
    insert = _ON_CONFLICT.get(conn.dialect.name)
    if insert is None:
        raise _unsupported(conn, what)
    statement = (
        insert(table)
        .values({**values, column: 1})
        .on_conflict_do_update(
            index_elements=list(table.primary_key.columns), set_={column: counted + 1}
        )
        .returning(counted)
    )
    return int((await conn.execute(statement)).scalar_one())


async def replace(
    conn: AsyncConnection, table: Table, values: Mapping[str, Any], what: str
) -> None:
    """Insert the row of ``values``, or set every other column of the row with its primary
    key to ``values``: ``INSERT … ON CONFLICT (<primary key>) DO UPDATE SET c =
    excluded.c, …`` on PostgreSQL and SQLite, ``INSERT … ON DUPLICATE KEY UPDATE c =
    VALUES(c), …`` on MariaDB/MySQL.

    Raises:
        NotImplementedError: Another database (``what`` names the method for the message).
    """
    key = list(table.primary_key.columns)
    others = [name for name in values if name not in {column.key for column in key}]
    if conn.dialect.name in _MYSQL:
        upsert = mysql.insert(table).values(values)
        changes = {name: upsert.inserted[name] for name in others}
        await conn.execute(upsert.on_duplicate_key_update(changes))
        return
    insert = _ON_CONFLICT.get(conn.dialect.name)
    if insert is None:
        raise _unsupported(conn, what)
    statement = insert(table).values(values)
    changes = {name: statement.excluded[name] for name in others}
    await conn.execute(statement.on_conflict_do_update(index_elements=key, set_=changes))


async def insert_unless_taken(
    conn: AsyncConnection, table: Table, values: Mapping[str, Any]
) -> None:
    """Insert a row unless one with its primary key exists, which then stays as it is:
    ``INSERT … ON CONFLICT DO NOTHING`` on PostgreSQL and SQLite, ``INSERT … ON DUPLICATE
    KEY UPDATE key = key`` on MariaDB/MySQL (``INSERT IGNORE`` would also hide errors).

    Raises:
        NotImplementedError: Another database.
    """
    if conn.dialect.name in _MYSQL:
        (key, *_) = table.primary_key.columns
        await conn.execute(mysql.insert(table).values(values).on_duplicate_key_update({key: key}))
        return
    insert = _ON_CONFLICT.get(conn.dialect.name)
    if insert is None:
        raise _unsupported(conn, "create_challenge")
    await conn.execute(insert(table).values(values).on_conflict_do_nothing())


async def take_lease(
    conn: AsyncConnection,
    table: Table,
    key: str,
    holder: str,
    now: datetime,
    expires: datetime,
) -> bool:
    """Make ``holder`` the holder of the lease ``key`` until ``expires``, unless the row of
    ``key`` holds a lease that runs past ``now``; whether it did.

    One upsert, so that of concurrent calls for a free key exactly one takes it: on
    PostgreSQL and SQLite ``INSERT … ON CONFLICT (key) DO UPDATE SET holder = excluded.holder,
    expires = excluded.expires WHERE expires <= :now RETURNING holder`` (a row comes back
    only when this call wrote it; PostgreSQL waits for a concurrent writer of the row and
    then judges its new version). On MariaDB/MySQL ``INSERT … ON DUPLICATE KEY UPDATE holder
    = CASE WHEN expires <= :now THEN VALUES(holder) ELSE holder END, expires = CASE …`` (in
    that order: the second assignment still sees the old ``expires``), whose row count
    cannot tell a new row from an unchanged one, so the row, which the upsert locked, is
    read back (``SELECT … FOR UPDATE``, its latest version) and its holder compared.

    Raises:
        NotImplementedError: Another database.
    """
    values = {"key": key, "holder": holder, "expires": expires}
    c = table.c
    ran_out = c.expires <= now
    if conn.dialect.name in _MYSQL:
        upsert = mysql.insert(table).values(values)
        new = upsert.inserted
        await conn.execute(
            upsert.on_duplicate_key_update(
                [
                    ("holder", case((ran_out, new.holder), else_=c.holder)),
                    ("expires", case((ran_out, new.expires), else_=c.expires)),
                ]
            )
        )
        read = select(c.holder).where(c.key == key).with_for_update()
        return (await conn.execute(read)).scalar_one_or_none() == holder
    insert = _ON_CONFLICT.get(conn.dialect.name)
    if insert is None:
        raise _unsupported(conn, "claim_lease")
    upsert = insert(table).values(values)
    statement = upsert.on_conflict_do_update(
        index_elements=[c.key],
        set_={"holder": upsert.excluded.holder, "expires": upsert.excluded.expires},
        where=ran_out,
    ).returning(c.holder)
    return (await conn.execute(statement)).first() is not None
