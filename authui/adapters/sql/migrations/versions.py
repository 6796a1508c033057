"""The schema's history: ``MIGRATIONS``, the steps from version 1 to ``LATEST_VERSION``.

Each step only adds, and looks before it creates, so that running it again changes
nothing (the package docstring says why).
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Index, MetaData, Table, inspect
from sqlalchemy.ext.asyncio import AsyncConnection

from authui.adapters.sql.schema import Tables

_MAX_IDENTIFIER = 60  # PostgreSQL keeps 63 characters of a name, MariaDB/MySQL allow 64

Step = Callable[[AsyncConnection, Tables], Awaitable[None]]
"""A migration step: given a connection in a transaction and the adapter's tables, change
the schema from the previous version to this one. It must only add, and must look before
it creates (see the package docstring)."""


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


async def _create_leases(conn: AsyncConnection, tables: Tables) -> None:
    """Version 5: authui's ``authui_leases`` table, the leases of ``claim_lease`` (one
    OAuth token refresh at a time per account), with its index on ``expires``."""
    await conn.run_sync(tables.leases.create, checkfirst=True)
    await conn.run_sync(_ensure_index, tables.leases, "expires")


async def _create_account_center(conn: AsyncConnection, tables: Tables) -> None:
    """Version 6: authui's tables of the account center, ``authui_session_details``,
    ``authui_passkeys``, ``authui_security_events`` and ``authui_session_versions``, with
    their indexes (``user_id``; ``expires`` and ``at``, for the deletion of old rows)."""
    for table in tables.account_center:
        await conn.run_sync(table.create, checkfirst=True)
        for column in table.columns:
            if column.index:
                await conn.run_sync(_ensure_index, table, column.key)


async def _create_factors(conn: AsyncConnection, tables: Tables) -> None:
    """Version 7: authui's tables of password accounts and multi-factor authentication,
    ``authui_passwords``, ``authui_mfa``, ``authui_recovery_codes`` and
    ``authui_trusted_browsers``, with the latter's indexes (``user_id``; ``expires``, for
    the deletion of expired rows)."""
    for table in tables.factors:
        await conn.run_sync(table.create, checkfirst=True)
        for column in table.columns:
            if column.index:
                await conn.run_sync(_ensure_index, table, column.key)


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
    Migration(
        5,
        "create authui_leases, the leases that let one process at a time refresh a token",
        _create_leases,
    ),
    Migration(
        6,
        "create the account center's tables: session details, passkey names, security "
        "events and session versions",
        _create_account_center,
    ),
    Migration(
        7,
        "create the tables of password accounts and multi-factor authentication: "
        "passwords, MFA enrolments, recovery codes and trusted browsers",
        _create_factors,
    ),
)

#: The version ``init`` creates and ``upgrade`` reaches.
LATEST_VERSION = MIGRATIONS[-1].version


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
