"""authui's extensions for OAuth token refresh and back-channel logout, on every adapter
kind (memory, SQLite, PostgreSQL, MariaDB, Redis: ``conftest.adapter``): ``update_account``,
``claim_lease`` with ``release_lease``, ``delete_user_sessions`` and
``list_user_accounts``. Races between OS processes are in ``test_process_races.py``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
import uuid
from datetime import UTC, datetime, timedelta
from types import MappingProxyType
from typing import Any

import pytest
from sqlalchemy import select, update

from authui import AuthConfig, SessionOptions, assert_config
from authui.adapters import MemoryAdapter
from authui.adapters.base import (
    OPTIONAL_METHODS,
    AdapterAccount,
    AdapterCalls,
    AdapterSession,
    AdapterUser,
)
from authui.adapters.redis import RedisAdapter
from authui.adapters.sqlalchemy import SQLAlchemyAdapter
from authui.errors import AdapterError
from authui.logger import StandardLogger
from authui.providers.github import GitHub
from tests.adapters.conftest import AnyAdapter as Adapter
from tests.conftest import ENV

NEW_METHODS = (
    "update_account",
    "claim_lease",
    "release_lease",
    "delete_user_sessions",
    "list_user_accounts",
)


async def run_out(adapter: Adapter, key: str) -> None:
    """Make the lease ``key`` run out now, as if its time had passed."""
    if isinstance(adapter, MemoryAdapter):
        holder, _ = adapter.leases[key]
        adapter.leases[key] = (holder, time.monotonic() - 1)
    elif isinstance(adapter, SQLAlchemyAdapter):
        leases = adapter.tables.leases
        past = datetime.now(UTC) - timedelta(seconds=1)
        async with adapter.engine.begin() as conn:
            await conn.execute(update(leases).where(leases.c.key == key).values(expires=past))
    else:
        assert await adapter.redis.pexpire(adapter.lease_key(key), 1)
        await asyncio.sleep(0.005)


async def seconds_left(adapter: Adapter, key: str) -> float:
    """How long the lease ``key`` has to run, as the store keeps it."""
    if isinstance(adapter, MemoryAdapter):
        return adapter.leases[key][1] - time.monotonic()
    if isinstance(adapter, SQLAlchemyAdapter):
        leases = adapter.tables.leases
        async with adapter.engine.connect() as conn:
            query = select(leases.c.expires).where(leases.c.key == key)
            expires: datetime = (await conn.execute(query)).scalar_one()
        return (expires - datetime.now(UTC)).total_seconds()
    return float(await adapter.redis.pttl(adapter.lease_key(key))) / 1000


def in_days(days: float) -> datetime:
    return datetime.now(UTC) + timedelta(days=days)


def new_user() -> AdapterUser:
    return AdapterUser(id=str(uuid.uuid4()), email=f"{uuid.uuid4().hex[:12]}@example.com")


def new_account(user_id: str, **fields: Any) -> AdapterAccount:
    values: dict[str, Any] = {
        "user_id": user_id,
        "type": "oidc",
        "provider": "github",
        "provider_account_id": uuid.uuid4().hex,
        "access_token": "access-1",
        "refresh_token": "refresh-1",
        "expires_at": 1_900_000_000,
        "id_token": "eyJ.id.1",
        "scope": "openid email",
        "token_type": "bearer",
        "session_state": "state-1",
    }
    return AdapterAccount(**values | fields)


async def linked(adapter: Adapter, **fields: Any) -> AdapterAccount:
    user = await adapter.create_user(new_user())
    account = new_account(user.id, **fields)
    await adapter.link_account(account)
    return account


# update_account --------------------------------------------------------------------------


async def test_update_account_changes_only_the_given_fields(adapter: Adapter) -> None:
    """A refresh's new tokens replace the old ones (``None`` empties a field); the other
    fields, and the user's other account, stay as they were."""
    account = await linked(adapter)
    other = new_account(account.user_id, provider="google")
    await adapter.link_account(other)
    changes: dict[str, Any] = {
        "access_token": "access-2",
        "expires_at": 1_900_003_600,
        "id_token": None,
    }
    expected = dataclasses.replace(account, **changes)
    assert await adapter.update_account("github", account.provider_account_id, changes) == (
        expected
    )
    assert await adapter.get_account(account.provider_account_id, "github") == expected
    assert await adapter.get_account(other.provider_account_id, "google") == other

    every: dict[str, Any] = {
        "type": "oauth",
        "access_token": "access-3",
        "refresh_token": "refresh-3",
        "expires_at": None,
        "id_token": "eyJ.id.3",
        "scope": "openid",
        "token_type": "dpop",
        "session_state": None,
    }
    done = dataclasses.replace(account, **every)
    found = await adapter.update_account("github", account.provider_account_id, every)
    assert found == done
    assert await adapter.get_account(account.provider_account_id, "github") == done


