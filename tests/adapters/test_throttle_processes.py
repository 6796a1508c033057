"""Two server processes, one store: wrong passwords sent to both are counted together.

Two hypercorn processes of ``tests.peers.shared_app`` (default ``Throttle``: 5 failed
sign-ins per account in 5 minutes, 10 per client a minute) share a fresh PostgreSQL schema
or a fresh Redis key prefix. One client sends 120 wrong passwords for one account,
alternating between the processes: the first five are refused as wrong, the sixth and
every later one, through either process, with 429 and ``Retry-After``; so is the right
password after them. Had each process counted on its own, each would have let five
through (ten in all).
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import time
import uuid
from collections.abc import Iterator

import httpx
import pytest
from redis.asyncio import Redis
from sqlalchemy import select

from authui.adapters.sqlalchemy import SQLAlchemyAdapter, SQLNaming
from authui.throttle import Limit, Throttle
from tests.peers.pgadapter_node import fresh_schema, run_isolated
from tests.peers.servers import asgi_servers

APP = "tests.peers.shared_app:app"
GUESSES = 120
LIMIT = Limit(5, 5 * 60)
"""``Throttle``'s default limit of failed sign-ins per account."""
REFUSED = "/auth/signin?error=CredentialsSignin&code=credentials"


def server_env(**settings: str) -> dict[str, str]:
    return {
        **os.environ,
        "AUTH_SECRET": secrets.token_urlsafe(32),
        "AUTH_TRUST_HOST": "true",
        **settings,
    }


def wait_for_room_in_the_window(needed: float = 30.0) -> None:
    """Start with at least ``needed`` seconds left in the account's fixed window and in the
    client's, so that the guesses are all counted in one window of each."""
    client = Throttle().credentials_per_client
    assert client is not None
    windows = (LIMIT.window, client.window)
    while (left := min(window - time.time() % window for window in windows)) < needed:
        time.sleep(left + 0.5)


async def guess(a: str, b: str) -> None:
    """120 wrong passwords for ``ada``, alternating between ``a`` and ``b``, then the
    right one; check every answer."""
    assert Throttle().credentials_per_account == LIMIT
    wait_for_room_in_the_window()
    async with httpx.AsyncClient(timeout=10) as client:
        csrf = (await client.get(f"{a}/auth/csrf")).json()["csrfToken"]
        answers: list[httpx.Response] = []
        for n in range(GUESSES + 1):
            password = "correct horse" if n == GUESSES else f"guess-{n}"
            form = {"csrfToken": csrf, "username": "ada", "password": password}
            answers.append(
                await client.post(f"{(a, b)[n % 2]}/auth/callback/credentials", data=form)
            )
    refused, throttled = answers[: LIMIT.count], answers[LIMIT.count :]
    for answer in refused:
        assert answer.status_code == 302, answer.text[:200]
        assert answer.headers["location"].endswith(REFUSED)
    assert len({answer.headers["x-served-by"] for answer in refused}) == 2
    for answer in throttled:
        assert answer.status_code == 429, answer.text[:200]
        assert 1 <= int(answer.headers["retry-after"]) <= LIMIT.window
        assert "Too many attempts. Try again in" in answer.text
    assert len({answer.headers["x-served-by"] for answer in throttled}) == 2
    assert "authjs.session-token" not in client.cookies


@pytest.fixture
def pg_schema(postgres_url: str) -> Iterator[str]:
    """A fresh PostgreSQL schema with authui's tables, so that no count is left over."""
    with fresh_schema(postgres_url, "authui_throttle_") as schema:

        async def create() -> None:
            async with SQLAlchemyAdapter(postgres_url, naming=SQLNaming(schema=schema)) as adapter:
                await adapter.create_all()

        run_isolated(create)
        yield schema


async def test_wrong_passwords_through_two_processes_on_postgres(
    postgres_url: str, pg_schema: str
) -> None:
    env = server_env(
        AUTHUI_SHARED_ADAPTER="sql",
        AUTHUI_SHARED_DATABASE_URL=postgres_url,
        AUTHUI_SHARED_SQL_SCHEMA=pg_schema,
    )
    with asgi_servers(APP, 2, env) as (a, b):
        await guess(a, b)
    async with SQLAlchemyAdapter(postgres_url, naming=SQLNaming(schema=pg_schema)) as adapter:
        table = adapter.tables.rate_limits
        async with adapter.engine.connect() as conn:
            rows = (await conn.execute(select(table.c.key, table.c.count))).all()
    counts = {key: count for key, count in rows}
    for key in counts:  # digests only: no username, no address
        assert re.fullmatch(r"throttle:credentials:(account|client):[0-9a-f]{64}:[am]", key)
    client = hashlib.sha256(b"127.0.0.1").hexdigest()
    assert counts[f"throttle:credentials:client:{client}:a"] == GUESSES + 1  # both processes'


async def test_wrong_passwords_through_two_processes_on_redis(redis_url: str) -> None:
    prefix = f"authui-test:{uuid.uuid4().hex}:"
    env = server_env(
        AUTHUI_SHARED_ADAPTER="redis",
        AUTHUI_SHARED_REDIS_URL=redis_url,
        AUTHUI_SHARED_REDIS_PREFIX=prefix,
    )
    redis = Redis.from_url(redis_url, socket_connect_timeout=2, socket_timeout=10)
    try:
        with asgi_servers(APP, 2, env) as (a, b):
            await guess(a, b)
    finally:
        keys = [key async for key in redis.scan_iter(match=f"{prefix}*")]
        if keys:
            await redis.delete(*keys)
        await redis.aclose()
