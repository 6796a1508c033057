"""Outages of a real database behind a real cut connection, as users meet them.

The app's adapter URL points at a small TCP proxy (``tests.adapters.proxy``) that the
test runs in front of PostgreSQL (a database of this module's own) or Redis, and stops,
starts again or makes silent.

While the database is away, a sign-in and a session check answer 503 with
``Retry-After`` (the "temporarily unavailable" page for a browser, ``null`` from the
session endpoint), within a bounded time, with one log line and no traceback, and leave
no rows behind; the session cookie is kept. Once the database is back the same requests
succeed, with no restart of the app. A write the database refuses is an ``AdapterError``,
never ``Configuration``; and no token, password or secret reaches the log.

The module ends with what counts as an outage, for the exceptions of every driver.
"""

from __future__ import annotations

import hashlib
import logging
import re
import socket
import sqlite3
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncmy.errors
import asyncpg.exceptions
import pytest
import redis.exceptions
from redis.asyncio import Redis
from sqlalchemy import exc as sa
from sqlalchemy import func, select

from authui import AuthConfig, Callbacks, Credentials, SessionOptions, set_env_defaults
from authui.adapters import AdapterSession, AdapterUser
from authui.adapters.base import AdapterCalls
from authui.adapters.outages import is_outage
from authui.adapters.sqlalchemy import SQLAlchemyAdapter, SQLNaming
from authui.errors import AdapterError, ServiceUnavailable
from authui.http import Response
from authui.logger import StandardLogger
from authui.options import aclose
from authui.providers.base import Provider
from authui.providers.email import EmailProvider
from authui.testing import AuthClient
from tests.adapters.proxy import Proxy, running_proxy
from tests.conftest import ENV
from tests.peers.databases import fresh_postgres_database

ORIGIN = "http://localhost:3000"
SESSION_COOKIE = "authjs.session-token"
PASSWORD = "correct horse"
BROWSER = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
RETURN_REDIRECT = {"x-auth-return-redirect": "1"}
OUTAGE_PAGE = f"{ORIGIN}/auth/error?error=ServiceUnavailable"
REFUSED_BOUND = 2.0
"""Seconds an answer may take when the database refuses connections."""
SILENT_BOUND = 20.0
"""Seconds an answer may take when it answers nothing: the adapter URL's time limits
(5 s to connect, 10 s per statement) and a little more."""
REDIS_DATABASE = 9
"""The Redis database this module's app uses, emptied before each test."""


# The databases --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pg_database(postgres_url: str) -> Iterator[str]:
    """The URL of a PostgreSQL database of this module's own, with authui's tables."""
    with fresh_postgres_database(postgres_url, "authui_outages_") as url:
        yield url


@pytest.fixture
async def direct(pg_database: str) -> AsyncIterator[SQLAlchemyAdapter]:
    """The test's own adapter, straight to the database; the tables are emptied first."""
    async with SQLAlchemyAdapter(pg_database) as adapter:
        async with adapter.engine.begin() as conn:
            for table in reversed(adapter.tables.metadata.sorted_tables):
                await conn.execute(table.delete())
        yield adapter


@pytest.fixture
async def pg_proxy(pg_database: str) -> AsyncIterator[Proxy]:
    proxy = await running_proxy(pg_database, 5432)
    yield proxy
    await proxy.stop()


@pytest.fixture
def pg_url(pg_database: str, pg_proxy: Proxy) -> str:
    """The app's adapter URL: the database, through the proxy."""
    return pg_proxy.url(pg_database)


@pytest.fixture
async def redis_proxy(redis_url: str) -> AsyncIterator[Proxy]:
    """A proxy in front of Redis, whose database ``REDIS_DATABASE`` is empty before and
    after the test."""
    proxy = await running_proxy(redis_url, 6379)
    host, port = proxy.upstream
    client = Redis(host=host, port=port, db=REDIS_DATABASE)
    await client.flushdb()
    yield proxy
    await proxy.stop()
    await client.flushdb()
    await client.aclose()


async def rows(direct: SQLAlchemyAdapter, email: str) -> tuple[int, int]:
    """How many users have ``email``, and how many sessions there are."""
    t = direct.tables
    async with direct.engine.connect() as conn:
        users = await conn.scalar(select(func.count()).where(t.users.c.email == email))
        sessions = await conn.scalar(select(func.count()).select_from(t.sessions))
    return int(users or 0), int(sessions or 0)


# The app ----------------------------------------------------------------------------------


async def authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
    """Any username with the password; no id, so a new user is stored."""
    username = credentials.get("username")
    if not username or credentials.get("password") != PASSWORD:
        return None
    return {"name": username.title(), "email": f"{username}@example.com"}


