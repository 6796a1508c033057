"""A passkey challenge verifies once, on every real store and across server processes.

Request-level, through ``authui.testing.AuthClient`` on a SQLite file, PostgreSQL,
MariaDB and Redis (the scenarios of ``tests/actions/test_webauthn.py``, which runs them on the
memory adapter too):

- a sign-in answer captured with its cookies and sent again is refused, for a device-bound
  passkey and for a synced one (counter 0 at every use, so the counter cannot tell);
- one answer sent four times at once signs in once;
- an "Add a passkey" answer sent again is refused as a used challenge, not a server error;
- a fresh registration of a passkey the site stores already is refused as already
  registered, and on the SQL stores a registration that loses the race to the database's
  uniqueness check is refused the same way, leaving nothing behind.

Two processes (``tests.peers.passkey_app``, hypercorn) behind one public URL share a
PostgreSQL schema: a ceremony started on process A, its answer sent to A and B at the
same moment, gives exactly one session.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import secrets
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from redis.asyncio import Redis
from sqlalchemy import func, select

from authui.adapters.base import AdapterAccount, AdapterAuthenticator, AdapterUser
from authui.adapters.redis import RedisAdapter
from authui.adapters.sqlalchemy import SQLAlchemyAdapter, SQLNaming
from authui.testing import AuthClient
from tests.actions.test_webauthn import (
    ALREADY_REGISTERED,
    APP,
    SESSION_COOKIE,
    captured_answer,
    concurrent_answers,
    new_email,
    passkey_config,
    register,
    registered_twice,
    replayed_adding,
    replayed_sign_in,
    sets_session,
)
from tests.peers.pgadapter_node import fresh_schema, run_isolated
from tests.peers.servers import asgi_servers
from tests.soft_authenticator import SoftAuthenticator

SQL_STORES = ["sqlite", "postgresql", "mariadb"]


# The stores -----------------------------------------------------------------------------


async def _create_all(url: str, naming: SQLNaming) -> None:
    async with SQLAlchemyAdapter(url, naming=naming) as adapter:
        await adapter.create_all()


async def _drop_all(url: str, naming: SQLNaming) -> None:
    async with SQLAlchemyAdapter(url, naming=naming) as adapter:
        await adapter.drop_all()


@pytest.fixture(scope="module")
def pg_naming(postgres_url: str) -> Iterator[SQLNaming]:
    """authui's tables in a PostgreSQL schema of this module's own."""
    with fresh_schema(postgres_url, "authui_passkeys_") as schema:
        naming = SQLNaming(schema=schema)
        run_isolated(lambda: _create_all(postgres_url, naming))
        yield naming


@pytest.fixture(scope="module")
def mariadb_naming(mariadb_url: str) -> Iterator[SQLNaming]:
    """authui's tables in MariaDB under a table-name prefix of this module's own."""
    naming = SQLNaming().prefixed(f"authui_pk{uuid.uuid4().hex[:8]}_")
    run_isolated(lambda: _create_all(mariadb_url, naming))
    yield naming
    run_isolated(lambda: _drop_all(mariadb_url, naming))


async def _delete_prefixed(url: str, prefix: str) -> None:
    client = Redis.from_url(url)
    try:
        keys = [key async for key in client.scan_iter(match=re.escape(prefix) + "*")]
        if keys:
            await client.delete(*keys)
    finally:
        await client.aclose()


async def open_store(request: pytest.FixtureRequest, kind: str, tmp_path: Path) -> Any:
    """A new adapter on the store of ``kind`` (users are unique per test, so the SQL
    servers' tables are shared by the module's tests)."""
    if kind == "sqlite":
        adapter = SQLAlchemyAdapter(f"sqlite+aiosqlite:///{tmp_path / 'auth.db'}")
        await adapter.create_all()
        return adapter
    if kind == "postgresql":
        naming = request.getfixturevalue("pg_naming")
        return SQLAlchemyAdapter(request.getfixturevalue("postgres_url"), naming=naming)
    if kind == "mariadb":
        naming = request.getfixturevalue("mariadb_naming")
        return SQLAlchemyAdapter(request.getfixturevalue("mariadb_url"), naming=naming)
    return RedisAdapter(
        request.getfixturevalue("redis_url"), prefix=f"authui-pk:{uuid.uuid4().hex}:"
    )


@pytest.fixture(params=[*SQL_STORES, "redis"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    adapter = await open_store(request, request.param, tmp_path)
    try:
        yield adapter
    finally:
        await adapter.close()
        if isinstance(adapter, RedisAdapter):
            await _delete_prefixed(request.getfixturevalue("redis_url"), adapter.prefix)


@pytest.fixture(params=SQL_STORES)
async def sql_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    adapter = await open_store(request, request.param, tmp_path)
    try:
        yield adapter
    finally:
        await adapter.close()


# Request-level, on every store ----------------------------------------------------------


@pytest.mark.parametrize("synced", [False, True], ids=["device-bound", "synced"])
async def test_a_captured_answer_sent_again_with_its_cookies_is_refused(
    store: Any, synced: bool
) -> None:
    await replayed_sign_in(passkey_config(adapter=store), synced=synced)


async def test_one_answer_sent_several_times_at_once_signs_in_once(store: Any) -> None:
    await concurrent_answers(passkey_config(adapter=store))


async def test_a_replayed_passkey_addition_is_refused_as_used(store: Any) -> None:
    await replayed_adding(passkey_config(adapter=store))


async def test_a_passkey_registered_twice_is_refused(store: Any) -> None:
    await registered_twice(passkey_config(adapter=store))


class StoredMeanwhile:
    """The adapter under test, except that another user's registration of the same
    passkey is stored just after this registration's check and before its first write,
    as when two registrations of one passkey race."""

    def __init__(self, adapter: Any) -> None:
        self.adapter = adapter
        self.rival: AdapterUser | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.adapter, name)

    async def link_account(self, account: AdapterAccount) -> AdapterAccount | None:
        if account.type == "webauthn" and self.rival is None:
            self.rival = await self.adapter.create_user(
                AdapterUser(id=str(uuid.uuid4()), email=new_email("rival"))
            )
            await self.adapter.link_account(replace(account, user_id=self.rival.id))
            await self.adapter.create_authenticator(
                AdapterAuthenticator(
                    credential_id=account.provider_account_id,
                    user_id=self.rival.id,
                    provider_account_id=account.provider_account_id,
                    counter=0,
                    credential_backed_up=False,
                    credential_public_key="cGs=",
                    credential_device_type="singleDevice",
                )
            )
        result: AdapterAccount | None = await self.adapter.link_account(account)
        return result


@pytest.mark.parametrize("signed_in", [False, True], ids=["sign-up", "adding"])
async def test_a_registration_that_loses_the_race_is_already_registered(
    sql_store: Any, signed_in: bool
) -> None:
    """The database's uniqueness error, not a server error; the losing registration leaves
    no user and no account behind."""
    email = new_email("loser")
    query = {"email": email}
    browser = AuthClient(passkey_config(adapter=sql_store), origin=APP)
    if signed_in:
        await register(browser, email)  # the user's first passkey, stored as usual
        query = {}
    adapter = StoredMeanwhile(sql_store)
    racing = AuthClient(passkey_config(adapter=adapter), origin=APP, cookies=browser.cookies)
    key = SoftAuthenticator(APP)
    form, _ = await captured_answer(racing, "register", key.register, **query)
    refused = await racing.post("callback/passkey", form=form)
    assert (refused.status, refused.header("location")) == (302, ALREADY_REGISTERED)
    assert not sets_session(refused)
    assert adapter.rival is not None
    credential_id = base64.b64encode(key.credential_id).decode()
    stored = await sql_store.get_authenticator(credential_id)
    assert stored.user_id == adapter.rival.id
    account = await sql_store.get_account(credential_id, "passkey")
    assert account.user_id == adapter.rival.id
    user = await sql_store.get_user_by_email(email)
    if signed_in:
        assert len(await sql_store.list_authenticators_by_user_id(user.id)) == 1
    else:
        assert user is None


# Two processes, one PostgreSQL ----------------------------------------------------------


async def test_one_answer_sent_to_two_processes_at_once_signs_in_once(
    postgres_url: str, pg_naming: SQLNaming
) -> None:
    env = {
        **os.environ,
        "AUTH_SECRET": secrets.token_urlsafe(32),
        "AUTH_URL": APP,  # the public URL both processes serve
        "AUTHUI_PASSKEY_POSTGRES_URL": postgres_url,
        "AUTHUI_PASSKEY_POSTGRES_SCHEMA": str(pg_naming.schema),
    }
    key = SoftAuthenticator(APP, synced=True)
    email = new_email("two")
    with asgi_servers("tests.peers.passkey_app:app", 2, env) as (a, b):
        async with httpx.AsyncClient(timeout=20) as owner:
            form = await _answer_form(owner, a, key.register, email=email)
            signed_up = await owner.post(f"{a}/auth/callback/passkey", data=form)
            assert signed_up.status_code == 302, signed_up.text
            assert signed_up.headers["location"].startswith(f"{APP}/auth/new-user")

        async with httpx.AsyncClient(timeout=20) as browser:  # a ceremony started on A
            form = await _answer_form(browser, a, key.authenticate, action="authenticate")
            cookies = "; ".join(f"{name}={value}" for name, value in browser.cookies.items())

        async def send(server: str) -> httpx.Response:
            async with httpx.AsyncClient(timeout=20, headers={"cookie": cookies}) as copy:
                return await copy.post(f"{server}/auth/callback/passkey", data=form)

        answers = await asyncio.gather(send(a), send(b))
        served_by = {answer.headers["x-served-by"] for answer in answers}
    assert len(served_by) == 2
    places = sorted(answer.headers["location"] for answer in answers)
    assert places == [f"{APP}/auth/error?error=WebAuthnVerificationError", f"{APP}/home"]
    signed_in = [a for a in answers if SESSION_COOKIE in a.cookies]
    assert len(signed_in) == 1
    async with SQLAlchemyAdapter(postgres_url, naming=pg_naming) as adapter:
        user = await adapter.get_user_by_email(email)
        assert user is not None
        sessions = adapter.tables.sessions
        async with adapter.engine.connect() as conn:
            query = select(func.count()).select_from(sessions).where(sessions.c.user_id == user.id)
            assert (await conn.execute(query)).scalar_one() == 2  # the sign-up's, and one


async def _answer_form(
    client: httpx.AsyncClient, server: str, answer_with: Any, **query: str
) -> dict[str, str]:
    csrf = (await client.get(f"{server}/auth/csrf")).json()["csrfToken"]
    asked = await client.get(f"{server}/auth/webauthn-options/passkey", params=query)
    assert asked.status_code == 200, asked.text
    return {
        "csrfToken": csrf,
        "action": asked.json()["action"],
        "data": json.dumps(answer_with(asked.json()["options"])),
        "callbackUrl": f"{APP}/home",
    }