async def test_list_user_accounts_gives_the_user_s_accounts_in_order(adapter: Adapter) -> None:
    account = await linked(adapter)
    others = [
        new_account(account.user_id, provider="google", provider_account_id="g-2"),
        new_account(account.user_id, provider="discord", provider_account_id="d-1"),
    ]
    for other in others:
        await adapter.link_account(other)
    stranger = await linked(adapter)

    found = await adapter.list_user_accounts(account.user_id)

    assert [(a.provider, a.provider_account_id) for a in found] == [
        ("discord", "d-1"),
        ("github", account.provider_account_id),
        ("google", "g-2"),
    ]
    assert found[1] == account  # the whole record, tokens included
    assert await adapter.list_user_accounts(stranger.user_id) == [stranger]
    assert await adapter.list_user_accounts(new_user().id) == []
    await adapter.unlink_account("google", "g-2")
    assert len(await adapter.list_user_accounts(account.user_id)) == 2


async def test_update_account_of_no_account_is_none(adapter: Adapter) -> None:
    account = await linked(adapter)
    changes = {"access_token": "access-2"}
    assert await adapter.update_account("github", "nobody", changes) is None
    assert await adapter.update_account("google", account.provider_account_id, changes) is None
    assert await adapter.get_account("nobody", "github") is None
    assert await adapter.get_account(account.provider_account_id, "google") is None
    assert await adapter.get_account(account.provider_account_id, "github") == account


async def test_update_account_without_changes_returns_it_as_stored(adapter: Adapter) -> None:
    account = await linked(adapter)
    assert await adapter.update_account("github", account.provider_account_id, {}) == account
    assert await adapter.update_account("github", "nobody", {}) is None


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"access_token": "access-2", "nonsense": "x"}, ValueError),
        ({"accessToken": "access-2"}, ValueError),
        ({"user_id": "someone-else"}, ValueError),
        ({"provider": "google"}, ValueError),
        ({"provider_account_id": "other"}, ValueError),
        ({"access_token": "access-2", "expires_at": "soon"}, TypeError),
        ({"expires_at": True}, TypeError),
        ({"scope": ["openid"]}, TypeError),
        ({"type": "saml"}, TypeError),
    ],
    ids=[
        "unknown",
        "camel-case",
        "user_id",
        "provider",
        "provider_account_id",
        "expires_at-text",
        "expires_at-bool",
        "scope-list",
        "type-unknown",
    ],
)
async def test_update_account_refuses_what_accounts_do_not_have(
    adapter: Adapter, changes: dict[str, Any], error: type[Exception]
) -> None:
    """A field accounts don't have, one that identifies the account, or a value of the
    wrong type is refused before anything is written."""
    account = await linked(adapter)
    with pytest.raises(error, match="update_account"):
        await adapter.update_account("github", account.provider_account_id, changes)
    with pytest.raises(error, match="update_account"):
        await adapter.update_account("github", "nobody", changes)
    assert await adapter.get_account(account.provider_account_id, "github") == account


# Leases -------------------------------------------------------------------------------


async def test_a_lease_is_held_by_one_until_released(adapter: Adapter) -> None:
    holder = await adapter.claim_lease("refresh:github:1", 60)
    assert isinstance(holder, str)
    assert len(holder) >= 32
    assert await adapter.claim_lease("refresh:github:1", 60) is None
    other = await adapter.claim_lease("refresh:github:2", 60)  # another key: its own lease
    assert other is not None
    assert other != holder

    await adapter.release_lease("refresh:github:1", "not-the-holder")
    assert await adapter.claim_lease("refresh:github:1", 60) is None
    await adapter.release_lease("refresh:github:1", other)  # the holder of another key
    assert await adapter.claim_lease("refresh:github:1", 60) is None

    await adapter.release_lease("refresh:github:1", holder)
    again = await adapter.claim_lease("refresh:github:1", 60)
    assert again is not None
    assert again not in (holder, other)
    assert await adapter.claim_lease("refresh:github:2", 60) is None  # still held

    await adapter.release_lease("refresh:github:1", holder)  # released already: nothing
    assert await adapter.claim_lease("refresh:github:1", 60) is None
    await adapter.release_lease("never-claimed", holder)  # no error


async def test_a_lease_that_ran_out_is_taken_again_and_kept_from_its_old_holder(
    adapter: Adapter,
) -> None:
    """Once its time has run out a lease is free; its old holder, late, cannot release
    the lease of the one who took it since."""
    first = await adapter.claim_lease("k", 30)
    assert first is not None
    await run_out(adapter, "k")
    second = await adapter.claim_lease("k", 30)
    assert second is not None
    assert second != first
    await adapter.release_lease("k", first)
    assert await adapter.claim_lease("k", 30) is None
    await adapter.release_lease("k", second)
    assert await adapter.claim_lease("k", 30) is not None


async def test_a_lease_lasts_the_seconds_asked(adapter: Adapter) -> None:
    assert await adapter.claim_lease("short", 1) is not None
    assert await adapter.claim_lease("long", 3600) is not None
    assert 0 < await seconds_left(adapter, "short") <= 1
    assert 3590 < await seconds_left(adapter, "long") <= 3600


