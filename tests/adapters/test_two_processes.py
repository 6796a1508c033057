"""Two server processes, one database: a session made by one is used and ended by the
other.

Two hypercorn processes of ``tests.peers.shared_app`` (each on a pre-bound free port of
127.0.0.1, like the e2e launcher) share one store: a PostgreSQL schema of this module's own
(tables made by ``SQLAlchemyAdapter.create_all``), or a fresh Redis key prefix. One httpx
client (its cookie jar is per host, and both servers are 127.0.0.1) signs in through
process A, reads the session through process B (``/me`` and ``/auth/session``), signs out
through B, and then A no longer knows the session. The session row (or key) is read
straight from the store after sign-in and after sign-out.
"""

from __future__ import annotations

import json
import os
import secrets
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from datetime import datetime

import httpx
import pytest
from redis.asyncio import Redis
from sqlalchemy import select

from authui.adapters.sql.schema import to_utc
from authui.adapters.sqlalchemy import SQLAlchemyAdapter, SQLNaming
from tests.peers.pgadapter_node import fresh_schema, run_isolated
from tests.peers.servers import asgi_servers

APP = "tests.peers.shared_app:app"
SESSION_COOKIE = "authjs.session-token"

StoredExpiry = Callable[[str], Awaitable[datetime | None]]
"""The stored expiry of the session with this token, or ``None`` when there is none."""


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


@pytest.fixture(scope="module")
def pg_schema(postgres_url: str) -> Iterator[str]:
    """A PostgreSQL schema of this module's own with authui's tables in it."""
    with fresh_schema(postgres_url, "authui_2p_") as schema:

        async def create() -> None:
            async with SQLAlchemyAdapter(postgres_url, naming=SQLNaming(schema=schema)) as adapter:
                await adapter.create_all()

        run_isolated(create)
        yield schema


@pytest.fixture
async def pg_adapter(postgres_url: str, pg_schema: str) -> AsyncIterator[SQLAlchemyAdapter]:
    """The test's own view of the shared tables."""
    async with SQLAlchemyAdapter(postgres_url, naming=SQLNaming(schema=pg_schema)) as adapter:
        yield adapter


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url, socket_connect_timeout=2, socket_timeout=10)
    try:
        yield client
    finally:
        await client.aclose()


# The scenario ---------------------------------------------------------------------------


async def sign_in_use_and_sign_out(a: str, b: str, stored_expiry: StoredExpiry) -> None:
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


async def test_postgres_session_moves_between_processes(
    postgres_url: str, pg_schema: str, pg_adapter: SQLAlchemyAdapter
) -> None:
    sessions = pg_adapter.tables.sessions

    async def stored_expiry(token: str) -> datetime | None:
        async with pg_adapter.engine.connect() as conn:
            query = select(sessions.c.expires).where(sessions.c.session_token == token)
            expires: datetime | None = (await conn.execute(query)).scalar_one_or_none()
            return expires

    env = server_env(
        AUTHUI_SHARED_ADAPTER="postgres",
        AUTHUI_SHARED_POSTGRES_URL=postgres_url,
        AUTHUI_SHARED_POSTGRES_SCHEMA=pg_schema,
    )
    with asgi_servers(APP, 2, env) as (a, b):
        await sign_in_use_and_sign_out(a, b, stored_expiry)
    user = await pg_adapter.get_user_by_email("ada@example.com")
    assert user is not None, "the user was not stored"


async def test_redis_session_moves_between_processes(redis_client: Redis, redis_url: str) -> None:
    prefix = f"authui-test:{uuid.uuid4().hex}:"

    async def stored_expiry(token: str) -> datetime | None:
        stored = await redis_client.get(f"{prefix}session:{token}")
        return None if stored is None else to_utc(json.loads(stored)["expires"])

    env = server_env(
        AUTHUI_SHARED_ADAPTER="redis",
        AUTHUI_SHARED_REDIS_URL=redis_url,
        AUTHUI_SHARED_REDIS_PREFIX=prefix,
    )
    try:
        with asgi_servers(APP, 2, env) as (a, b):
            await sign_in_use_and_sign_out(a, b, stored_expiry)
        assert await redis_client.get(f"{prefix}user-by-email:ada@example.com") is not None
    finally:
        keys = [key async for key in redis_client.scan_iter(match=f"{prefix}*")]
        if keys:
            await redis_client.delete(*keys)