class Outbox:
    """Keeps the sign-in emails."""

    def __init__(self) -> None:
        self.urls: list[str] = []

    async def __call__(self, message: Any, provider: EmailProvider) -> None:
        self.urls.append(message.url)


def app_config(adapter_url: str, *more: Provider, **overrides: Any) -> AuthConfig:
    """Credentials sign-in (and the providers in ``more``) with database sessions in the
    database at ``adapter_url``."""
    provider = Credentials(
        credentials={"username": {"label": "Username"}, "password": {"type": "password"}},
        authorize=authorize,
    )
    fields: dict[str, Any] = {"providers": [provider, *more], "adapter": adapter_url}
    return set_env_defaults(ENV, AuthConfig(**fields | overrides))


def far_future() -> datetime:
    return datetime.now(UTC) + timedelta(days=1)


@pytest.fixture
async def configs() -> AsyncIterator[list[AuthConfig]]:
    """Configurations made by a test, whose adapters (made from URLs) are closed after it."""
    made: list[AuthConfig] = []
    yield made
    for config in made:
        await aclose(config)


async def sign_in(client: AuthClient, username: str, **headers: str) -> Response:
    form = {"csrfToken": await client.csrf_token(), "username": username, "password": PASSWORD}
    return await client.post("callback/credentials", form=form, headers=headers)


async def timed(request: Any) -> tuple[Response, float]:
    started = time.monotonic()
    response: Response = await request
    return response, time.monotonic() - started


def assert_outage_page(response: Response) -> None:
    assert response.status == 503
    assert response.header("retry-after") == "30"
    assert ">Temporarily unavailable</h1>" in response.text
    assert "Configuration" not in response.text
    assert "Server error" not in response.text


def assert_outage_session(response: Response) -> None:
    assert (response.status, response.body) == (503, b"null")
    assert response.header("retry-after") == "30"
    assert response.header_all("set-cookie") == []


def assert_one_line_each(caplog: pytest.LogCaptureFixture, expected: str) -> None:
    errors = [r for r in caplog.records if r.name == "authui" and r.levelno >= logging.ERROR]
    assert errors, "nothing was logged"
    assert {r.getMessage().split(":")[0] for r in errors} == {f"[auth][error] {expected}"}
    assert all(r.exc_info is None and "\n" not in r.getMessage() for r in errors)
    assert "Traceback" not in caplog.text
    assert "Configuration" not in caplog.text


# The tests ------------------------------------------------------------------------------


async def test_postgres_going_down_is_an_outage_until_it_is_back(
    pg_url: str,
    pg_proxy: Proxy,
    direct: SQLAlchemyAdapter,
    configs: list[AuthConfig],
    caplog: pytest.LogCaptureFixture,
) -> None:
    configs.append(config := app_config(pg_url))
    ada = AuthClient(config)
    assert (await sign_in(ada, "ada")).status == 302
    token = ada.cookies[SESSION_COOKIE]
    grace = AuthClient(config)
    await grace.csrf_token()

    await pg_proxy.stop()
    checked, session_time = await timed(ada.get("session"))
    assert_outage_session(checked)
    assert ada.cookies[SESSION_COOKIE] == token
    page, sign_in_time = await timed(sign_in(grace, "grace", **BROWSER))
    assert_outage_page(page)
    api = await sign_in(grace, "grace", **RETURN_REDIRECT)
    assert (api.status, api.data()) == (503, {"url": OUTAGE_PAGE})
    assert max(session_time, sign_in_time) < REFUSED_BOUND
    assert_one_line_each(caplog, "ServiceUnavailable")
    print(f"\nrefused connections: session {session_time:.3f} s, sign-in {sign_in_time:.3f} s")

    await pg_proxy.start()
    assert await rows(direct, "grace@example.com") == (0, 1)
    assert (await ada.get("session")).data()["user"]["email"] == "ada@example.com"
    again = await sign_in(grace, "grace")
    assert (again.header("location") or "").startswith(f"{ORIGIN}/auth/new-user")
    assert await rows(direct, "grace@example.com") == (1, 2)


