"""Auth.js's own PostgreSQL adapter (``@auth/pg-adapter`` + ``pg``), run by node, and
fresh PostgreSQL schemas for the tests that share a database with it or between processes.

``tests/peers/pgadapter/adapter.mjs`` runs a batch of adapter calls (``createUser``,
``linkAccount``, ``getSessionAndUser``, …) in one node process over one connection whose
``search_path`` is the test's schema; see its header for the wire format. Use the
:func:`pg_adapter_peer` fixture: without node or the npm packages it fails under CI
(``CI=true``) and skips elsewhere, saying how to install them.

:func:`fresh_schema` makes a PostgreSQL schema of a test module's own and drops it, with
everything in it, afterwards; :data:`AUTHJS_DDL` is the schema the pg adapter documents
(``SERIAL`` ids, camelCase columns), to run in it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import shutil
import uuid
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from tests.peers.authjs_schema import AUTHJS_POSTGRES_DDL
from tests.peers.availability import peer_missing
from tests.peers.node import PeerError, run_node_json

PEER_DIR = Path(__file__).resolve().parent / "pgadapter"
SCRIPT = PEER_DIR / "adapter.mjs"
PACKAGES = (PEER_DIR / "node_modules" / "@auth" / "pg-adapter", PEER_DIR / "node_modules" / "pg")
INSTALL_HINT = "run scripts/test, which runs `npm ci` in tests/peers/pgadapter"

_T = TypeVar("_T")

Call = Mapping[str, Any]
"""``{"name": "n", "method": "createUser", "args": [...]}``"""
Answer = dict[str, Any]
"""``{"result": …}`` or ``{"error": message, "name": error class}``"""

AUTHJS_DDL = tuple(
    ddl.format(
        users="users",
        accounts="accounts",
        sessions="sessions",
        verification_token="verification_token",
    )
    for ddl in AUTHJS_POSTGRES_DDL
    if "{authenticators}" not in ddl
)
"""Auth.js's PostgreSQL schema as ``@auth/pg-adapter`` documents it, with unqualified
table names (run it with ``search_path`` set). The pg adapter has no passkey methods, so
there is no ``authenticators`` table."""


def js_date(value: datetime) -> dict[str, str]:
    """``value`` as the script's argument for a JavaScript ``Date`` (milliseconds kept)."""
    utc = value.astimezone(UTC)
    return {"$date": utc.isoformat(timespec="milliseconds").replace("+00:00", "Z")}


def from_js(value: Any) -> Any:
    """A result with every ``{"$date": …}`` turned into an aware UTC ``datetime``."""
    if isinstance(value, list):
        return [from_js(v) for v in value]
    if isinstance(value, dict):
        if set(value) == {"$date"}:
            return datetime.fromisoformat(value["$date"]).astimezone(UTC)
        return {k: from_js(v) for k, v in value.items()}
    return value


def to_ms(value: datetime) -> datetime:
    """``value`` cut to whole milliseconds, as a JavaScript ``Date`` holds it."""
    return value.replace(microsecond=value.microsecond // 1000 * 1000)


def node_connection(url: str) -> dict[str, Any]:
    """node-postgres connection settings for a SQLAlchemy URL."""
    parts = make_url(url)
    settings = {
        "host": parts.host or "127.0.0.1",
        "port": parts.port or 5432,
        "user": parts.username or "postgres",
        "database": parts.database or "postgres",
    }
    if parts.password is not None:
        settings["password"] = str(parts.password)
    return settings


class PgAdapter:
    """Runs ``adapter.mjs`` batches with the node executable ``node``."""

    def __init__(self, node: str) -> None:
        self.node = node

    def run(self, url: str, schema: str, calls: Sequence[Call]) -> dict[str, Answer]:
        """Make every call, in order, in one node process on the database at ``url``
        (a SQLAlchemy URL) with ``search_path`` set to ``schema``; the answers by call
        name, dates as ``datetime`` values."""
        names = [call["name"] for call in calls]
        if len(set(names)) != len(names):
            raise ValueError(f"call names must be unique: {names}")
        request = {"connection": node_connection(url), "searchPath": schema, "calls": list(calls)}
        answers = run_node_json(self.node, SCRIPT, request)
        if not isinstance(answers, dict) or sorted(answers) != sorted(names):
            raise PeerError(f"{SCRIPT.name} answered {json.dumps(answers)[:200]!r}")
        return {name: from_js(answer) for name, answer in answers.items()}


def missing() -> str | None:
    """Why the peer cannot run here, or ``None`` when it can."""
    if shutil.which("node") is None:
        return "node is not installed (not on PATH)"
    for package in PACKAGES:
        if not (package / "package.json").is_file():
            return (
                f"{package.relative_to(PEER_DIR / 'node_modules')} is not installed in {PEER_DIR}"
            )
    return None


@pytest.fixture(scope="session")
def pg_adapter_peer() -> PgAdapter:
    """The peer; without node or the packages, fail under CI and skip elsewhere."""
    reason = missing()
    if reason is not None:
        peer_missing(f"@auth/pg-adapter peer unavailable: {reason}; {INSTALL_HINT}")
    node = shutil.which("node")
    assert node is not None
    return PgAdapter(node)


# Fresh schemas ------------------------------------------------------------------------


def run_isolated(make: Callable[[], Awaitable[_T]]) -> _T:
    """Run a coroutine on a loop of its own, in a thread of its own, so that module
    fixtures never touch the tests' event loops."""

    async def main() -> _T:
        return await make()

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, main()).result()


async def execute(url: str, statements: Sequence[str], *, search_path: str | None = None) -> None:
    """Run ``statements`` in one transaction on a connection of their own."""
    connect_args = {"server_settings": {"search_path": search_path}} if search_path else {}
    engine = create_async_engine(url, connect_args=connect_args)
    try:
        async with engine.begin() as conn:
            for statement in statements:
                await conn.execute(text(statement))
    finally:
        await engine.dispose()


@contextlib.contextmanager
def fresh_schema(url: str, prefix: str, ddl: Sequence[str] = ()) -> Iterator[str]:
    """A new PostgreSQL schema named ``<prefix><random>`` with ``ddl`` run in it (with
    ``search_path`` set to it); yields its name and drops it with its tables afterwards."""
    schema = f"{prefix}{uuid.uuid4().hex[:10]}"
    run_isolated(lambda: execute(url, [f'CREATE SCHEMA "{schema}"']))
    try:
        if ddl:
            run_isolated(lambda: execute(url, ddl, search_path=schema))
        yield schema
    finally:
        run_isolated(lambda: execute(url, [f'DROP SCHEMA "{schema}" CASCADE']))
