"""``SQLAccountCenter``: the SQL adapter's account center, in tables of authui's own beside
Auth.js's (``authui_session_details``, ``authui_passkeys``, ``authui_security_events``,
``authui_session_versions``), and the ending of a user's sessions that goes with it."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import case, delete, insert, select, update

from authui.adapters.account import (
    SECURITY_EVENTS_KEPT,
    PasskeyDetails,
    SecurityEvent,
    SessionDetails,
    UserSession,
    check_passkey_details,
    check_security_event,
    check_session_details,
    passkey_changes,
    security_event_limit,
    security_events_since,
)
from authui.adapters.base import AdapterAuthenticator
from authui.adapters.sql.records import (
    authenticator_from,
    passkey_details_from,
    security_event_from,
    security_event_values,
    session_details_from,
    session_details_values,
    session_from,
    values_of,
)
from authui.adapters.sql.statements import delete_returning, increment, replace, update_returning
from authui.adapters.sql.store import SQLStore


class SQLAccountCenter(SQLStore):
    """Session details, ``list_user_sessions`` and ``delete_user_sessions``; session
    versions; passkey details and ``delete_authenticator``; security events.

    Session details past their ``expires`` (also those of sessions Auth.js deleted) are
    deleted after a write of details, and security events older than
    ``SECURITY_EVENT_DAYS`` after an event is recorded, at most once a minute per table
    and adapter (``SQLStore._sweep``, through the indexes on ``expires`` and ``at``).
    """

    # -- sessions ------------------------------------------------------------------------

    async def save_session_details(self, details: SessionDetails) -> None:
        """Insert ``details``, or replace the row of its session token: one upsert
        (``authui.adapters.sql.statements.replace``).

        Raises:
            ValueError: A field is too long (``check_session_details``).
        """
        check_session_details(details)
        table = self.tables.session_details
        values = session_details_values(details) | {"user_id": self._user_ref(details.user_id)}
        async with self._transaction() as conn:
            await replace(conn, table, values, "save_session_details")
        await self._sweep(table, datetime.now(UTC))

    async def touch_session_details(
        self, session_token: str, last_seen: datetime, expires: datetime
    ) -> None:
        """Set ``last_seen`` and ``expires`` of the session's details, if it has any: one
        ``UPDATE``."""
        table = self.tables.session_details
        changes = {"last_seen": last_seen, "expires": expires}
        async with self._transaction() as conn:
            await conn.execute(
                update(table).where(table.c.session_token == session_token).values(changes)
            )
        await self._sweep(table, datetime.now(UTC))

    async def get_session_details(self, session_token: str) -> SessionDetails | None:
        """The session's details, or ``None``."""
        table = self.tables.session_details
        row = await self._first(select(table).where(table.c.session_token == session_token))
        return session_details_from(table, row) if row else None

    async def list_user_sessions(self, user_id: str) -> list[UserSession]:
        """The user's sessions that have not expired, latest ``expires`` first, each with
        its details or ``None``: one query, ``sessions LEFT OUTER JOIN`` the details."""
        key = self._user_key(user_id)
        if key is None:
            return []
        sessions, details = self.tables.sessions, self.tables.session_details
        query = (
            select(sessions, details)
            .select_from(
                sessions.outerjoin(details, details.c.session_token == sessions.c.session_token)
            )
            .where(sessions.c.user_id == key, sessions.c.expires > datetime.now(UTC))
            .order_by(sessions.c.expires.desc())
        )
        async with self._transaction() as conn:
            rows = (await conn.execute(query)).all()
        return [
            UserSession(
                session=session_from(sessions, row),
                details=(
                    None
                    if row._mapping[details.c.session_token] is None
                    else session_details_from(details, row)
                ),
            )
            for row in rows
        ]

    async def delete_user_sessions(self, user_id: str, except_token: str | None = None) -> int:
        """Delete every session of the user but ``except_token``'s, and their details, in
        one transaction; how many sessions it deleted."""
        key = self._user_key(user_id)
        if key is None:
            return 0
        deleted: list[int] = []
        async with self._transaction() as conn:
            for table in self._present(self.tables.sessions, self.tables.session_details):
                where = table.c.user_id == key
                if except_token is not None:
                    where = where & (table.c.session_token != except_token)
                deleted.append((await conn.execute(delete(table).where(where))).rowcount)
        return int(deleted[0])

    # -- session versions ----------------------------------------------------------------

    async def get_session_version(self, user_id: str) -> int:
        """The user's session version; ``0`` until bumped."""
        versions = self.tables.session_versions
        key = self._user_key(user_id)
        if key is None:
            return 0
        row = await self._first(select(versions.c.version).where(versions.c.user_id == key))
        return int(row.version) if row else 0

    async def bump_session_version(self, user_id: str) -> int:
        """Add one to the user's session version and return it: one atomic upsert
        (``authui.adapters.sql.statements.increment``), so that of concurrent calls, in any
        number of processes, each gets a version of its own."""
        values = {"user_id": self._user_ref(user_id)}
        async with self._transaction() as conn:
            return await increment(
                conn, self.tables.session_versions, values, "version", "bump_session_version"
            )

    # -- passkeys ------------------------------------------------------------------------

    async def save_authenticator_details(self, details: PasskeyDetails) -> None:
        """Insert ``details``, or replace the row of its credential id: one upsert.

        Raises:
            ValueError: The name is empty or too long.
        """
        check_passkey_details(details)
        values = values_of(details) | {"user_id": self._user_ref(details.user_id)}
        async with self._transaction() as conn:
            await replace(conn, self.tables.passkeys, values, "save_authenticator_details")

    async def update_authenticator_details(
        self, credential_id: str, changes: Mapping[str, Any]
    ) -> PasskeyDetails | None:
        """Set the fields in ``changes`` in one ``UPDATE`` and return the details as
        stored; ``None`` if there are none.

        Raises:
            ValueError: ``changes`` names a field that does not change, or the name is
                empty or too long (``authui.adapters.account.passkey_changes``).
            TypeError: A value is not of its field's type.
        """
        fields = passkey_changes(changes)
        passkeys = self.tables.passkeys
        where = passkeys.c.credential_id == credential_id
        if not fields:
            row = await self._first(select(passkeys).where(where))
        else:
            async with self._transaction() as conn:
                row = await update_returning(conn, passkeys, where, fields)
        return passkey_details_from(passkeys, row) if row else None

    async def list_authenticator_details(self, user_id: str) -> list[PasskeyDetails]:
        """The user's passkey details: those without ``created`` first, then oldest first,
        by credential id where that ties."""
        key = self._user_key(user_id)
        if key is None:
            return []
        c = self.tables.passkeys.c
        query = (
            select(self.tables.passkeys)
            .where(c.user_id == key)
            .order_by(case((c.created.is_(None), 0), else_=1), c.created, c.credential_id)
        )
        async with self._transaction() as conn:
            rows = (await conn.execute(query)).all()
        return [passkey_details_from(self.tables.passkeys, row) for row in rows]

    async def delete_authenticator(self, credential_id: str) -> AdapterAuthenticator | None:
        """Delete the passkey and its details in one transaction; the passkey, or
        ``None`` if there was none."""
        authenticators, passkeys = self.tables.authenticators, self.tables.passkeys
        async with self._transaction() as conn:
            where = authenticators.c.credential_id == credential_id
            row = await delete_returning(conn, authenticators, where)
            for kept in self._present(passkeys):
                await conn.execute(delete(kept).where(kept.c.credential_id == credential_id))
        return authenticator_from(authenticators, row) if row else None

    # -- security events -----------------------------------------------------------------

    async def record_security_event(self, event: SecurityEvent) -> None:
        """Insert ``event`` and, in the same transaction, delete the user's events beyond
        the newest ``SECURITY_EVENTS_KEPT`` (found through the index on ``user_id``, then
        deleted by their ids).

        Raises:
            ValueError, TypeError: From ``check_security_event``.
        """
        check_security_event(event)
        events = self.tables.security_events
        key = self._user_ref(event.user_id)
        beyond = (
            select(events.c.id)
            .where(events.c.user_id == key)
            .order_by(events.c.at.desc(), events.c.id.desc())
            .offset(SECURITY_EVENTS_KEPT)
        )
        async with self._transaction() as conn:
            values = security_event_values(event) | {"user_id": key}
            await conn.execute(insert(events).values(values))
            old = list((await conn.execute(beyond)).scalars())
            if old:
                await conn.execute(delete(events).where(events.c.id.in_(old)))
        await self._sweep(events, security_events_since(datetime.now(UTC)), column="at")

    async def list_security_events(self, user_id: str, limit: int = 50) -> list[SecurityEvent]:
        """The user's security events of the last ``SECURITY_EVENT_DAYS``, newest first, at
        most ``limit``.

        Raises:
            ValueError: ``limit`` is not a positive integer.
        """
        security_event_limit(limit)
        key = self._user_key(user_id)
        if key is None:
            return []
        events = self.tables.security_events
        query = (
            select(events)
            .where(events.c.user_id == key, events.c.at > security_events_since(datetime.now(UTC)))
            .order_by(events.c.at.desc(), events.c.id.desc())
            .limit(limit)
        )
        async with self._transaction() as conn:
            rows = (await conn.execute(query)).all()
        return [security_event_from(events, row) for row in rows]