async def test_a_cut_in_the_middle_of_a_sign_in_leaves_no_rows(
    pg_url: str, pg_proxy: Proxy, direct: SQLAlchemyAdapter, configs: list[AuthConfig]
) -> None:
    """The user is looked up, then the database goes before the user and the session are
    stored (the ``sign_in`` callback runs in between)."""
    cut = True

    async def cut_once() -> bool:
        if cut:
            await pg_proxy.stop()
        return True

    configs.append(config := app_config(pg_url, callbacks=Callbacks(sign_in=cut_once)))
    client = AuthClient(config)
    assert_outage_page(await sign_in(client, "edsger", **BROWSER))
    assert SESSION_COOKIE not in client.cookies

    cut = False
    await pg_proxy.start()
    assert await rows(direct, "edsger@example.com") == (0, 0)
    assert (await sign_in(client, "edsger")).status == 302
    assert await rows(direct, "edsger@example.com") == (1, 1)


async def test_a_silent_partition_is_an_outage_within_the_time_limits(
    pg_url: str, pg_proxy: Proxy, direct: SQLAlchemyAdapter, configs: list[AuthConfig]
) -> None:
    configs.append(config := app_config(pg_url))
    ada = AuthClient(config)
    assert (await sign_in(ada, "ada")).status == 302

    pg_proxy.blackhole()
    checked, session_time = await timed(ada.get("session"))
    assert_outage_session(checked)
    page, sign_in_time = await timed(sign_in(AuthClient(config), "grace", **BROWSER))
    assert_outage_page(page)
    assert max(session_time, sign_in_time) < SILENT_BOUND
    print(f"\nsilent partition: session {session_time:.1f} s, sign-in {sign_in_time:.1f} s")

    await pg_proxy.stop()
    await pg_proxy.start()
    assert (await ada.get("session")).data()["user"]["email"] == "ada@example.com"
    assert await rows(direct, "grace@example.com") == (0, 1)


async def test_redis_going_down_is_an_outage_until_it_is_back(
    redis_proxy: Proxy, configs: list[AuthConfig]
) -> None:
    url = f"redis://127.0.0.1:{redis_proxy.port}/{REDIS_DATABASE}"
    configs.append(config := app_config(url))
    ada = AuthClient(config)
    assert (await sign_in(ada, "ada")).status == 302

    await redis_proxy.stop()
    checked, session_time = await timed(ada.get("session"))
    assert_outage_session(checked)
    page, sign_in_time = await timed(sign_in(AuthClient(config), "grace", **BROWSER))
    assert_outage_page(page)
    assert max(session_time, sign_in_time) < REFUSED_BOUND
    print(f"\nRedis refused: session {session_time:.3f} s, sign-in {sign_in_time:.3f} s")

    await redis_proxy.start()
    assert (await ada.get("session")).data()["user"]["email"] == "ada@example.com"
    grace = AuthClient(config)
    again = await sign_in(grace, "grace")
    assert (again.header("location") or "").startswith(f"{ORIGIN}/auth/new-user")
    assert (await grace.get("session")).data()["user"]["email"] == "grace@example.com"


