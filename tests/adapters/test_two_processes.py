"""Two server processes, one database: a session made by one is used and ended by the
other, and a session revoked in the database is gone for both at their next request.

Two hypercorn processes of ``tests.peers.shared_app`` (each on a pre-bound free port of
127.0.0.1, like the e2e launcher) share one store: tables of this test's own (made by
``SQLAlchemyAdapter.create_all``) in PostgreSQL, MariaDB or a SQLite file, or a fresh
Redis key prefix. One httpx client (its cookie jar is per host, and both servers are
127.0.0.1) signs in through process A, reads the session through process B (``/me`` and
``/auth/session``), signs out through B, and then A no longer knows the session. The
session row (or key) is read straight from the store after sign-in and after sign-out.

Revocation: once both processes have answered a session (so anything either kept would
be warm), the test deletes it in the store, as an operator's tool would; the next request
to each process finds no session. Nothing of a session is kept between requests.
"""

from __future__ import annotations

import json
import os
import secrets
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import httpx
import pytest
from redis.asyncio import Redis
from sqlalchemy import delete, select

from authui.adapters.sql.schema import to_utc
from authui.adapters.sqlalchemy import SQLAlchemyAdapter, SQLNaming
from tests.peers.pgadapter_node import fresh_schema, run_isolated
from tests.peers.servers import asgi_servers

APP = "tests.peers.shared_app:app"
SESSION_COOKIE = "authjs.session-token"


# The servers ----------------------------------------------------------------------------


def server_env(**settings: str) -> dict[str, str]:
    """The environment of both processes: one secret, trusted host, the adapter settings."""
    return {
        **os.environ,
        "AUTH_SECRET": secrets.token_urlsafe(32),
        "AUTH_TRUST_HOST": "true",
        **settings,
    }


# The stores -----------------------------------------------------------------------------


StoredExpiry = Callable[[str], Awaitable[datetime | None]]
"""The stored expiry of the session with this token, or ``None`` when there is none."""


@dataclass
class Store:
    """A store both processes use: their settings, and the test's own access to it."""

    env: dict[str, str]
    stored_expiry: StoredExpiry
    revoke: Callable[[str], Awaitable[None]]
    """Delete the session with this token in the store itself."""
    has_user: Callable[[str], Awaitable[bool]]
    """Whether a user with this email is stored."""


def sql_store(adapter: SQLAlchemyAdapter, env: dict[str, str]) -> Store:
    sessions = adapter.tables.sessions

    async def stored_expiry(token: str) -> datetime | None:
        async with adapter.engine.connect() as conn:
            query = select(sessions.c.expires).where(sessions.c.session_token == token)
            expires: datetime | None = (await conn.execute(query)).scalar_one_or_none()
            return expires

    async def revoke(token: str) -> None:
        async with adapter.engine.begin() as conn:
            await conn.execute(delete(sessions).where(sessions.c.session_token == token))

    async def has_user(email: str) -> bool:
        return await adapter.get_user_by_email(email) is not None

    return Store(server_env(AUTHUI_SHARED_ADAPTER="sql", **env), stored_expiry, revoke, has_user)


@pytest.fixture
async def sql_tables(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    """Tables of this test's own in the database ``request.param`` names."""
    kind = request.param
    schema = prefix = ""
    if kind == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path / 'shared.db'}"
    elif kind == "mariadb":
        url = request.getfixturevalue("mariadb_url")
        prefix = f"t2p_{uuid.uuid4().hex[:8]}_"
    else:
        url = request.getfixturevalue("postgres_url")
        with fresh_schema(url, "authui_2p_") as made:
            schema = made
            async for store in _sql_store(url, schema, prefix):
                yield store
        return
    async for store in _sql_store(url, schema, prefix):
        yield store


async def _sql_store(url: str, schema: str, prefix: str) -> AsyncIterator[Store]:
    naming = SQLNaming(schema=schema or None).prefixed(prefix)

    async def create() -> None:
        async with SQLAlchemyAdapter(url, naming=naming) as adapter:
            await adapter.create_all()

    run_isolated(create)
    env = {
        "AUTHUI_SHARED_DATABASE_URL": url,
        "AUTHUI_SHARED_SQL_SCHEMA": schema,
        "AUTHUI_SHARED_SQL_PREFIX": prefix,
    }
    async with SQLAlchemyAdapter(url, naming=naming) as adapter:
        try:
            yield sql_store(adapter, env)
        finally:
            if prefix:
                await adapter.drop_all()


@pytest.fixture
async def redis_store(redis_url: str) -> AsyncIterator[Store]:
    """A fresh key prefix in Redis; its keys are deleted afterwards."""
    prefix = f"authui-test:{uuid.uuid4().hex}:"
    client = Redis.from_url(redis_url, socket_connect_timeout=2, socket_timeout=10)

    async def stored_expiry(token: str) -> datetime | None:
        stored = await client.get(f"{prefix}session:{token}")
        return None if stored is None else to_utc(json.loads(stored)["expires"])

    async def revoke(token: str) -> None:
        await client.delete(f"{prefix}session:{token}")

    async def has_user(email: str) -> bool:
        return await client.get(f"{prefix}user-by-email:{email}") is not None

    env = server_env(
        AUTHUI_SHARED_ADAPTER="redis",
        AUTHUI_SHARED_REDIS_URL=redis_url,
        AUTHUI_SHARED_REDIS_PREFIX=prefix,
    )
    try:
        yield Store(env, stored_expiry, revoke, has_user)
    finally:
        keys = [key async for key in client.scan_iter(match=f"{prefix}*")]
        if keys:
            await client.delete(*keys)
        await client.aclose()


