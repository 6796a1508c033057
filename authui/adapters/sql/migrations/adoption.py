"""Adopting a database an Auth.js app (or ``create_all``) made: checking that its tables
have every column the adapter uses and that ``users.id`` holds ids of the configured type,
before ``SchemaMigrator.init(adopt=True)`` records them as version 1."""

from __future__ import annotations

from sqlalchemy import Connection, Table, inspect

from authui.adapters.sql.migrations.reports import MigrationError
from authui.adapters.sql.naming import AUTHJS_COLUMNS
from authui.adapters.sql.presence import users_id_type
from authui.adapters.sql.schema import IdType, Tables

#: Tables an existing database must have to be adopted (Auth.js's schema before passkeys
#: has no ``authenticators``; adopting creates it).
_REQUIRED_FOR_ADOPTION = ("users", "accounts", "sessions", "verification_token")


def check_adoptable(
    conn: Connection, tables: Tables, *, schema: str | None, id_type: IdType
) -> list[Table]:
    """Check the existing tables' columns and id type; the optional tables missing.

    Raises:
        MigrationError: A required table or a column is missing, or ``users.id`` holds
            ids of another type than ``id_type``.
    """
    inspector = inspect(conn)
    by_authjs = {
        "users": tables.users,
        "accounts": tables.accounts,
        "sessions": tables.sessions,
        "verification_token": tables.verification_tokens,
        "authenticators": tables.authenticators,
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
    found_type = users_id_type(inspector, tables)
    if found_type is not None and found_type != id_type:
        raise MigrationError(
            f"{tables.users.name}.id holds {found_type} ids but id_type is "
            f"{id_type!r}: pass `--id-type {found_type}` (and "
            f'SQLAlchemyAdapter(..., id_type="{found_type}") in the app)'
        )
    return missing_optional


def _fold(name: str, exact: bool) -> str:
    return name if exact else name.lower()


def _expected_summary() -> str:
    return "; ".join(f"{table}: {', '.join(cols)}" for table, cols in AUTHJS_COLUMNS.items())