async def test_a_refused_write_is_an_adapter_error_and_leaves_no_rows(
    pg_database: str,
    direct: SQLAlchemyAdapter,
    configs: list[AuthConfig],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A new user's first session gets a token that is taken: the unique constraint
    refuses it, the user is rolled back with it, and the user is told so (not
    ``Configuration``)."""
    taken = "taken-session-token-" + uuid.uuid4().hex
    await direct.create_user(AdapterUser(id="owner", email="owner@example.com"))
    await direct.create_session(
        AdapterSession(session_token=taken, user_id="owner", expires=far_future())
    )
    session = SessionOptions(generate_session_token=lambda: taken)
    configs.append(config := app_config(pg_database, session=session))
    client = AuthClient(config)
    response = await sign_in(client, "barbara")
    location = f"{ORIGIN}/auth/error?error=AdapterError"
    assert (response.status, response.header("location")) == (302, location)
    assert await rows(direct, "barbara@example.com") == (0, 1)
    assert (await client.get("error?error=AdapterError")).status == 500
    assert_one_line_each(caplog, "AdapterError")
    assert taken not in caplog.text


async def test_no_token_password_or_secret_reaches_the_log(
    pg_url: str,
    pg_proxy: Proxy,
    direct: SQLAlchemyAdapter,
    configs: list[AuthConfig],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Every flow this module touches, with debug logging on: a sign-in, a sign-in link,
    then during an outage a session check, a sign-in, the link and a sign-out; a refused
    write; a bad ``callbackUrl`` and no such action."""
    outbox = Outbox()
    email = EmailProvider(transport=outbox, sender="login@example.com")
    configs.append(config := app_config(pg_url, email, debug=True))
    ada = AuthClient(config)
    assert (await sign_in(ada, "ada")).status == 302
    session_token = ada.cookies[SESSION_COOKIE]
    csrf_cookie = ada.cookies["authjs.csrf-token"]
    csrf = await ada.csrf_token()
    link = await ada.post("signin/email", form={"csrfToken": csrf, "email": "grace@example.com"})
    assert link.status == 302
    link_token = re.search(r"token=([^&]+)", outbox.urls[-1])
    assert link_token is not None
    stored_token = hashlib.sha256((link_token[1] + ENV["AUTH_SECRET"]).encode()).hexdigest()
    confirm = await ada.get(outbox.urls[-1].removeprefix(f"{ORIGIN}/auth/"))
    fields = dict(re.findall(r'type="hidden" name="(\w+)" value="([^"]*)"', confirm.text))

    await pg_proxy.stop()
    assert (await ada.get("session")).status == 503
    assert (await sign_in(AuthClient(config), "grace")).status == 503
    assert (await ada.post("callback/email", form=fields)).status == 503
    await ada.get("signin?callbackUrl=javascript:alert(1)", headers=BROWSER)
    await ada.get("nope", headers=BROWSER)
    signed_out = await ada.post("signout", form={"csrfToken": csrf})
    assert signed_out.status == 302
    await pg_proxy.start()
    taken = SessionOptions(generate_session_token=lambda: session_token)
    configs.append(clashing := app_config(pg_url, debug=True, session=taken))
    assert (await sign_in(AuthClient(clashing), "alan")).status == 302

    assert "[auth][debug]" in caplog.text
    logged = caplog.text
    secrets = {
        "session token": session_token,
        "CSRF token": csrf,
        "CSRF cookie": csrf_cookie,
        "link token": link_token[1],
        "stored link token": stored_token,
        "password": PASSWORD,
        "secret": ENV["AUTH_SECRET"],
    }
    assert [name for name, value in secrets.items() if value in logged] == []


# What counts as an outage -------------------------------------------------------------


def wrapped(orig: BaseException, *, invalidated: bool = False) -> BaseException:
    """``orig`` as SQLAlchemy wraps a driver's error."""
    return sa.DBAPIError.instance(
        "SELECT 1", {}, orig, Exception, connection_invalidated=invalidated
    )


OUTAGES = {
    "refused": ConnectionRefusedError(111, "Connect call failed"),
    "reset": ConnectionResetError(104, "Connection reset by peer"),
    "timed out": TimeoutError(),
    "unknown host": socket.gaierror(-2, "Name or service not known"),
    "unreachable": OSError(101, "Network is unreachable"),
    "asyncio, several addresses": OSError("Multiple exceptions: [Errno 111] …, [Errno 99] …"),
    "pool exhausted": sa.TimeoutError("QueuePool limit of size 15 overflow 0 reached"),
    "SQLAlchemy saw a disconnect": wrapped(Exception("gone"), invalidated=True),
    "asyncpg, connection lost": asyncpg.exceptions.ConnectionDoesNotExistError("closed"),
    "asyncpg, shutting down": asyncpg.exceptions.AdminShutdownError("terminating"),
    "asyncpg, starting up": asyncpg.exceptions.CannotConnectNowError("starting up"),
    "asyncpg, no connection left": asyncpg.exceptions.TooManyConnectionsError("too many"),
    "MySQL, cannot connect": wrapped(asyncmy.errors.OperationalError(2003, "Can't connect")),
    "MySQL, gone away": wrapped(asyncmy.errors.OperationalError(2006, "server has gone away")),
    "MySQL, too many connections": asyncmy.errors.OperationalError(1040, "Too many connections"),
    "redis, refused": redis.exceptions.ConnectionError("Error 111 connecting"),
    "redis, timed out": redis.exceptions.TimeoutError("Timeout reading from socket"),
    "redis, loading": redis.exceptions.BusyLoadingError("loading the dataset"),
}

NOT_OUTAGES = {
    "a bug": ValueError("invalid literal"),
    "a missing file": FileNotFoundError(2, "No such file or directory: 'auth.db'"),
    "a refused write": wrapped(asyncpg.exceptions.UniqueViolationError("duplicate key")),
    "a missing table": wrapped(asyncpg.exceptions.UndefinedTableError("no users")),
    "asyncpg, wrong password": asyncpg.exceptions.InvalidPasswordError("password"),
    "MySQL, duplicate": wrapped(asyncmy.errors.IntegrityError(1062, "Duplicate entry")),
    "MySQL, unknown column": wrapped(asyncmy.errors.OperationalError(1054, "Unknown column")),
    "redis, wrong password": redis.exceptions.AuthenticationError("invalid password"),
    "redis, wrong type": redis.exceptions.ResponseError("WRONGTYPE"),
}


@pytest.mark.parametrize("exc", OUTAGES.values(), ids=OUTAGES.keys())
def test_outages(exc: BaseException) -> None:
    assert is_outage(exc)


@pytest.mark.parametrize("exc", NOT_OUTAGES.values(), ids=NOT_OUTAGES.keys())
def test_not_outages(exc: BaseException) -> None:
    assert not is_outage(exc)


def test_an_outage_found_in_what_the_error_was_raised_from() -> None:
    failure = RuntimeError("the query failed")
    failure.__cause__ = ConnectionResetError(104, "reset")
    assert is_outage(failure)
    failure.__cause__ = None
    failure.__context__ = OSError(110, "Connection timed out")
    assert is_outage(failure)


class Failing:
    def __init__(self, exc: Exception) -> None:
        self.exc = exc

    async def create_session(self, session: AdapterSession) -> None:
        raise self.exc


async def test_adapter_calls_raise_service_unavailable_for_an_outage() -> None:
    calls = AdapterCalls(Failing(ConnectionRefusedError(111, "refused")), StandardLogger())
    session = AdapterSession(session_token="secret-token-1", user_id="u", expires=far_future())
    with pytest.raises(ServiceUnavailable) as raised:
        await calls.call("create_session", "database sessions", session)
    assert raised.value.cause == {"method": "create_session"}
    assert isinstance(raised.value.__cause__, ConnectionRefusedError)


async def test_the_message_leaves_out_what_the_driver_quotes(mariadb_url: str) -> None:
    """MariaDB names the duplicate value in its error; the log line must not."""
    own = f"outages_{uuid.uuid4().hex[:8]}_{{}}".format
    naming = SQLNaming(
        users=own("users"),
        accounts=own("accounts"),
        sessions=own("sessions"),
        verification_tokens=own("verification_token"),
        authenticators=own("authenticators"),
        rate_limits=own("rate_limits"),
        challenges=own("challenges"),
        leases=own("leases"),
    )
    token = "mariadb-duplicate-" + uuid.uuid4().hex
    async with SQLAlchemyAdapter(mariadb_url, naming=naming) as adapter:
        await adapter.create_all()
        try:
            user = await adapter.create_user(AdapterUser(id="u", email=None))
            session = AdapterSession(session_token=token, user_id=user.id, expires=far_future())
            await adapter.create_session(session)
            calls = AdapterCalls(adapter, StandardLogger())
            with pytest.raises(AdapterError) as raised:
                await calls.call("create_session", "database sessions", session)
        finally:
            await adapter.drop_all()
    assert token in str(raised.value.__cause__)
    assert token not in str(raised.value)
    assert "Duplicate entry '…'" in str(raised.value)


def test_sqlite_busy_past_its_timeout_is_an_outage_and_its_other_errors_are_not(
    tmp_path: Path,
) -> None:
    path = tmp_path / "auth.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE sessions (token TEXT)")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(sqlite3.OperationalError) as busy:
            sqlite3.connect(path, timeout=0).execute("SELECT * FROM sessions")
    finally:
        holder.close()
    with pytest.raises(sqlite3.OperationalError) as missing:
        sqlite3.connect(":memory:").execute("SELECT * FROM sessions")
    assert "locked" in str(busy.value)
    assert is_outage(busy.value)
    assert is_outage(wrapped(busy.value))
    assert not is_outage(missing.value)
    assert not is_outage(wrapped(missing.value))


async def test_a_sqlite_lock_held_past_the_busy_timeout_is_an_outage_until_released(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Another process writes for longer than the engine waits (its busy timeout, here
    0.3 s): the session check answers 503 with the cookie kept, not ``null`` as if the
    user had signed out; once the lock goes, the session is back."""
    path = tmp_path / "auth.db"
    options = {"connect_args": {"timeout": 0.3}}
    adapter = SQLAlchemyAdapter(f"sqlite+aiosqlite:///{path}", engine_options=options)
    await adapter.create_all()
    client = AuthClient(app_config("unused", adapter=adapter))
    try:
        assert (await sign_in(client, "ada")).status == 302
        token = client.cookies[SESSION_COOKIE]
        writer = sqlite3.connect(path, isolation_level=None)
        writer.execute("BEGIN EXCLUSIVE")
        try:
            assert_outage_session(await client.get("session"))
        finally:
            writer.close()
        assert client.cookies[SESSION_COOKIE] == token
        assert (await client.get("session")).data()["user"]["email"] == "ada@example.com"
        assert_one_line_each(caplog, "ServiceUnavailable")
    finally:
        await adapter.close()
