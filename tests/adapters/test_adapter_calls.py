"""How authui calls adapters: missing methods are named; a lost connection becomes
ServiceUnavailable, any other failure AdapterError; a call runs to its end when its caller
is cancelled."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from authui import SessionOptions, assert_config
from authui.adapters.base import AdapterCalls, VerificationToken
from authui.adapters.sqlalchemy import SQLAlchemyAdapter
from authui.errors import AdapterError, MissingAdapterMethods, ServiceUnavailable
from authui.logger import StandardLogger
from tests.conftest import make_config
from tests.test_core import RecordingLogger


class OnlyUsers:
    async def get_user(self, user_id: str) -> None:
        return None


class Failing:
    def __init__(self, exc: Exception) -> None:
        self.exc = exc

    async def get_user(self, user_id: str) -> None:
        raise self.exc


async def test_a_missing_method_is_named_with_what_needs_it() -> None:
    calls = AdapterCalls(OnlyUsers(), StandardLogger())
    with pytest.raises(MissingAdapterMethods) as raised:
        await calls.call("create_session", "database sessions", object())
    assert "OnlyUsers has no create_session(), which database sessions needs" in str(raised.value)
    assert calls.has("get_user")
    assert not calls.has("create_user_and_session")


async def test_a_failing_method_becomes_an_adapter_error_with_its_cause() -> None:
    bug = ValueError("invalid literal for int() with base 10: 'x'")
    calls = AdapterCalls(Failing(bug), StandardLogger())
    with pytest.raises(AdapterError) as raised:
        await calls.call("get_user", "the session check", "42")
    assert raised.value.cause == {"method": "get_user"}  # the driver's error is not logged
    assert raised.value.__cause__ is bug
    assert raised.value.client_safe
    assert "ValueError: invalid literal" in raised.value.detail


async def test_a_lost_connection_becomes_service_unavailable() -> None:
    reset = ConnectionResetError(104, "Connection reset by peer")
    calls = AdapterCalls(Failing(reset), StandardLogger())
    with pytest.raises(ServiceUnavailable) as raised:
        await calls.call("get_user", "the session check", "42")
    assert raised.value.cause == {"method": "get_user"}
    assert raised.value.__cause__ is reset
    assert (raised.value.status, raised.value.retry_after) == (503, 30)


def test_assert_config_names_what_each_feature_lacks() -> None:
    jwt = make_config(adapter=OnlyUsers(), session=SessionOptions(strategy="jwt"))
    (credentials_error,) = assert_config(jwt).errors
    assert isinstance(credentials_error, MissingAdapterMethods)
    assert "Credentials sign-in with an adapter" in credentials_error.detail
    assert "'get_user_by_email', 'create_user'" in credentials_error.detail

    database = make_config(adapter=OnlyUsers())
    details = [e.detail for e in assert_config(database).errors]
    assert any(d.startswith("Database sessions need") and "create_session" in d for d in details)


# --- a caller cancelled mid-call ------------------------------------------------------------

CANCEL_POINTS = (*range(1, 60), *range(60, 600, 20))
"""After how many turns of the event loop the caller is cancelled: from just after the
call starts to after it has committed (a write on SQLite takes some 400 turns, most
of them waiting for aiosqlite's thread)."""


def write_lock_is_free(database: Path) -> bool:
    """Whether another connection can write to ``database``, waiting up to 2 s for a
    transaction that is still running."""
    connection = sqlite3.connect(database, timeout=2)
    try:
        with connection:
            connection.execute("CREATE TABLE IF NOT EXISTS probe (n INTEGER)")
            connection.execute("INSERT INTO probe VALUES (1)")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        connection.close()


async def test_a_cancelled_caller_leaves_the_call_to_finish_and_sqlite_unlocked(
    tmp_path: Path,
) -> None:
    """A request cancelled at any point of a write (its client left) lets the write finish:
    the token is stored, and the database's write lock is free for the next one. SQLAlchemy
    gave up a connection cancelled mid-transaction without ending it, and SQLite stayed
    locked."""
    database = tmp_path / "app.db"
    async with SQLAlchemyAdapter(f"sqlite+aiosqlite:///{database}") as adapter:
        await adapter.create_all()
        calls = AdapterCalls(adapter, StandardLogger())
        await calls.prepare()
        expires = datetime.now(UTC) + timedelta(hours=1)
        cancelled = []
        for turns in CANCEL_POINTS:
            token = VerificationToken(
                identifier=f"{turns}@example.com", token=f"token-{turns}", expires=expires
            )
            caller = asyncio.ensure_future(calls.call("create_verification_token", "a test", token))
            for _ in range(turns):
                await asyncio.sleep(0)
            if caller.done():  # it ended before this point, and so before the later ones
                break
            caller.cancel()
            with pytest.raises(asyncio.CancelledError):
                await caller
            cancelled.append(turns)
            free = await asyncio.to_thread(write_lock_is_free, database)
            assert free, f"locked after a cancel at turn {turns}"
        assert len(cancelled) > 60, cancelled  # the sweep reached past the first 60 turns
        stored = [
            await calls.call(
                "use_verification_token", "a test", f"{turns}@example.com", f"token-{turns}"
            )
            for turns in cancelled
        ]
    assert None not in stored


class FailsWhenLet:
    """An adapter whose ``get_user`` fails once it is let go on."""

    def __init__(self) -> None:
        self.go_on = asyncio.Event()

    async def get_user(self, user_id: str) -> None:
        await self.go_on.wait()
        raise ConnectionResetError(104, "Connection reset by peer")


async def test_a_failure_after_the_caller_left_is_logged() -> None:
    adapter, logger = FailsWhenLet(), RecordingLogger()
    calls = AdapterCalls(adapter, logger)
    caller = asyncio.ensure_future(calls.call("get_user", "the session check", "42"))
    await asyncio.sleep(0)
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    assert logger.errors == []
    adapter.go_on.set()
    for _ in range(3):
        await asyncio.sleep(0)
    (error,) = logger.errors
    assert isinstance(error, ServiceUnavailable)
    assert error.cause == {"method": "get_user"}
