"""The account center's adapter methods on every adapter kind (memory, SQLite, PostgreSQL,
MariaDB, Redis: ``conftest.adapter``), beyond the conformance suite: the lengths a store
keeps, the events it keeps, and the order of events of one time. How each store removes
what has expired is tested with each adapter (``test_memory``, ``test_sqlalchemy``,
``test_redis``)."""

from __future__ import annotations

import dataclasses
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from authui.adapters.account import (
    MAX_AMR,
    MAX_CLIENT,
    MAX_EVENT_KIND,
    MAX_PASSKEY_NAME,
    MAX_PROVIDER,
    MAX_USER_AGENT,
    SECURITY_EVENTS_KEPT,
    PasskeyDetails,
    SecurityEvent,
    SessionDetails,
)
from authui.adapters.base import AdapterAuthenticator, AdapterSession, AdapterUser
from tests.adapters.conftest import AnyAdapter


def in_days(days: float) -> datetime:
    return datetime.now(UTC) + timedelta(days=days)


async def new_user(adapter: AnyAdapter) -> AdapterUser:
    return await adapter.create_user(AdapterUser(id=str(uuid.uuid4())))


async def new_session(adapter: AnyAdapter, user_id: str) -> SessionDetails:
    """A session of the user, and details for it (not stored)."""
    session = AdapterSession(session_token=str(uuid.uuid4()), user_id=user_id, expires=in_days(30))
    await adapter.create_session(session)
    now = datetime.now(UTC)
    return SessionDetails(
        session_token=session.session_token,
        user_id=user_id,
        expires=session.expires,
        created=now,
        last_seen=now,
        auth_time=now,
        amr=("email",),
    )


async def new_passkey(adapter: AnyAdapter, user_id: str) -> PasskeyDetails:
    """A passkey of the user, and details for it (not stored)."""
    credential_id = uuid.uuid4().hex
    await adapter.create_authenticator(
        AdapterAuthenticator(
            credential_id=credential_id,
            user_id=user_id,
            provider_account_id=credential_id,
            counter=0,
            credential_backed_up=False,
            credential_public_key="pQECAyYgASFYIA==",
            credential_device_type="singleDevice",
        )
    )
    return PasskeyDetails(credential_id=credential_id, user_id=user_id, name="key")


# Lengths ---------------------------------------------------------------------------------

