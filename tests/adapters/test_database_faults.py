"""The database going away mid-request, with a real PostgreSQL.

``SQLAlchemyAdapter`` reaches PostgreSQL through a small TCP proxy run by the test: cutting
it aborts every open connection and turns new ones away (as a crashed or unreachable
server would), restoring it lets connections through again. Requests go through
``authui.testing.AuthClient`` with database sessions. While the database is away:

- a credentials sign-in answers a redirect to ``/auth/error?error=Configuration`` and logs
  ``AdapterError``, and leaves no user and no session behind (a new user and its first
  session are stored in one transaction);
- a session check answers ``null``, logs ``SessionTokenError`` and keeps the cookie;

and once it is back, the same requests succeed. The tables live in a PostgreSQL schema of
this module's own and are emptied before each test.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import delete, func, select
from sqlalchemy.engine import make_url

from authui import AuthConfig, Callbacks, Credentials, Events, SessionOptions, set_env_defaults
from authui.adapters import AdapterSession, AdapterUser
from authui.adapters.sqlalchemy import SQLAlchemyAdapter, SQLNaming
from authui.http import Response
from authui.testing import AuthClient
from tests.conftest import ENV
from tests.peers.pgadapter_node import fresh_schema, run_isolated

SESSION_COOKIE = "authjs.session-token"
ERROR_PAGE = "http://localhost:3000/auth/error?error=Configuration"


# The proxy ------------------------------------------------------------------------------


@dataclass
class Proxy:
    """A TCP proxy to ``upstream`` on a free port of 127.0.0.1 that can be cut and restored."""

    upstream: tuple[str, int]
    up: bool = True
    server: asyncio.Server | None = None
    links: set[asyncio.StreamWriter] = field(default_factory=set)
    tasks: set[asyncio.Task[None]] = field(default_factory=set)

    @property
    def port(self) -> int:
        assert self.server is not None
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._accept, "127.0.0.1", 0)

    async def cut(self) -> None:
        """Abort every open connection; turn new ones away until :meth:`restore`."""
        self.up = False
        for writer in list(self.links):
            writer.transport.abort()
        await self._settle()

    def restore(self) -> None:
        """Let connections through again."""
        self.up = True

    async def close(self) -> None:
        await self.cut()
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()

    async def _settle(self) -> None:
        if self.tasks:
            await asyncio.wait(list(self.tasks), timeout=5)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not self.up:
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        except OSError:
            writer.transport.abort()
            return
        self.links.update((writer, up_writer))
        for source, sink in ((reader, up_writer), (up_reader, writer)):
            task = asyncio.create_task(self._pipe(source, sink, (writer, up_writer)))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def _pipe(
        self,
        source: asyncio.StreamReader,
        sink: asyncio.StreamWriter,
        link: tuple[asyncio.StreamWriter, asyncio.StreamWriter],
    ) -> None:
        try:
            while data := await source.read(65536):
                sink.write(data)
                await sink.drain()
        except OSError:
            pass
        finally:
            for writer in link:  # one side gone: drop the other too
                writer.transport.abort()
                self.links.discard(writer)


# The database ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pg_schema(postgres_url: str) -> Iterator[str]:
    """A PostgreSQL schema of this module's own with authui's tables in it."""
    with fresh_schema(postgres_url, "authui_faults_") as schema:

        async def create() -> None:
            async with SQLAlchemyAdapter(postgres_url, naming=SQLNaming(schema=schema)) as adapter:
                await adapter.create_all()

        run_isolated(create)
        yield schema


@pytest.fixture
async def direct(postgres_url: str, pg_schema: str) -> AsyncIterator[SQLAlchemyAdapter]:
    """The test's own adapter, straight to PostgreSQL; the tables are emptied first."""
    async with SQLAlchemyAdapter(postgres_url, naming=SQLNaming(schema=pg_schema)) as adapter:
        async with adapter.engine.begin() as conn:
            for table in adapter.tables.metadata.sorted_tables:
                await conn.execute(delete(table))
        yield adapter


@pytest.fixture
async def proxy(postgres_url: str) -> AsyncIterator[Proxy]:
    url = make_url(postgres_url)
    proxy = Proxy((url.host or "127.0.0.1", url.port or 5432))
    await proxy.start()
    try:
        yield proxy
    finally:
        await proxy.close()


@pytest.fixture
async def adapter(
    postgres_url: str, pg_schema: str, proxy: Proxy
) -> AsyncIterator[SQLAlchemyAdapter]:
    """The app's adapter, through the proxy, with the default pool settings."""
    url = make_url(postgres_url).set(host="127.0.0.1", port=proxy.port)
    engine_options = {"connect_args": {"timeout": 5}}
    naming = SQLNaming(schema=pg_schema)
    async with SQLAlchemyAdapter(url, naming=naming, engine_options=engine_options) as adapter:
        yield adapter


# The app --------------------------------------------------------------------------------


async def authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
    """Any username with the password "correct horse"; no id, so the user is stored."""
    username = credentials.get("username")
    if not username or credentials.get("password") != "correct horse":
        return None
    return {"name": username.title(), "email": f"{username}@example.com"}


