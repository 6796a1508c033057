"""Versioned schema management for the SQL adapter: ``authui db init``, ``upgrade``, ``status``.

The applied versions live in a table of their own, ``authui_schema`` by default (one row
per version: ``version``, ``description``, ``applied_at``), next to the adapter's tables
(in ``SQLNaming.schema``). ``MIGRATIONS`` is the ordered list of steps; version 1 is the
schema ``SQLAlchemyAdapter.create_all`` makes, and each later step changes a version-N
database into a version-N+1 one. Every step:

- runs in a transaction of its own, which also records its version, so a failed step
  leaves the database at the previous version (on PostgreSQL and SQLite; MariaDB/MySQL
  commit each DDL statement at once, which is why every step is also idempotent: it
  looks before it creates, and can simply be run again);
- runs under the schema lock (``authui.adapters.sql.schema_lock``), and checks the
  recorded version again once it has it, so that any number of processes may run
  ``init`` or ``upgrade`` at once: each step is applied, and recorded, once;
- only adds (tables, indexes, nullable columns): no step drops or rewrites a table, a
  column or a row, so upgrading never loses data.

The parts: ``versions`` (the steps, ``MIGRATIONS``), ``migrator`` (``SchemaMigrator``),
``adoption`` (the checks before adopting an Auth.js database) and ``reports``
(``SchemaStatus``, ``MigrationResult``, ``MigrationError``). Use it from Python with
``SchemaMigrator``::

    async with SQLAlchemyAdapter(url) as adapter:
        result = await SchemaMigrator(adapter).upgrade()

or from the command line with ``authui db init|upgrade|status --url URL``.
"""

from __future__ import annotations

from authui.adapters.sql.migrations.migrator import DEFAULT_VERSION_TABLE, SchemaMigrator
from authui.adapters.sql.migrations.reports import MigrationError, MigrationResult, SchemaStatus
from authui.adapters.sql.migrations.versions import LATEST_VERSION, MIGRATIONS, Migration, Step

__all__ = [
    "DEFAULT_VERSION_TABLE",
    "LATEST_VERSION",
    "MIGRATIONS",
    "Migration",
    "MigrationError",
    "MigrationResult",
    "SchemaMigrator",
    "SchemaStatus",
    "Step",
]
