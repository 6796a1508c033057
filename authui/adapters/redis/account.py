"""``RedisAccountCenter``: the Redis adapter's account center, in keys of authui's own
beside Auth.js's records: session details (``session-details:``, expiring with their
session), session versions (``session-version:``), passkey details (``passkey-details:``)
and each user's security events (``user-events:``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from redis.asyncio.client import Pipeline

from authui.adapters.account import (
    SECURITY_EVENT_DAYS,
    SECURITY_EVENTS_KEPT,
    PasskeyDetails,
    SecurityEvent,
    SessionDetails,
    UserSession,
    check_passkey_details,
    check_security_event,
    check_session_details,
    newest_events,
    passkey_changes,
    passkey_order,
    security_event_limit,
)
from authui.adapters.base import AdapterAuthenticator, AdapterSession
from authui.adapters.json_records import dump_record, utc
from authui.adapters.redis.keys import RedisKeys
from authui.adapters.redis.store import epoch_ms, load, multi, now, text, texts


class RedisAccountCenter(RedisKeys):
    """Session details and ``list_user_sessions``; session versions; passkey details and
    ``delete_authenticator``; security events."""

    # -- sessions ------------------------------------------------------------------------

    async def save_session_details(self, details: SessionDetails) -> None:
        """Store ``details`` (replacing those of its session token) to expire at their
        ``expires`` (``SET … PXAT``). ``ValueError`` for a field too long."""
        check_session_details(details)
        key = self.session_details_key(details.session_token)
        await self._redis.set(key, dump_record(details), pxat=epoch_ms(details.expires))

    async def touch_session_details(
        self, session_token: str, last_seen: datetime, expires: datetime
    ) -> None:
        """Set ``last_seen`` and ``expires`` of the session's details, if it has any, and
        move their expiry: a transaction on their key."""
        key = self.session_details_key(session_token)

        async def step(pipe: Pipeline) -> None:
            details = load(SessionDetails, await pipe.get(key))
            multi(pipe)
            if details is not None:
                touched = dataclasses.replace(
                    details, last_seen=utc(last_seen), expires=utc(expires)
                )
                pipe.set(key, dump_record(touched), pxat=epoch_ms(expires))

        await self._transaction(step, key)

    async def get_session_details(self, session_token: str) -> SessionDetails | None:
        """The session's details, or ``None``."""
        return load(SessionDetails, await self._redis.get(self.session_details_key(session_token)))

    async def list_user_sessions(self, user_id: str) -> list[UserSession]:
        """The user's sessions that have not expired, latest ``expires`` first, each with
        its details or ``None``: the tokens in the user's index of sessions that expire
        after now (``ZRANGE … BYSCORE REV``), then their sessions and details (one
        ``MGET``)."""
        index, at = self.user_sessions_key(user_id), now()
        tokens = texts(
            await self._redis.zrange(index, "+inf", f"({epoch_ms(at)}", desc=True, byscore=True)
        )
        if not tokens:
            return []
        sessions = [self.session_key(token) for token in tokens]
        details = [self.session_details_key(token) for token in tokens]
        values = await self._redis.mget(sessions + details)
        found = []
        for n in range(len(tokens)):
            session = load(AdapterSession, values[n])
            if session is not None and session.user_id == user_id and session.expires > at:
                stored = load(SessionDetails, values[len(tokens) + n])
                found.append(UserSession(session=session, details=stored))
        return sorted(found, key=lambda s: s.session.expires, reverse=True)

    # -- session versions ----------------------------------------------------------------

    async def get_session_version(self, user_id: str) -> int:
        """The user's session version; ``0`` until bumped."""
        version = text(await self._redis.get(self.session_version_key(user_id)))
        return 0 if version is None else int(version)

    async def bump_session_version(self, user_id: str) -> int:
        """Add one to the user's session version and return it: one ``INCR``, so that of
        concurrent calls, in any number of processes, each gets a version of its own."""
        return int(await self._redis.incr(self.session_version_key(user_id)))

    # -- passkeys ------------------------------------------------------------------------

    async def save_authenticator_details(self, details: PasskeyDetails) -> None:
        """Store ``details``, replacing those of its credential id. ``ValueError`` for an
        empty or too long name."""
        check_passkey_details(details)
        key = self.passkey_details_key(details.credential_id)
        await self._redis.set(key, dump_record(details))

    async def update_authenticator_details(
        self, credential_id: str, changes: Mapping[str, Any]
    ) -> PasskeyDetails | None:
        """Set the fields in ``changes`` and return the details as stored, in a transaction
        on their key; ``None`` if there are none. ``ValueError`` or ``TypeError`` from
        ``authui.adapters.account.passkey_changes``."""
        fields = passkey_changes(changes)
        key = self.passkey_details_key(credential_id)

        async def step(pipe: Pipeline) -> PasskeyDetails | None:
            details = load(PasskeyDetails, await pipe.get(key))
            multi(pipe)
            if details is None or not fields:
                return details
            updated = dataclasses.replace(details, **fields)
            pipe.set(key, dump_record(updated))
            return updated

        return await self._transaction(step, key)

    async def list_authenticator_details(self, user_id: str) -> list[PasskeyDetails]:
        """The details of the passkeys in the user's list (``user-authenticators:``), those
        without ``created`` first, then oldest first, by credential id where that ties."""
        credential_ids = texts(
            await self._redis.lrange(self.user_authenticators_key(user_id), 0, -1)
        )
        if not credential_ids:
            return []
        values = await self._redis.mget([self.passkey_details_key(c) for c in credential_ids])
        found = (load(PasskeyDetails, value) for value in values)
        return sorted(
            (d for d in found if d is not None and d.user_id == user_id), key=passkey_order
        )

    async def delete_authenticator(self, credential_id: str) -> AdapterAuthenticator | None:
        """Delete the passkey, its details and its entry in its user's list in one
        transaction; the passkey, or ``None`` if there was none."""
        key = self.authenticator_key(credential_id)

        async def step(pipe: Pipeline) -> AdapterAuthenticator | None:
            authenticator = load(AdapterAuthenticator, await pipe.get(key))
            multi(pipe)
            if authenticator is not None:
                pipe.delete(key, self.passkey_details_key(credential_id))
                pipe.lrem(self.user_authenticators_key(authenticator.user_id), 0, credential_id)
            return authenticator

        return await self._transaction(step, key)

    # -- security events -----------------------------------------------------------------

    async def record_security_event(self, event: SecurityEvent) -> None:
        """Put ``event`` at the head of the user's list of events and cut the list to
        ``SECURITY_EVENTS_KEPT`` (``LPUSH``, ``LTRIM``), in one transaction that also keeps
        the list until ``SECURITY_EVENT_DAYS`` after its newest event (``PEXPIREAT … NX``
        sets a first expiry, ``… GT`` extends it). ``ValueError`` or ``TypeError`` from
        ``check_security_event``."""
        check_security_event(event)
        key = self.user_events_key(event.user_id)
        until = epoch_ms(event.at + timedelta(days=SECURITY_EVENT_DAYS))
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.lpush(key, dump_record(event))
            pipe.ltrim(key, 0, SECURITY_EVENTS_KEPT - 1)
            pipe.pexpireat(key, until, nx=True)
            pipe.pexpireat(key, until, gt=True)
            await pipe.execute()

    async def list_security_events(self, user_id: str, limit: int = 50) -> list[SecurityEvent]:
        """The user's security events of the last ``SECURITY_EVENT_DAYS``, newest first, at
        most ``limit`` (a positive integer, else ``ValueError``): one ``LRANGE``."""
        security_event_limit(limit)
        values = await self._redis.lrange(self.user_events_key(user_id), 0, -1)
        events = (load(SecurityEvent, value) for value in values)
        return newest_events((e for e in events if e is not None), now())[:limit]
