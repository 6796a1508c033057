"""The suite's tests of the account center's sessions, session versions and security
events (authui's optional methods): ``AccountConformance``."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

from authui.adapters.account import SECURITY_EVENT_DAYS, SecurityEvent, UserSession
from authui.adapters.base import Adapter, AdapterSession
from authui.testing.adapter_suite.common import (
    ConformanceBase,
    Method,
    absent,
    add_user,
    date_in,
    expect,
    new_event,
    new_session,
    new_session_details,
    optional,
    present,
    same,
)


class AccountConformance(ConformanceBase):
    """Session details, ``list_user_sessions`` and ``delete_user_sessions`` with
    ``except_token``; session versions; security events; what ``delete_session``,
    ``delete_user_sessions`` and ``delete_user`` delete of them. Each test is skipped for
    an adapter without the optional methods it uses."""

    # -- session details -----------------------------------------------------------------

    async def test_session_details_round_trip(self, adapter: Adapter) -> None:
        save, get = _details_methods(adapter)
        user = await add_user(adapter)
        full, bare = new_session(user.id), new_session(user.id)
        for session in (full, bare):
            await adapter.create_session(session)
        details = new_session_details(full)
        plain = new_session_details(bare, amr=(), user_agent=None, client=None)
        for each in (details, plain):
            await save(each)
        same(await get(full.session_token), details, "get_session_details")
        same(await get(bare.session_token), plain, "get_session_details (no browser, no amr)")
        absent(await get(str(uuid.uuid4())), "get_session_details(unknown token)")

    async def test_save_session_details_replaces_them(self, adapter: Adapter) -> None:
        save, get = _details_methods(adapter)
        user = await add_user(adapter)
        session = new_session(user.id)
        await adapter.create_session(session)
        await save(new_session_details(session))
        renewed = new_session_details(
            session,
            auth_time=date_in(days=0, microsecond=777_777),
            amr=("fed", "hwk", "pwd"),
            user_agent="curl/8.7.1",
            client="198.51.100.23",
        )
        await save(renewed)
        same(await get(session.session_token), renewed, "get_session_details after a 2nd save")

    async def test_touch_session_details(self, adapter: Adapter) -> None:
        save, get = _details_methods(adapter)
        touch = optional(adapter, "touch_session_details")
        user = await add_user(adapter)
        session, other = new_session(user.id), new_session(user.id)
        for each in (session, other):
            await adapter.create_session(each)
        details, kept = new_session_details(session), new_session_details(other)
        for stored in (details, kept):
            await save(stored)
        seen, expires = date_in(days=0, microsecond=888_888), date_in(days=45, microsecond=999)
        await touch(session.session_token, seen, expires)
        touched = dataclasses.replace(details, last_seen=seen, expires=expires)
        same(await get(session.session_token), touched, "get_session_details after a touch")
        same(await get(other.session_token), kept, "get_session_details of another session")

        token = str(uuid.uuid4())
        try:
            await touch(token, seen, expires)
        except Exception as exc:
            raise AssertionError(
                f"touch_session_details of a session without details raised {exc!r}; "
                "expected it to do nothing"
            ) from exc
        absent(await get(token), "get_session_details after touching a token without details")

    async def test_delete_session_deletes_its_details(self, adapter: Adapter) -> None:
        save, get = _details_methods(adapter)
        user = await add_user(adapter)
        ended, kept = new_session(user.id), new_session(user.id)
        for session in (ended, kept):
            await adapter.create_session(session)
            await save(new_session_details(session))
        await adapter.delete_session(ended.session_token)
        absent(await get(ended.session_token), "get_session_details after delete_session")
        same(
            await get(kept.session_token),
            new_session_details(kept),
            "get_session_details of the user's other session after delete_session",
        )

    # -- a user's sessions ---------------------------------------------------------------

    async def test_list_user_sessions_latest_first_with_details_or_none(
        self, adapter: Adapter
    ) -> None:
        """A session without details (as Auth.js makes them) is listed with ``None``."""
        list_sessions = optional(adapter, "list_user_sessions")
        save = optional(adapter, "save_session_details")
        user = await add_user(adapter)
        soon, middle, late = (
            AdapterSession(
                session_token=str(uuid.uuid4()),
                user_id=user.id,
                expires=date_in(days=days, microsecond=123_000 + days),
            )
            for days in (1, 10, 30)
        )
        for session in (middle, late, soon):
            await adapter.create_session(session)
        await save(new_session_details(late))
        await save(new_session_details(soon, amr=("email",)))

        listed = await list_sessions(user.id)
        expect(
            isinstance(listed, list) and all(isinstance(s, UserSession) for s in listed),
            f"list_user_sessions returned {listed!r}; expected a list of UserSession",
        )
        tokens = [s.session.session_token for s in listed]
        expect(
            tokens == [late.session_token, middle.session_token, soon.session_token],
            f"list_user_sessions listed {tokens}; expected the latest expires first",
        )
        for found, session in zip(listed, (late, middle, soon), strict=True):
            same(found.session, session, "list_user_sessions: the session")
        same(listed[0].details, new_session_details(late), "list_user_sessions: details")
        absent(listed[1].details, "list_user_sessions: details of a session without any")
        same(
            listed[2].details,
            new_session_details(soon, amr=("email",)),
            "list_user_sessions: details",
        )

    async def test_list_user_sessions_leaves_out_expired_and_other_users(
        self, adapter: Adapter
    ) -> None:
        list_sessions = optional(adapter, "list_user_sessions")
        user, other = await add_user(adapter), await add_user(adapter)
        current = new_session(user.id)
        expired = dataclasses.replace(new_session(user.id), expires=date_in(days=-1, microsecond=0))
        for session in (current, expired, new_session(other.id)):
            await adapter.create_session(session)
        listed = await list_sessions(user.id)
        tokens = [s.session.session_token for s in listed]
        expect(
            tokens == [current.session_token],
            f"list_user_sessions listed {tokens}; expected only the session that has not "
            f"expired ({current.session_token}), none of another user's",
        )
        unknown = await list_sessions(str(uuid.uuid4()))
        expect(unknown == [], f"list_user_sessions(unknown user) returned {unknown!r}")

    async def test_delete_user_sessions_keeps_the_excepted_one(self, adapter: Adapter) -> None:
        delete_sessions = optional(adapter, "delete_user_sessions")
        user, other = await add_user(adapter), await add_user(adapter)
        first, kept, last = (new_session(user.id) for _ in range(3))
        theirs = new_session(other.id)
        for session in (first, kept, last, theirs):
            await adapter.create_session(session)

        deleted = await delete_sessions(user.id, kept.session_token)
        expect(
            deleted == 2,
            f"delete_user_sessions(user, except_token) returned {deleted!r}; expected 2",
        )
        for session in (first, last):
            absent(
                await adapter.get_session_and_user(session.session_token),
                "get_session_and_user of a session delete_user_sessions deleted",
            )
        for session in (kept, theirs):
            pair = present(
                await adapter.get_session_and_user(session.session_token),
                "get_session_and_user of a session delete_user_sessions kept",
            )
            same(pair[0], session, "a session delete_user_sessions kept")
        again = await delete_sessions(user.id, kept.session_token)
        expect(again == 0, f"delete_user_sessions again returned {again!r}; expected 0")

    async def test_delete_user_sessions_deletes_their_details(self, adapter: Adapter) -> None:
        delete_sessions = optional(adapter, "delete_user_sessions")
        save, get = _details_methods(adapter)
        user, other = await add_user(adapter), await add_user(adapter)
        ended, kept, theirs = new_session(user.id), new_session(user.id), new_session(other.id)
        for session in (ended, kept, theirs):
            await adapter.create_session(session)
            await save(new_session_details(session))

        await delete_sessions(user.id, kept.session_token)
        absent(await get(ended.session_token), "details of a session delete_user_sessions ended")
        for session in (kept, theirs):
            same(
                await get(session.session_token),
                new_session_details(session),
                "details of a session delete_user_sessions kept",
            )
        await delete_sessions(user.id)
        absent(await get(kept.session_token), "details after delete_user_sessions(user)")

    async def test_delete_user_deletes_session_details(self, adapter: Adapter) -> None:
        save, get = _details_methods(adapter)
        user, other = await add_user(adapter), await add_user(adapter)
        mine, theirs = new_session(user.id), new_session(other.id)
        for session in (mine, theirs):
            await adapter.create_session(session)
            await save(new_session_details(session))
        await adapter.delete_user(user.id)
        absent(await get(mine.session_token), "details of a deleted user's session")
        same(
            await get(theirs.session_token),
            new_session_details(theirs),
            "details of another user's session after delete_user",
        )

    # -- session versions ----------------------------------------------------------------

    async def test_session_versions_count_from_zero(self, adapter: Adapter) -> None:
        get, bump = _version_methods(adapter)
        user, other = await add_user(adapter), await add_user(adapter)
        versions = [
            await get(user.id),
            await bump(user.id),
            await bump(user.id),
            await get(user.id),
        ]
        expect(
            versions == [0, 1, 2, 2],
            f"get, bump, bump, get of a session version returned {versions}; expected [0, 1, 2, 2]",
        )
        theirs = await get(other.id)
        expect(theirs == 0, f"another user's session version is {theirs!r}; expected 0")

    async def test_bump_session_version_is_atomic(self, adapter: Adapter) -> None:
        get, bump = _version_methods(adapter)
        user = await add_user(adapter)
        callers = self.concurrency
        versions = await asyncio.gather(*(bump(user.id) for _ in range(callers)))
        expect(
            sorted(versions) == list(range(1, callers + 1)),
            f"{callers} concurrent bump_session_version calls returned {sorted(versions)}; "
            f"expected 1 to {callers}, each once",
        )
        final = await get(user.id)
        expect(final == callers, f"get_session_version returned {final!r}; expected {callers}")

    async def test_delete_user_keeps_the_session_version(self, adapter: Adapter) -> None:
        get, bump = _version_methods(adapter)
        user, other = await add_user(adapter), await add_user(adapter)
        for who in (user, user, other):
            await bump(who.id)
        await adapter.delete_user(user.id)
        found = (await get(user.id), await get(other.id))
        expect(
            found == (2, 1),
            f"session versions after delete_user are {found}; expected (2, 1): the deleted "
            "user's stays, so that bumping it ends the JWT sessions made before",
        )

    # -- security events -----------------------------------------------------------------

    async def test_security_events_newest_first(self, adapter: Adapter) -> None:
        record, list_events = _event_methods(adapter)
        user, other = await add_user(adapter), await add_user(adapter)
        start = datetime.now(UTC) - timedelta(hours=5)
        events = [
            new_event(user.id, kind="sign-in", at=start),
            new_event(user.id, kind="passkey-added", at=start + timedelta(hours=1), detail={}),
            new_event(
                user.id,
                kind="sign-in-failed",
                at=start + timedelta(hours=2, microseconds=123_456),
                provider=None,
                client=None,
                user_agent=None,
                detail={"error": "CredentialsSignin"},
            ),
            new_event(user.id, kind="sign-out-everywhere", at=start + timedelta(hours=3)),
        ]
        for event in events:
            await record(event)
        theirs = new_event(other.id, at=start + timedelta(hours=4))
        await record(theirs)

        listed = await list_events(user.id)
        expect(
            isinstance(listed, list) and len(listed) == len(events),
            f"list_security_events returned {listed!r}; expected the user's {len(events)}",
        )
        for found, event in zip(listed, reversed(events), strict=True):
            _same_event(found, event, "list_security_events")
        two = await list_events(user.id, 2)
        expect(
            [e.kind for e in two] == ["sign-out-everywhere", "sign-in-failed"],
            f"list_security_events(limit=2) returned {two!r}; expected the newest two",
        )
        listed_other = await list_events(other.id)
        expect(len(listed_other) == 1, f"another user's events: {listed_other!r}")
        _same_event(listed_other[0], theirs, "list_security_events of another user")
        unknown = await list_events(str(uuid.uuid4()))
        expect(unknown == [], f"list_security_events(unknown user) returned {unknown!r}")

    async def test_list_security_events_refuses_a_bad_limit(self, adapter: Adapter) -> None:
        _, list_events = _event_methods(adapter)
        user = await add_user(adapter)
        for limit in (0, -1, True, 2.5, "10"):
            try:
                returned = await list_events(user.id, limit)
                outcome = f"returned {returned!r}"
            except ValueError:
                continue
            except Exception as exc:
                outcome = f"raised {exc!r}"
            raise AssertionError(
                f"list_security_events(limit={limit!r}) {outcome}; expected ValueError"
            )

    async def test_old_security_events_are_not_listed(self, adapter: Adapter) -> None:
        record, list_events = _event_methods(adapter)
        user = await add_user(adapter)
        fresh = new_event(user.id)
        old = new_event(
            user.id, kind="old", at=datetime.now(UTC) - timedelta(days=SECURITY_EVENT_DAYS, hours=1)
        )
        await record(fresh)
        await record(old)
        listed = await list_events(user.id)
        expect(
            [e.kind for e in listed] == [fresh.kind],
            f"list_security_events returned {listed!r}; expected only the event of the last "
            f"{SECURITY_EVENT_DAYS} days",
        )

    async def test_delete_user_deletes_security_events(self, adapter: Adapter) -> None:
        record, list_events = _event_methods(adapter)
        user, other = await add_user(adapter), await add_user(adapter)
        theirs = new_event(other.id)
        for event in (new_event(user.id), new_event(user.id, kind="sign-out"), theirs):
            await record(event)
        await adapter.delete_user(user.id)
        mine = await list_events(user.id)
        expect(mine == [], f"a deleted user's security events are still listed: {mine!r}")
        listed = await list_events(other.id)
        expect(len(listed) == 1, f"another user's events after delete_user: {listed!r}")
        _same_event(listed[0], theirs, "another user's event after delete_user")


def _details_methods(adapter: object) -> tuple[Method, Method]:
    """The adapter's ``save_session_details`` and ``get_session_details``; the test is
    skipped for an adapter without them."""
    __tracebackhide__ = True
    return optional(adapter, "save_session_details"), optional(adapter, "get_session_details")


def _version_methods(adapter: object) -> tuple[Method, Method]:
    """The adapter's ``get_session_version`` and ``bump_session_version``; the test is
    skipped for an adapter without them."""
    __tracebackhide__ = True
    return optional(adapter, "get_session_version"), optional(adapter, "bump_session_version")


def _event_methods(adapter: object) -> tuple[Method, Method]:
    """The adapter's ``record_security_event`` and ``list_security_events``; the test is
    skipped for an adapter without them."""
    __tracebackhide__ = True
    return optional(adapter, "record_security_event"), optional(adapter, "list_security_events")


def _same_event(actual: object, expected: SecurityEvent, what: str) -> None:
    """``actual`` is ``expected``, its ``detail`` any mapping with the same items."""
    __tracebackhide__ = True
    detail = getattr(actual, "detail", None)
    if isinstance(actual, SecurityEvent) and isinstance(detail, Mapping):
        actual = dataclasses.replace(actual, detail=dict(detail))
    same(actual, expected, what)
