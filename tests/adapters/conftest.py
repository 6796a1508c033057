"""Where the adapter tests' servers are, the rule for a server that is not there, and a
clock for rate limits.

Each server's URL comes from an environment variable, with the development and CI
machines' address as the default. A test that needs a server asks for its fixture
(``postgres_url``, ``mariadb_url``, ``redis_url``); when nothing listens at that address
the test is skipped with the reason, or fails under ``CI=true``
(``tests.peers.availability``).

``rate_limit_clock`` sets the time every adapter's ``increment_rate_limit`` counts by, so
that a test moves from one window to the next without waiting.

``adapter`` gives a fresh, empty adapter of each kind (memory, SQLite, PostgreSQL,
MariaDB, Redis), for modules that test every kind alike; a module or class with an
``adapter`` fixture of its own uses that instead. Its SQL tables are made once per module
(PostgreSQL in a schema of its own, MariaDB under a table prefix of its own) and emptied
before each test; SQLite is a new file per test; Redis gets a key prefix per test, whose
keys are deleted afterwards.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from sqlalchemy import delete

from authui.adapters.base import RateLimitWindow
from authui.adapters.memory import MemoryAdapter
from authui.adapters.redis import RedisAdapter
from authui.adapters.sqlalchemy import SQLAlchemyAdapter, SQLNaming
from tests.peers.availability import peer_missing
from tests.peers.pgadapter_node import fresh_schema, run_isolated


@dataclass(frozen=True)
class Service:
    """A server the tests use: its name, the variable holding its URL, the default URL,
    and how to start one locally."""

    name: str
    env: str
    default: str
    start: str

    @property
    def url(self) -> str:
        return os.environ.get(self.env) or self.default


POSTGRES = Service(
    "PostgreSQL",
    "AUTHUI_TEST_POSTGRES_URL",
    "postgresql+asyncpg://postgres@127.0.0.1:5432/test",
    "docker run -p 5432:5432 -e POSTGRES_HOST_AUTH_METHOD=trust -e POSTGRES_DB=test postgres:16",
)
MARIADB = Service(
    "MariaDB",
    "AUTHUI_TEST_MARIADB_URL",
    "mysql+asyncmy://root@127.0.0.1:3306/test",
    "docker run -p 3306:3306 -e MARIADB_ALLOW_EMPTY_ROOT_PASSWORD=1 -e MARIADB_DATABASE=test "
    "mariadb:11",
)
REDIS = Service(
    "Redis",
    "AUTHUI_TEST_REDIS_URL",
    "redis://127.0.0.1:6379/0",
    "docker run -p 6379:6379 redis:7",
)

_DEFAULT_PORTS = {"postgresql": 5432, "mysql": 3306, "mariadb": 3306, "redis": 6379}
_unreachable: dict[str, str] = {}  # URL -> why, so later tests skip without waiting again


def require(service: Service) -> str:
    """``service``'s URL once something listens there; otherwise ``peer_missing``."""
    url = service.url
    if url not in _unreachable:
        parts = urlsplit(url)
        scheme = parts.scheme.split("+")[0]
        host, port = parts.hostname or "127.0.0.1", parts.port or _DEFAULT_PORTS.get(scheme, 0)
        try:
            socket.create_connection((host, port), timeout=2).close()
        except OSError as exc:
            _unreachable[url] = (
                f"{service.name} is not reachable at {host}:{port} ({exc}): start one "
                f"(`{service.start}`) or point {service.env} at one"
            )
        else:
            return url
    peer_missing(_unreachable[url])


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """The test PostgreSQL's SQLAlchemy URL (``AUTHUI_TEST_POSTGRES_URL``)."""
    return require(POSTGRES)


@pytest.fixture(scope="session")
def mariadb_url() -> str:
    """The test MariaDB's SQLAlchemy URL (``AUTHUI_TEST_MARIADB_URL``)."""
    return require(MARIADB)


@pytest.fixture(scope="session")
def redis_url() -> str:
    """The test Redis's URL (``AUTHUI_TEST_REDIS_URL``)."""
    return require(REDIS)


@dataclass
class RateLimitClock:
    """The time, in seconds since the epoch, that ``RateLimitWindow.current`` sees."""

    now: float


@pytest.fixture
def rate_limit_clock(monkeypatch: pytest.MonkeyPatch) -> RateLimitClock:
    """A clock the test moves (``clock.now += 60``), standing in for ``time.time()`` in
    ``RateLimitWindow.current``, the window arithmetic the adapters share."""
    clock = RateLimitClock(1_000_000.5)

    def current(cls: type[RateLimitWindow], seconds: int) -> RateLimitWindow:
        return cls(seconds, int(clock.now // seconds), clock.now)

    monkeypatch.setattr(RateLimitWindow, "current", classmethod(current))
    return clock


# An adapter of each kind ----------------------------------------------------------------

KINDS = ["memory", "sqlite", "postgresql", "mariadb", "redis"]

AnyAdapter = MemoryAdapter | SQLAlchemyAdapter | RedisAdapter


@dataclass(frozen=True)
class ModuleTables:
    """Tables made for one test module: where and under which names."""

    url: str
    naming: SQLNaming

    async def empty_adapter(self) -> SQLAlchemyAdapter:
        adapter = SQLAlchemyAdapter(self.url, naming=self.naming)
        async with adapter.engine.begin() as conn:
            for table in adapter.tables.metadata.sorted_tables:
                await conn.execute(delete(table))
        return adapter

    async def create_all(self) -> None:
        async with SQLAlchemyAdapter(self.url, naming=self.naming) as adapter:
            await adapter.create_all()

    async def drop_all(self) -> None:
        async with SQLAlchemyAdapter(self.url, naming=self.naming) as adapter:
            await adapter.drop_all()


@pytest.fixture(scope="module")
def pg_tables(postgres_url: str) -> Iterator[ModuleTables]:
    with fresh_schema(postgres_url, "authui_kinds_") as schema:
        tables = ModuleTables(postgres_url, SQLNaming(schema=schema))
        run_isolated(tables.create_all)
        yield tables


@pytest.fixture(scope="module")
def mariadb_tables(mariadb_url: str) -> Iterator[ModuleTables]:
    tables = ModuleTables(mariadb_url, SQLNaming().prefixed(f"kinds_{uuid.uuid4().hex[:8]}_"))
    run_isolated(tables.create_all)
    try:
        yield tables
    finally:
        run_isolated(tables.drop_all)


@pytest.fixture(params=KINDS)
async def adapter(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[AnyAdapter]:
    """A fresh, empty adapter of each kind."""
    kind = request.param
    if kind == "memory":
        yield MemoryAdapter()
    elif kind == "sqlite":
        async with SQLAlchemyAdapter(f"sqlite+aiosqlite:///{tmp_path / 'auth.db'}") as sqlite:
            await sqlite.create_all()
            yield sqlite
    elif kind in ("postgresql", "mariadb"):
        tables: ModuleTables = request.getfixturevalue(
            "pg_tables" if kind == "postgresql" else "mariadb_tables"
        )
        async with await tables.empty_adapter() as sql:
            yield sql
    else:
        url: str = request.getfixturevalue("redis_url")
        prefix = f"authui-kinds:{uuid.uuid4().hex}:"
        async with RedisAdapter(url, prefix=prefix) as redis:
            try:
                yield redis
            finally:
                keys = [key async for key in redis.redis.scan_iter(match=f"{prefix}*")]
                if keys:
                    await redis.redis.delete(*keys)
