"""The database going away under an adapter the app built itself, with a real PostgreSQL.

The app's ``SQLAlchemyAdapter(url, naming=…)`` (no engine options) reaches PostgreSQL
through the TCP proxy of ``tests.adapters.proxy``, which the test stops, starts again or
makes silent. Requests go through ``authui.testing.AuthClient`` with database sessions.

- While the database is down, a credentials sign-in answers 503 with ``Retry-After``: the
  "temporarily unavailable" page for a browser, ``{"url": …}`` for an API client. It
  leaves no user and no session behind (a new user and its first session are stored in
  one transaction), and once the database is back the same sign-in succeeds.
- A write the database refuses is ``error=AdapterError``, never ``Configuration``, and
  leaves no half-written sign-in.
- A silent partition is an outage within the adapter's own time limits (5 s to connect,
  10 s per statement); limits the app sets win; schema changes are not cut by them.
- An OAuth sign-in stores its new user and the user's account together: the connection
  cut at the account's insert, or the account refused, leaves no user behind.

The tables live in a PostgreSQL schema of this module's own and are emptied before each
test.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import delete, event, func, select
from sqlalchemy.engine import make_url

from authui import AuthConfig, Callbacks, Credentials, Events, SessionOptions, set_env_defaults
from authui.adapters import AdapterAccount, AdapterSession, AdapterUser
from authui.adapters.base import AdapterCalls
from authui.adapters.sqlalchemy import (
    CONNECT_TIMEOUT,
    STATEMENT_TIMEOUT,
    SQLAlchemyAdapter,
    SQLNaming,
)
from authui.errors import ServiceUnavailable
from authui.http import Response
from authui.logger import StandardLogger
from authui.providers.oauth import OIDC, OAuthProvider
from authui.testing import AuthClient
from tests.adapters.proxy import Proxy, running_proxy
from tests.conftest import ENV
from tests.oauth.standin import OIDCStandIn, sign_in_through
from tests.peers.pgadapter_node import fresh_schema, run_isolated

ORIGIN = "http://localhost:3000"
SESSION_COOKIE = "authjs.session-token"
PASSWORD = "correct horse"
BROWSER = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
RETURN_REDIRECT = {"x-auth-return-redirect": "1"}
ISSUER = "https://idp.example.com"
ADA: dict[str, Any] = {
    "sub": "ada-at-idp",
    "email": "ada@example.com",
    "name": "Ada",
    "email_verified": True,
}


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
            for table in reversed(adapter.tables.metadata.sorted_tables):
                await conn.execute(delete(table))
        yield adapter


@pytest.fixture
async def proxy(postgres_url: str) -> AsyncIterator[Proxy]:
    proxy = await running_proxy(postgres_url, 5432)
    yield proxy
    await proxy.stop()


@pytest.fixture
def proxied_url(postgres_url: str, proxy: Proxy) -> str:
    """The database's URL through the proxy."""
    return proxy.url(postgres_url)


@pytest.fixture
async def adapter(proxied_url: str, pg_schema: str) -> AsyncIterator[SQLAlchemyAdapter]:
    """The app's adapter, through the proxy, with every default (pool, time limits)."""
    async with SQLAlchemyAdapter(proxied_url, naming=SQLNaming(schema=pg_schema)) as adapter:
        yield adapter


# The app --------------------------------------------------------------------------------


async def authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
    """Any username with the password; no id, so a new user is stored."""
    username = credentials.get("username")
    if not username or credentials.get("password") != PASSWORD:
        return None
    return {"name": username.title(), "email": f"{username}@example.com"}


def app_config(adapter: object, **overrides: Any) -> AuthConfig:
    provider = Credentials(
        credentials={"username": {"label": "Username"}, "password": {"type": "password"}},
        authorize=authorize,
    )
    fields: dict[str, Any] = {"providers": [provider], "adapter": adapter} | overrides
    return set_env_defaults(ENV, AuthConfig(**fields))


async def sign_in(client: AuthClient, username: str, **headers: str) -> Response:
    form = {"csrfToken": await client.csrf_token(), "username": username, "password": PASSWORD}
    return await client.post("callback/credentials", form=form, headers=headers)


async def rows(direct: SQLAlchemyAdapter, email: str) -> tuple[int, int]:
    """How many users have ``email``, and how many sessions there are."""
    t = direct.tables
    async with direct.engine.connect() as conn:
        users = await conn.scalar(select(func.count()).where(t.users.c.email == email))
        sessions = await conn.scalar(select(func.count()).select_from(t.sessions))
    return int(users or 0), int(sessions or 0)


async def accounts(direct: SQLAlchemyAdapter) -> int:
    async with direct.engine.connect() as conn:
        count = await conn.scalar(select(func.count()).select_from(direct.tables.accounts))
    return int(count or 0)