SQL_DATABASES = ["sqlite", "postgresql", "mariadb"]


# The scenario ---------------------------------------------------------------------------


async def sign_in_use_and_sign_out(
    a: str, b: str, stored_expiry: Callable[[str], Awaitable[datetime | None]]
) -> None:
    """Sign in through ``a``, use the session through ``b``, sign out through ``b``; ``a``
    then sees no session, even with the old cookie."""
    async with httpx.AsyncClient(timeout=10) as browser:
        csrf = (await browser.get(f"{a}/auth/csrf")).json()["csrfToken"]
        form = {"csrfToken": csrf, "username": "ada", "password": "correct horse"}
        signed_in = await browser.post(f"{a}/auth/callback/credentials", data=form)
        assert signed_in.status_code == 302, signed_in.text
        assert "error" not in signed_in.headers["location"]
        token = browser.cookies.get(SESSION_COOKIE)
        assert token
        expires = await stored_expiry(token)
        assert expires is not None, "no session row after sign-in"
        process_a = signed_in.headers["x-served-by"]

        me = await browser.get(f"{b}/me", headers={"accept": "application/json"})
        assert me.status_code == 200, me.text
        assert me.headers["x-served-by"] != process_a
        session = me.json()
        assert session["user"] == {
            "name": "Ada Lovelace",
            "email": "ada@example.com",
            "image": None,
        }
        assert to_utc(session["expires"]) == expires.replace(
            microsecond=expires.microsecond // 1000 * 1000
        )
        assert (await browser.get(f"{b}/auth/session")).json() == session

        csrf = (await browser.get(f"{b}/auth/csrf")).json()["csrfToken"]
        signed_out = await browser.post(f"{b}/auth/signout", data={"csrfToken": csrf})
        assert signed_out.status_code == 302, signed_out.text
        assert signed_out.headers["x-served-by"] != process_a
        assert SESSION_COOKIE not in browser.cookies
        assert await stored_expiry(token) is None, "the session row outlived sign-out"

        assert (await browser.get(f"{a}/auth/session")).json() is None
        refused = await browser.get(f"{a}/me", headers={"accept": "application/json"})
        assert refused.status_code == 401

    async with httpx.AsyncClient(
        timeout=10, headers={"cookie": f"{SESSION_COOKIE}={token}"}
    ) as old:
        stale = await old.get(f"{a}/auth/session")
        assert (stale.status_code, stale.json()) == (200, None)
        assert stale.headers["x-served-by"] == process_a
        assert (await old.get(f"{a}/me", headers={"accept": "application/json"})).status_code == 401


async def sign_in(browser: httpx.AsyncClient, server: str) -> str:
    """Sign in through ``server``; the session token."""
    csrf = (await browser.get(f"{server}/auth/csrf")).json()["csrfToken"]
    form = {"csrfToken": csrf, "username": "ada", "password": "correct horse"}
    signed_in = await browser.post(f"{server}/auth/callback/credentials", data=form)
    assert signed_in.status_code == 302, signed_in.text
    token = browser.cookies.get(SESSION_COOKIE)
    assert token
    return token


async def revoked_in_the_store(a: str, b: str, store: Store) -> None:
    """Both processes answer the session; it is deleted in the store; both then answer
    none, on ``/auth/session`` and on a signed-in-only page."""
    async with httpx.AsyncClient(timeout=10) as browser:
        token = await sign_in(browser, a)
        for server in (a, b, a, b):
            session = (await browser.get(f"{server}/auth/session")).json()
            assert session is not None, server
            assert session["user"]["name"] == "Ada Lovelace"
        await store.revoke(token)
        assert await store.stored_expiry(token) is None
        for server in (a, b):
            answer = await browser.get(f"{server}/auth/session")
            assert (answer.status_code, answer.json()) == (200, None), server
        browser.cookies.set(SESSION_COOKIE, token)  # a client that keeps the old cookie
        for server in (a, b):
            refused = await browser.get(f"{server}/me", headers={"accept": "application/json"})
            assert refused.status_code == 401, server


async def run_both(store: Store) -> None:
    with asgi_servers(APP, 2, store.env) as (a, b):
        await sign_in_use_and_sign_out(a, b, store.stored_expiry)
        await revoked_in_the_store(a, b, store)
    assert await store.has_user("ada@example.com"), "the user was not stored"


@pytest.mark.parametrize("sql_tables", SQL_DATABASES, indirect=True)
async def test_sql_session_moves_between_processes_and_revocation_reaches_both(
    sql_tables: Store,
) -> None:
    await run_both(sql_tables)


async def test_redis_session_moves_between_processes_and_revocation_reaches_both(
    redis_store: Store,
) -> None:
    await run_both(redis_store)