def app_config(adapter: SQLAlchemyAdapter, **overrides: Any) -> AuthConfig:
    provider = Credentials(
        credentials={"username": {"label": "Username"}, "password": {"type": "password"}},
        authorize=authorize,
    )
    fields: dict[str, Any] = {"providers": [provider], "adapter": adapter} | overrides
    return set_env_defaults(ENV, AuthConfig(**fields))


async def rows(direct: SQLAlchemyAdapter, email: str) -> tuple[int, int]:
    """How many users have ``email``, and how many sessions there are."""
    t = direct.tables
    async with direct.engine.connect() as conn:
        users = await conn.scalar(select(func.count()).where(t.users.c.email == email))
        sessions = await conn.scalar(select(func.count()).select_from(t.sessions))
    return int(users or 0), int(sessions or 0)


async def warm_up(adapter: SQLAlchemyAdapter) -> None:
    """A query through the proxy, so the pool holds a connection when the database goes."""
    assert await adapter.get_user_by_email("nobody@example.com") is None


def assert_configuration_error(response: Response) -> None:
    assert response.status == 302
    assert response.header("location") == ERROR_PAGE
    body = response.body.decode("utf-8", "replace")
    assert "Traceback" not in body
    assert "Error" not in body  # neither the exception's class nor its message
    assert not any(h.startswith(SESSION_COOKIE) for h in response.header_all("set-cookie"))


# The tests ------------------------------------------------------------------------------


async def test_sign_in_while_the_database_is_away(
    adapter: SQLAlchemyAdapter,
    direct: SQLAlchemyAdapter,
    proxy: Proxy,
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = AuthClient(app_config(adapter))
    await warm_up(adapter)
    await proxy.cut()
    response = await client.sign_in_with_credentials(username="grace", password="correct horse")
    assert_configuration_error(response)
    assert "AdapterError" in caplog.text
    assert SESSION_COOKIE not in client.cookies

    proxy.restore()
    assert await rows(direct, "grace@example.com") == (0, 0)
    again = await client.sign_in_with_credentials(username="grace", password="correct horse")
    assert again.status == 302
    assert (again.header("location") or "").startswith("http://localhost:3000/auth/new-user")
    assert await rows(direct, "grace@example.com") == (1, 1)
    session = (await client.get("session")).data()
    assert session["user"] == {"name": "Grace", "email": "grace@example.com", "image": None}


async def test_a_failing_session_write_leaves_no_user_behind(
    adapter: SQLAlchemyAdapter,
    direct: SQLAlchemyAdapter,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A new user and its first session are stored in one transaction: when the session
    row cannot be written (here: its token is taken, violating the unique constraint),
    the user row is rolled back too, and no ``create_user`` event fires."""
    taken = "taken-session-token"
    await direct.create_user(AdapterUser(id="owner", email="owner@example.com"))
    await direct.create_session(
        AdapterSession(
            session_token=taken,
            user_id="owner",
            expires=datetime.now(UTC) + timedelta(days=1),
        )
    )
    created: list[Any] = []
    client = AuthClient(
        app_config(
            adapter,
            session=SessionOptions(generate_session_token=lambda: taken),
            events=Events(create_user=lambda user: created.append(user)),
        )
    )
    response = await client.sign_in_with_credentials(username="edsger", password="correct horse")
    assert_configuration_error(response)
    assert "AdapterError" in caplog.text
    assert "create_user_and_session" in caplog.text
    assert await rows(direct, "edsger@example.com") == (0, 1), "a half-written sign-in"
    assert created == []


async def test_first_requests_after_the_database_came_back_while_idle(
    adapter: SQLAlchemyAdapter, direct: SQLAlchemyAdapter, proxy: Proxy
) -> None:
    """The database restarts while nobody asks: the pool's connections are dead, and
    neither the first session check nor the first sign-in after it is back may be the one
    that finds out."""
    client = AuthClient(app_config(adapter))
    signed_in = await client.sign_in_with_credentials(username="ada", password="correct horse")
    assert signed_in.status == 302
    expected = (await client.get("session")).data()

    await proxy.cut()
    proxy.restore()
    first_check = (await client.get("session")).data()
    assert (await client.get("session")).data() == expected  # the pool has a live one again

    await proxy.cut()
    proxy.restore()
    other = AuthClient(app_config(adapter))
    first_sign_in = await other.sign_in_with_credentials(username="ada", password="correct horse")
    assert (first_check, first_sign_in.header("location")) == (expected, "http://localhost:3000")


# Without a fault, the same rule ---------------------------------------------------------


@pytest.mark.parametrize("verdict", [False, "/elsewhere"], ids=["refused", "redirected"])
async def test_a_sign_in_the_sign_in_callback_stops_stores_no_user(
    direct: SQLAlchemyAdapter, verdict: bool | str
) -> None:
    created: list[Any] = []
    config = app_config(
        direct,
        callbacks=Callbacks(sign_in=lambda: verdict),
        events=Events(create_user=lambda user: created.append(user)),
    )
    client = AuthClient(config)
    response = await client.sign_in_with_credentials(username="alan", password="correct horse")
    assert response.status == 302
    assert SESSION_COOKIE not in client.cookies
    assert await rows(direct, "alan@example.com") == (0, 0), "a user for a refused sign-in"
    assert created == []