TOO_LONG_DETAILS: dict[str, dict[str, Any]] = {
    "user agent": {"user_agent": "u" * (MAX_USER_AGENT + 1)},
    "client": {"client": "c" * (MAX_CLIENT + 1)},
    "amr": {"amr": ("pwd",) * (MAX_AMR // 4 + 2)},
    "a method with a space": {"amr": ("pwd otp",)},
    "an empty method": {"amr": ("",)},
}


@pytest.mark.parametrize("fields", TOO_LONG_DETAILS.values(), ids=TOO_LONG_DETAILS)
async def test_session_details_a_store_cannot_keep_are_refused(
    adapter: AnyAdapter, fields: dict[str, Any]
) -> None:
    details = await new_session(adapter, (await new_user(adapter)).id)
    with pytest.raises(ValueError, match=r"^(amr|user_agent|client) "):
        await adapter.save_session_details(dataclasses.replace(details, **fields))
    assert await adapter.get_session_details(details.session_token) is None


async def test_the_longest_fields_are_kept_whole(adapter: AnyAdapter) -> None:
    user = await new_user(adapter)
    details = dataclasses.replace(
        await new_session(adapter, user.id),
        user_agent="ü" * MAX_USER_AGENT,
        client="f" * MAX_CLIENT,
        amr=("pwd",) * (MAX_AMR // 4) + ("otp",),
    )
    assert len(" ".join(details.amr)) == MAX_AMR
    await adapter.save_session_details(details)
    assert await adapter.get_session_details(details.session_token) == details

    passkey = dataclasses.replace(await new_passkey(adapter, user.id), name="🔑" * MAX_PASSKEY_NAME)
    await adapter.save_authenticator_details(passkey)
    assert await adapter.list_authenticator_details(user.id) == [passkey]

    event = SecurityEvent(
        user_id=user.id,
        kind="k" * MAX_EVENT_KIND,
        at=datetime.now(UTC),
        provider="p" * MAX_PROVIDER,
        client="f" * MAX_CLIENT,
        user_agent="ü" * MAX_USER_AGENT,
        detail={"note": "ü" * 1000},
    )
    await adapter.record_security_event(event)
    assert await adapter.list_security_events(user.id) == [event]


TOO_LONG_EVENTS: dict[str, tuple[dict[str, Any], type[Exception]]] = {
    "empty kind": ({"kind": ""}, ValueError),
    "kind": ({"kind": "k" * (MAX_EVENT_KIND + 1)}, ValueError),
    "provider": ({"provider": "p" * (MAX_PROVIDER + 1)}, ValueError),
    "client": ({"client": "c" * (MAX_CLIENT + 1)}, ValueError),
    "user agent": ({"user_agent": "u" * (MAX_USER_AGENT + 1)}, ValueError),
    "detail of a number": ({"detail": {"attempts": 3}}, TypeError),
}


@pytest.mark.parametrize(("fields", "error"), TOO_LONG_EVENTS.values(), ids=TOO_LONG_EVENTS)
async def test_security_events_a_store_cannot_keep_are_refused(
    adapter: AnyAdapter, fields: dict[str, Any], error: type[Exception]
) -> None:
    user = await new_user(adapter)
    event = SecurityEvent(user_id=user.id, kind="sign-in", at=datetime.now(UTC))
    with pytest.raises(error):
        await adapter.record_security_event(dataclasses.replace(event, **fields))
    assert await adapter.list_security_events(user.id) == []


@pytest.mark.parametrize("name", ["", "n" * (MAX_PASSKEY_NAME + 1)], ids=["empty", "long"])
async def test_passkey_names_a_store_cannot_keep_are_refused(
    adapter: AnyAdapter, name: str
) -> None:
    user = await new_user(adapter)
    details = await new_passkey(adapter, user.id)
    with pytest.raises(ValueError, match="1 to 100 characters"):
        await adapter.save_authenticator_details(dataclasses.replace(details, name=name))
    assert await adapter.list_authenticator_details(user.id) == []


# Security events -----------------------------------------------------------------------


async def test_a_user_keeps_the_newest_events(adapter: AnyAdapter) -> None:
    user, other = await new_user(adapter), await new_user(adapter)
    start = datetime.now(UTC) - timedelta(days=1)
    for n in range(SECURITY_EVENTS_KEPT + 5):
        at = start + timedelta(minutes=n)
        await adapter.record_security_event(SecurityEvent(user_id=user.id, kind=f"e{n}", at=at))
    theirs = SecurityEvent(user_id=other.id, kind="other", at=start)
    await adapter.record_security_event(theirs)
    listed = await adapter.list_security_events(user.id, SECURITY_EVENTS_KEPT + 50)
    expected = [f"e{n}" for n in reversed(range(5, SECURITY_EVENTS_KEPT + 5))]
    assert [event.kind for event in listed] == expected
    assert await adapter.list_security_events(other.id) == [theirs]


async def test_events_of_one_time_are_listed_last_recorded_first(adapter: AnyAdapter) -> None:
    user = await new_user(adapter)
    at = datetime.now(UTC).replace(microsecond=500_000)
    for kind in ("first", "second", "third"):
        await adapter.record_security_event(SecurityEvent(user_id=user.id, kind=kind, at=at))
    earlier = SecurityEvent(user_id=user.id, kind="earlier", at=at - timedelta(seconds=1))
    await adapter.record_security_event(earlier)
    listed = await adapter.list_security_events(user.id)
    assert [event.kind for event in listed] == ["third", "second", "first", "earlier"]


# Calls authui makes ---------------------------------------------------------------------


async def test_delete_user_sessions_keeps_the_one_named_by_keyword(adapter: AnyAdapter) -> None:
    user = await new_user(adapter)
    kept, ended = await new_session(adapter, user.id), await new_session(adapter, user.id)
    for details in (kept, ended):
        await adapter.save_session_details(details)
    assert await adapter.delete_user_sessions(user.id, except_token=kept.session_token) == 1
    listed = await adapter.list_user_sessions(user.id)
    assert [s.details for s in listed] == [kept]
    assert await adapter.get_session_details(ended.session_token) is None