async def warm_up(adapter: SQLAlchemyAdapter) -> None:
    """A query through the proxy, so the pool holds a connection when the database goes."""
    assert await adapter.get_user_by_email("nobody@example.com") is None


async def timed_outage(adapter: SQLAlchemyAdapter) -> float:
    """Seconds until an adapter call raises ``ServiceUnavailable``; a call still waiting
    after 30 s fails the test."""
    calls = AdapterCalls(adapter, StandardLogger())
    started = time.monotonic()
    async with asyncio.timeout(30):
        with pytest.raises(ServiceUnavailable):
            await calls.call("get_user_by_email", "the test", "nobody@example.com")
    return time.monotonic() - started


def assert_outage_page(response: Response) -> None:
    assert response.status == 503
    assert response.header("retry-after") == "30"
    assert ">Temporarily unavailable</h1>" in response.text
    assert "Configuration" not in response.text
    assert "Traceback" not in response.text
    assert not any(h.startswith(SESSION_COOKIE) for h in response.header_all("set-cookie"))


def oidc() -> OAuthProvider:
    return OIDC(id="idp", issuer=ISSUER)


# The database going down ----------------------------------------------------------------


async def test_sign_in_while_the_database_is_away(
    adapter: SQLAlchemyAdapter,
    direct: SQLAlchemyAdapter,
    proxy: Proxy,
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = AuthClient(app_config(adapter))
    await warm_up(adapter)
    await proxy.stop()
    assert_outage_page(await sign_in(client, "grace", **BROWSER))
    api = await sign_in(client, "grace", **RETURN_REDIRECT)
    assert (api.status, api.header("retry-after")) == (503, "30")
    assert api.data() == {"url": f"{ORIGIN}/auth/error?error=ServiceUnavailable"}
    assert "ServiceUnavailable" in caplog.text
    assert "Configuration" not in caplog.text
    assert SESSION_COOKIE not in client.cookies

    await proxy.start()
    assert await rows(direct, "grace@example.com") == (0, 0)
    again = await sign_in(client, "grace")
    assert again.status == 302
    assert (again.header("location") or "").startswith(f"{ORIGIN}/auth/new-user")
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
    the user row is rolled back too, no ``create_user`` event fires, and the user is told
    the request failed (``AdapterError``), not that the server is misconfigured."""
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
    response = await sign_in(client, "edsger")
    assert response.status == 302
    assert response.header("location") == f"{ORIGIN}/auth/error?error=AdapterError"
    assert not any(h.startswith(SESSION_COOKIE) for h in response.header_all("set-cookie"))
    assert "AdapterError" in caplog.text
    assert "create_user_and_session" in caplog.text
    assert "Configuration" not in caplog.text
    assert taken not in caplog.text
    assert await rows(direct, "edsger@example.com") == (0, 1), "a half-written sign-in"
    assert created == []
    page = await client.get("error?error=AdapterError", headers=BROWSER)
    assert page.status == 500
    assert "Server error" not in page.text


async def test_first_requests_after_the_database_came_back_while_idle(
    adapter: SQLAlchemyAdapter, direct: SQLAlchemyAdapter, proxy: Proxy
) -> None:
    """The database restarts while nobody asks: the pool's connections are dead, and
    neither the first session check nor the first sign-in after it is back may be the one
    that finds out."""
    client = AuthClient(app_config(adapter))
    signed_in = await sign_in(client, "ada")
    assert signed_in.status == 302
    expected = (await client.get("session")).data()

    await proxy.stop()
    await proxy.start()
    first_check = (await client.get("session")).data()
    assert (await client.get("session")).data() == expected  # the pool has a live one again

    await proxy.stop()
    await proxy.start()
    other = AuthClient(app_config(adapter))
    first_sign_in = await sign_in(other, "ada")
    assert (first_check, first_sign_in.header("location")) == (expected, ORIGIN)


# A silent partition: the adapter's own time limits ----------------------------------------


@pytest.mark.parametrize("when", ["connecting", "mid-statement"])
async def test_a_silent_partition_is_an_outage_within_the_default_time_limits(
    adapter: SQLAlchemyAdapter, proxy: Proxy, when: str
) -> None:
    """The adapter was built without any engine options; the database stops answering
    while a new connection is made, or while a pooled one runs a statement."""
    if when == "mid-statement":
        await warm_up(adapter)
        limit = STATEMENT_TIMEOUT
    else:
        limit = CONNECT_TIMEOUT
    proxy.blackhole()
    seconds = await timed_outage(adapter)
    print(f"\nsilent partition, {when}: ServiceUnavailable after {seconds:.1f} s")
    assert seconds < limit + 5


@pytest.mark.parametrize("where", ["connect_args", "url"])
async def test_time_limits_the_app_sets_win(
    proxied_url: str, pg_schema: str, proxy: Proxy, where: str
) -> None:
    naming = SQLNaming(schema=pg_schema)
    if where == "url":
        url = make_url(proxied_url).update_query_dict({"command_timeout": "1"})
        adapter = SQLAlchemyAdapter(url, naming=naming)
    else:
        options = {"connect_args": {"command_timeout": 1}}
        adapter = SQLAlchemyAdapter(proxied_url, naming=naming, engine_options=options)
    async with adapter:
        await warm_up(adapter)
        proxy.blackhole()
        assert await timed_outage(adapter) < 3


async def test_schema_changes_are_not_cut_by_the_statement_limit(
    proxied_url: str, pg_schema: str, direct: SQLAlchemyAdapter
) -> None:
    """``create_all`` waits for another process's schema change longer than the adapter's
    statement limit (1 s here): its statements run without it."""
    options = {"connect_args": {"command_timeout": 1}}
    naming = SQLNaming(schema=pg_schema)
    async with SQLAlchemyAdapter(proxied_url, naming=naming, engine_options=options) as adapter:
        holding = asyncio.Event()

        async def other_process() -> None:
            async with direct.schema_transaction():
                holding.set()
                await asyncio.sleep(2.5)

        other = asyncio.create_task(other_process())
        await holding.wait()
        started = time.monotonic()
        await adapter.create_all()
        waited = time.monotonic() - started
        await other
    assert waited > 1.5, "create_all did not wait for the schema lock"


# A new OAuth user and its account: both or neither ----------------------------------------


async def test_a_cut_at_a_new_oauth_users_account_leaves_no_user(
    adapter: SQLAlchemyAdapter, direct: SQLAlchemyAdapter, proxy: Proxy
) -> None:
    """The connection is cut exactly when the new user's account is inserted, after the
    user's own insert: the user must not stay behind, without its account (the user could
    then never sign in with that provider: their email is taken by an account-less user)."""
    accounts_table = adapter.tables.accounts
    cut_once = [True]

    def cut_at_account_insert(conn: Any, statement: Any, *args: Any) -> None:
        if cut_once[0] and getattr(statement, "table", None) is accounts_table:
            cut_once[0] = False
            proxy.cut()

    event.listen(adapter.engine.sync_engine, "before_execute", cut_at_account_insert)
    created: list[Any] = []
    outcome = await sign_in_through(
        oidc(),
        OIDCStandIn(ISSUER, claims=ADA),
        adapter=adapter,
        events=Events(create_user=lambda user: created.append(user)),
    )
    assert not cut_once[0], "the account was never inserted"
    assert outcome.callback.status == 503
    assert outcome.callback.header("retry-after") == "30"
    assert created == []

    await proxy.start()
    assert (await rows(direct, "ada@example.com"), await accounts(direct)) == ((0, 0), 0)
    again = await sign_in_through(oidc(), OIDCStandIn(ISSUER, claims=ADA), adapter=adapter)
    assert (again.callback.header("location") or "").startswith(f"{ORIGIN}/auth/new-user")
    assert (await rows(direct, "ada@example.com"), await accounts(direct)) == ((1, 1), 1)


class WithoutCreateUserAndAccount:
    """An adapter without the optional ``create_user_and_account``: authui falls back to
    ``create_user``, ``link_account`` and, if linking fails, ``delete_user``."""

    def __init__(self, adapter: SQLAlchemyAdapter) -> None:
        self._adapter = adapter

    def __getattr__(self, name: str) -> Any:
        if name == "create_user_and_account":
            raise AttributeError(name)
        return getattr(self._adapter, name)


@pytest.mark.parametrize("atomic", [True, False], ids=["one-transaction", "fallback"])
async def test_a_refused_account_of_a_new_oauth_user_leaves_no_user(
    adapter: SQLAlchemyAdapter, direct: SQLAlchemyAdapter, atomic: bool
) -> None:
    """Between the linking decision and the write (while the ``sign_in`` callback runs),
    a concurrent sign-in links the same provider account to a user of its own: the
    account's insert is refused, and the new user is not kept."""

    async def concurrent_sign_in() -> bool:
        rival = await direct.create_user(AdapterUser(id="rival", email="rival@example.com"))
        account = AdapterAccount(
            user_id=rival.id, type="oidc", provider="idp", provider_account_id=ADA["sub"]
        )
        await direct.link_account(account)
        return True

    app_adapter = adapter if atomic else WithoutCreateUserAndAccount(adapter)
    outcome = await sign_in_through(
        oidc(),
        OIDCStandIn(ISSUER, claims=ADA),
        adapter=app_adapter,
        callbacks=Callbacks(sign_in=concurrent_sign_in),
    )
    assert outcome.callback.header("location") == f"{ORIGIN}/auth/error?error=AdapterError"
    assert (await rows(direct, "ada@example.com"), await accounts(direct)) == ((0, 0), 1)
