"""The SQL adapter's parts: naming, tables and the adapter. Import from
``authui.adapters.sqlalchemy``."""

from __future__ import annotations
