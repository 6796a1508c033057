"""``AuthConfig(adapter="<URL>")``: the embedded SQLite default and bad URLs."""

from __future__ import annotations

import asyncio
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from authui.adapters.account import UserSession
from authui.adapters.base import AdapterSession, AdapterUser
from authui.adapters.from_url import ReadyOnFirstUse, adapter_from_url
from authui.adapters.sql.migrations import LATEST_VERSION, SchemaMigrator
from authui.adapters.sqlalchemy import SQLAlchemyAdapter
from authui.options import resolve
from authui.testing import AuthClient
from tests.conftest import make_config


def embedded(url: str) -> ReadyOnFirstUse:
    """The adapter of an embedded database's URL: its schema is made on first use."""
    adapter = adapter_from_url(url)
    assert isinstance(adapter, ReadyOnFirstUse)
    return adapter


async def test_sqlite_url_creates_its_tables_and_keeps_sessions_across_restarts(
    tmp_path: Path,
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'auth.db'}"
    config = make_config(adapter=url)
    first = AuthClient(config)
    response = await first.sign_in_with_credentials(username="ada", password="correct horse")
    assert response.status == 302
    assert (await first.get("session")).data()["user"]["email"] == "ada@example.com"
    assert (tmp_path / "auth.db").stat().st_size > 0

    status = await SchemaMigrator(resolve(config).config.adapter.adapter).status()
    assert (status.version, status.pending) == (status.latest, ())
    await resolve(config).config.adapter.close()

    again = make_config(adapter=url)
    restarted = AuthClient(again, cookies=dict(first.cookies))
    session = (await restarted.get("session")).data()
    assert session["user"]["name"] == "Ada Lovelace"
    await resolve(again).config.adapter.close()


async def test_an_embedded_database_from_before_rate_limits_is_upgraded_on_first_use(
    tmp_path: Path,
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'auth.db'}"
    async with SQLAlchemyAdapter(url) as adapter:
        await SchemaMigrator(adapter).init(target=2)  # the schema before rate_limits
    wrapped = adapter_from_url(url)
    assert isinstance(wrapped, ReadyOnFirstUse)
    assert [await wrapped.increment_rate_limit("k", 60) for _ in range(2)] == [1, 2]
    status = await SchemaMigrator(wrapped.adapter).status()
    assert (status.version, status.pending) == (LATEST_VERSION, ())
    await wrapped.close()


@pytest.mark.parametrize("made_by", ["init", "create_all"])
async def test_an_embedded_database_of_the_previous_version_gets_the_account_center(
    tmp_path: Path, made_by: str
) -> None:
    """A SQLite file at version 5, or made unversioned by the previous version's
    ``create_all`` (every table but the account center's), with a session in it: the first
    call adds the account center's tables (adopting the unversioned ones), and the session
    stays, listed without details."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'auth.db'}"
    async with SQLAlchemyAdapter(url) as adapter:
        if made_by == "init":
            await SchemaMigrator(adapter).init(target=5)
        else:
            await adapter.create_all()
            async with adapter.engine.begin() as conn:
                for table in adapter.tables.account_center:
                    await conn.run_sync(table.drop)
        user = await adapter.create_user(AdapterUser(id="u1", email="ada@example.com"))
        session = AdapterSession(
            session_token="s", user_id="u1", expires=datetime.now(UTC) + timedelta(days=1)
        )
        await adapter.create_session(session)
    wrapped = embedded(url)
    assert await wrapped.list_user_sessions("u1") == [UserSession(session=session, details=None)]
    assert await wrapped.bump_session_version("u1") == 1
    found = await wrapped.get_session_and_user("s")
    assert found is not None
    assert found[1] == user
    status = await SchemaMigrator(wrapped.adapter).status()
    assert (status.version, status.pending) == (LATEST_VERSION, ())
    await wrapped.close()


async def test_an_unknown_database_url_is_a_configuration_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = AuthClient(make_config(adapter="nosuchdb://localhost/x"))
    response = await client.get("session")
    assert response.status == 500
    assert "nosuchdb://localhost/x" in caplog.text


async def test_an_embedded_database_made_by_create_all_is_adopted_and_upgraded_on_first_use(
    tmp_path: Path,
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'auth.db'}"
    async with SQLAlchemyAdapter(url) as adapter:
        await adapter.create_all()  # tables, but no recorded version
    wrapped = adapter_from_url(url)
    assert isinstance(wrapped, ReadyOnFirstUse)
    assert await wrapped.get_user("nobody") is None
    status = await SchemaMigrator(wrapped.adapter).status()
    assert (status.version, status.pending) == (LATEST_VERSION, ())
    await wrapped.close()


async def test_adapters_racing_on_a_new_embedded_database_all_answer(tmp_path: Path) -> None:
    """Four adapters on one new SQLite file (four workers' pools), three calls each at
    once: the first makes the schema and every call answers."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'auth.db'}"
    adapters = [embedded(url) for _ in range(4)]
    try:
        answers = await asyncio.gather(
            *(adapter.get_user("nobody") for adapter in adapters for _ in range(3))
        )
    finally:
        for adapter in adapters:
            await adapter.close()
    assert answers == [None] * 12
    async with SQLAlchemyAdapter(url) as database:
        status = await SchemaMigrator(database).status()
    assert (status.version, status.pending) == (LATEST_VERSION, ())


async def test_a_database_url_in_an_error_shows_no_password(
    caplog: pytest.LogCaptureFixture,
) -> None:
    url = "postgresql+nosuchdriver://app:s3cret-pw@db.example/app"
    client = AuthClient(make_config(adapter=url))
    assert (await client.get("session")).status == 500
    assert "postgresql+nosuchdriver://app:***@db.example/app" in caplog.text
    assert "s3cret-pw" not in caplog.text


async def test_a_redis_url_without_redis_py_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    for name in [
        m for m in sys.modules if m == "redis" or m.startswith(("redis.", "authui.adapters.redis"))
    ]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "redis", None)  # what an import finds without the package
    with pytest.raises(ValueError, match=r"pip install 'authui\[redis\]'") as refused:
        adapter_from_url("redis://:s3cret-pw@cache.example:6379/0")
    assert "s3cret-pw" not in str(refused.value)
    client = AuthClient(make_config(adapter="redis://cache.example:6379/0"))
    assert (await client.get("session")).status == 500  # a configuration error, not a crash
    assert "authui[redis]" in caplog.text


@pytest.mark.parametrize(
    ("given", "driver"),
    [
        ("postgres://app@db.internal/app", "postgresql+asyncpg"),
        ("postgresql://app@db.internal/app", "postgresql+asyncpg"),
        ("mysql://app@db.internal/app", "mysql+asyncmy"),
        ("mariadb://app@db.internal/app", "mariadb+asyncmy"),
        ("postgresql+asyncpg://app@db.internal/app", "postgresql+asyncpg"),
    ],
)
async def test_a_plain_url_gets_the_async_driver(given: str, driver: str) -> None:
    """The URL an Auth.js app's environment holds (``postgres://…``, as node's ``pg``
    takes it) works as it is."""
    wrapped = adapter_from_url(given)
    assert isinstance(wrapped, ReadyOnFirstUse)
    assert wrapped.adapter.engine.url.drivername == driver
    await wrapped.close()