@pytest.mark.parametrize("seconds", [0, -5, 1.5, True, "60", None])
async def test_lease_seconds_are_positive_integers(adapter: Adapter, seconds: Any) -> None:
    with pytest.raises(ValueError, match="positive integer"):
        await adapter.claim_lease("k", seconds)
    assert await adapter.claim_lease("k", 60) is not None  # nothing was taken


async def test_of_concurrent_claims_one_takes_a_free_lease(
    adapter: Adapter, request: pytest.FixtureRequest
) -> None:
    """20 concurrent claims of a new key, then 20 of it once its lease has run out: one
    holder each time (from two adapters, two pools, where the store is shared)."""
    second: Adapter = adapter
    if isinstance(adapter, SQLAlchemyAdapter):
        second = SQLAlchemyAdapter(adapter.engine.url, naming=adapter.naming)
    elif isinstance(adapter, RedisAdapter):
        second = RedisAdapter(request.getfixturevalue("redis_url"), prefix=adapter.prefix)
    try:
        for _ in range(2):
            found = await asyncio.gather(
                *((adapter if n % 2 else second).claim_lease("k", 60) for n in range(20))
            )
            assert len([holder for holder in found if holder is not None]) == 1
            await run_out(adapter, "k")
    finally:
        if isinstance(second, SQLAlchemyAdapter | RedisAdapter) and second is not adapter:
            await second.close()


# delete_user_sessions ----------------------------------------------------------------


async def test_delete_user_sessions_deletes_the_users_sessions_only(adapter: Adapter) -> None:
    ada = await adapter.create_user(new_user())
    bob = await adapter.create_user(new_user())
    for n in range(3):
        session = AdapterSession(session_token=f"ada-{n}", user_id=ada.id, expires=in_days(n + 1))
        await adapter.create_session(session)
    await adapter.create_session(
        AdapterSession(session_token="bob-0", user_id=bob.id, expires=in_days(1))
    )
    await adapter.update_session("ada-0", in_days(30))  # a moved expiry is still hers

    assert await adapter.delete_user_sessions(ada.id) == 3
    for n in range(3):
        assert await adapter.get_session_and_user(f"ada-{n}") is None
    found = await adapter.get_session_and_user("bob-0")
    assert found is not None
    assert found[1] == bob
    assert await adapter.get_user(ada.id) == ada  # the user stays
    assert await adapter.delete_user_sessions(ada.id) == 0
    assert await adapter.delete_user_sessions("nobody") == 0

    await adapter.create_session(  # a session after the logout is an ordinary one
        AdapterSession(session_token="ada-new", user_id=ada.id, expires=in_days(1))
    )
    assert await adapter.get_session_and_user("ada-new") is not None
    assert await adapter.delete_user_sessions(ada.id) == 1
    assert await adapter.get_session_and_user("bob-0") is not None


# The optional methods ----------------------------------------------------------------


def test_every_adapter_has_every_optional_method() -> None:
    assert set(NEW_METHODS) <= set(OPTIONAL_METHODS)
    for adapter_class in (MemoryAdapter, SQLAlchemyAdapter, RedisAdapter):
        missing = [name for name in OPTIONAL_METHODS if not callable(getattr(adapter_class, name))]
        assert missing == [], adapter_class.__name__


class WithoutNewMethods:
    """A memory adapter as written before these extensions: it has none of them."""

    def __init__(self) -> None:
        self._adapter = MemoryAdapter()

    def __getattr__(self, name: str) -> Any:
        if name in NEW_METHODS:
            raise AttributeError(name)
        return getattr(self._adapter, name)


def test_an_adapter_without_them_still_starts() -> None:
    github = GitHub(client_id="id", client_secret="secret")
    for strategy in ("database", "jwt"):
        config = AuthConfig(
            providers=[github],
            adapter=WithoutNewMethods(),
            session=SessionOptions(strategy=strategy),
            secret=ENV["AUTH_SECRET"],
            trust_host=True,
        )
        assert assert_config(config).errors == [], strategy
    calls = AdapterCalls(WithoutNewMethods(), StandardLogger())
    assert [name for name in NEW_METHODS if calls.has(name)] == []
    assert calls.has("get_user")
    assert all(AdapterCalls(MemoryAdapter(), StandardLogger()).has(m) for m in NEW_METHODS)


class FailingUpdate:
    async def update_account(self, provider: str, account_id: str, changes: Any) -> None:
        raise RuntimeError(f"cannot store {changes['refresh_token']} for {account_id}")


async def test_a_failing_update_does_not_log_the_tokens_it_was_given() -> None:
    calls = AdapterCalls(FailingUpdate(), StandardLogger())
    changes = MappingProxyType({"refresh_token": "rt-secret-value", "access_token": "at-x"})
    with pytest.raises(AdapterError) as raised:
        await calls.call("update_account", "token refresh", "github", "gh-12345", changes)
    assert "rt-secret-value" not in str(raised.value)
    assert "gh-12345" not in str(raised.value)
    assert "cannot store" in str(raised.value)
