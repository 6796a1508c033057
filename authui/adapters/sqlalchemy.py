"""A SQL adapter on SQLAlchemy 2's async engine: SQLite, PostgreSQL, MariaDB/MySQL.

Install with ``pip install "authui[sqlalchemy]"`` (SQLite), ``"authui[postgresql]"`` or
``"authui[mysql]"``. By default it uses the Auth.js SQL schema, so an Auth.js app and an
authui app can share one database (authui adds tables of its own: ``rate_limits``, the
counts of the limits on sign-in, ``authui_challenges``, the single-use passkey challenges,
``authui_leases``, which let one process at a time refresh an account's OAuth tokens, and
the account center's ``authui_session_details``, ``authui_passkeys``,
``authui_security_events`` and ``authui_session_versions``, and ``authui_passwords``,
``authui_mfa``, ``authui_recovery_codes`` and ``authui_trusted_browsers`` of password
accounts and second factors)::

    from authui.adapters.sqlalchemy import SQLAlchemyAdapter

    adapter = SQLAlchemyAdapter("postgresql+asyncpg://app@db/app")
    await adapter.create_all()  # or a migration tool with adapter.tables.metadata

Auth.js's PostgreSQL schema numbers users (``SERIAL``); pass ``id_type="integer"`` to use
such a database. ``SQLNaming`` renames tables and columns or picks a schema.
"""

from __future__ import annotations

from authui.adapters.sql.adapter import SQLAlchemyAdapter as SQLAlchemyAdapter
from authui.adapters.sql.naming import AUTHJS_COLUMNS as AUTHJS_COLUMNS
from authui.adapters.sql.naming import SQLNaming as SQLNaming
from authui.adapters.sql.schema import IdType as IdType
from authui.adapters.sql.schema import Tables as Tables
from authui.adapters.sql.schema import UTCDateTime as UTCDateTime
from authui.adapters.sql.schema import build_tables as build_tables
from authui.adapters.sql.store import CONNECT_TIMEOUT as CONNECT_TIMEOUT
from authui.adapters.sql.store import DEFAULT_POOL_OPTIONS as DEFAULT_POOL_OPTIONS
from authui.adapters.sql.store import STATEMENT_TIMEOUT as STATEMENT_TIMEOUT

__all__ = [
    "AUTHJS_COLUMNS",
    "CONNECT_TIMEOUT",
    "DEFAULT_POOL_OPTIONS",
    "STATEMENT_TIMEOUT",
    "IdType",
    "SQLAlchemyAdapter",
    "SQLNaming",
    "Tables",
    "UTCDateTime",
    "build_tables",
]
