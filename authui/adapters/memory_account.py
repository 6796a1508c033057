"""``MemoryAccountCenter``: the memory adapter's account center, over dictionaries: details
of database sessions, session versions, passkey details and security events
(``authui.adapters.account``). ``MemoryAdapter`` has it, and keeps the Auth.js records it
reads.

As everywhere in the memory adapter, each method body runs without awaiting, so on one
event loop every call is atomic (``bump_session_version`` gives each caller a version of
its own). Session details past their ``expires`` are dropped when any of them is next
used; a user's security events are cut to those kept (``newest_events``) when one is
recorded.
"""

from __future__ import annotations

import dataclasses
import heapq
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from authui.adapters.account import (
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


class MemoryAccountCenter:
    """The account center's methods; ``MemoryAdapter`` documents the rest."""

    #: Auth.js's sessions and passkeys, which ``MemoryAdapter`` keeps.
    sessions: dict[str, AdapterSession]
    authenticators: dict[str, AdapterAuthenticator]

    def __init__(self) -> None:
        #: ``session_token`` -> its details.
        self.session_details: dict[str, SessionDetails] = {}
        # (when they expire, their token), soonest first: what to drop when.
        self._session_details_ends: list[tuple[datetime, str]] = []
        #: ``user_id`` -> its session version (none: 0).
        self.session_versions: dict[str, int] = {}
        #: ``credential_id`` -> its passkey's details.
        self.passkey_details: dict[str, PasskeyDetails] = {}
        #: ``user_id`` -> its security events, newest first.
        self.security_events: dict[str, list[SecurityEvent]] = {}

    # -- session details -----------------------------------------------------------------

    async def save_session_details(self, details: SessionDetails) -> None:
        """authui extension: store ``details``, replacing those of its session token.
        ``ValueError`` for a field too long (``check_session_details``)."""
        check_session_details(details)
        self._drop_expired_details()
        self._keep_details(details)

    async def touch_session_details(
        self, session_token: str, last_seen: datetime, expires: datetime
    ) -> None:
        """authui extension: set ``last_seen`` and ``expires`` of the session's details,
        if it has any."""
        self._drop_expired_details()
        details = self.session_details.get(session_token)
        if details is not None:
            self._keep_details(dataclasses.replace(details, last_seen=last_seen, expires=expires))

    async def get_session_details(self, session_token: str) -> SessionDetails | None:
        """authui extension: the session's details, or ``None``."""
        self._drop_expired_details()
        return self.session_details.get(session_token)

    async def list_user_sessions(self, user_id: str) -> list[UserSession]:
        """authui extension: the user's sessions that have not expired, latest ``expires``
        first, each with its details or ``None``."""
        self._drop_expired_details()
        now = datetime.now(UTC)
        found = [s for s in self.sessions.values() if s.user_id == user_id and s.expires > now]
        found.sort(key=lambda session: session.expires, reverse=True)
        return [
            UserSession(session=s, details=self.session_details.get(s.session_token)) for s in found
        ]

    def _keep_details(self, details: SessionDetails) -> None:
        self.session_details[details.session_token] = details
        heapq.heappush(self._session_details_ends, (details.expires, details.session_token))

    def _drop_expired_details(self) -> None:
        now, ends = datetime.now(UTC), self._session_details_ends
        while ends and ends[0][0] <= now:
            _, token = heapq.heappop(ends)
            stored = self.session_details.get(token)
            if stored is not None and stored.expires <= now:  # not touched since
                del self.session_details[token]

    def _forget_user(self, user_id: str) -> None:
        """Drop what the account center keeps of the user (``delete_user``), but the
        session version."""
        self.session_details = {
            token: d for token, d in self.session_details.items() if d.user_id != user_id
        }
        self.passkey_details = {
            key: d for key, d in self.passkey_details.items() if d.user_id != user_id
        }
        self.security_events.pop(user_id, None)

    # -- session versions ----------------------------------------------------------------

    async def get_session_version(self, user_id: str) -> int:
        """authui extension: the user's session version; ``0`` until bumped."""
        return self.session_versions.get(user_id, 0)

    async def bump_session_version(self, user_id: str) -> int:
        """authui extension: add one to the user's session version; the new version."""
        version = self.session_versions.get(user_id, 0) + 1
        self.session_versions[user_id] = version
        return version

    # -- passkeys ------------------------------------------------------------------------

    async def save_authenticator_details(self, details: PasskeyDetails) -> None:
        """authui extension: store ``details``, replacing those of its credential id.
        ``ValueError`` for an empty or too long name."""
        check_passkey_details(details)
        self.passkey_details[details.credential_id] = details

    async def update_authenticator_details(
        self, credential_id: str, changes: Mapping[str, Any]
    ) -> PasskeyDetails | None:
        """authui extension: set the fields in ``changes`` and return the details; ``None``
        if there are none. ``ValueError`` or ``TypeError`` from ``passkey_changes``."""
        fields = passkey_changes(changes)
        details = self.passkey_details.get(credential_id)
        if details is None:
            return None
        self.passkey_details[credential_id] = dataclasses.replace(details, **fields)
        return self.passkey_details[credential_id]

    async def list_authenticator_details(self, user_id: str) -> list[PasskeyDetails]:
        """authui extension: the user's passkey details, in ``passkey_order``."""
        mine = (d for d in self.passkey_details.values() if d.user_id == user_id)
        return sorted(mine, key=passkey_order)

    async def delete_authenticator(self, credential_id: str) -> AdapterAuthenticator | None:
        """authui extension: delete the passkey and its details; the passkey, or ``None``."""
        self.passkey_details.pop(credential_id, None)
        return self.authenticators.pop(credential_id, None)

    # -- security events -----------------------------------------------------------------

    async def record_security_event(self, event: SecurityEvent) -> None:
        """authui extension: store ``event``, keeping the user's ``newest_events``.
        ``ValueError`` or ``TypeError`` from ``check_security_event``."""
        check_security_event(event)
        events = [event, *self.security_events.get(event.user_id, [])]
        self.security_events[event.user_id] = newest_events(events, datetime.now(UTC))

    async def list_security_events(self, user_id: str, limit: int = 50) -> list[SecurityEvent]:
        """authui extension: the user's security events, newest first, at most ``limit``
        (a positive integer, else ``ValueError``)."""
        security_event_limit(limit)
        events = self.security_events.get(user_id, [])
        return newest_events(events, datetime.now(UTC))[:limit]
