"""Rows to records and records to rows: the tables' column keys are the records' field
names, so only ids (integers with ``id_type="integer"``), SQL's ``NULL``/``0``/``1``, and
the account center's ``amr`` (methods joined by spaces) and ``detail`` (JSON text) need
converting."""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, Table

from authui.adapters.account import PasskeyDetails, SecurityEvent, SessionDetails
from authui.adapters.base import (
    AdapterAccount,
    AdapterAuthenticator,
    AdapterSession,
    AdapterUser,
    VerificationToken,
)
from authui.adapters.factors import MfaEnrolment, PasswordRecord, TrustedBrowser
from authui.adapters.sql.schema import to_utc


def values_of(record: Any) -> dict[str, Any]:
    """A record's fields by name, ready for an ``INSERT``."""
    return {field.name: getattr(record, field.name) for field in dataclasses.fields(record)}


def user_from(users: Table, row: Row[Any]) -> AdapterUser:
    c, m = users.c, row._mapping
    return AdapterUser(
        id=str(m[c.id]),
        email=m[c.email],
        email_verified=m[c.email_verified],
        name=m[c.name],
        image=m[c.image],
    )


def account_from(accounts: Table, row: Row[Any]) -> AdapterAccount:
    c, m = accounts.c, row._mapping
    return AdapterAccount(
        user_id=str(m[c.user_id]),
        type=m[c.type],
        provider=m[c.provider],
        provider_account_id=m[c.provider_account_id],
        access_token=m[c.access_token],
        refresh_token=m[c.refresh_token],
        expires_at=m[c.expires_at],
        id_token=m[c.id_token],
        scope=m[c.scope],
        token_type=m[c.token_type],
        session_state=m[c.session_state],
    )


def session_from(sessions: Table, row: Row[Any]) -> AdapterSession:
    c, m = sessions.c, row._mapping
    return AdapterSession(
        session_token=m[c.session_token], user_id=str(m[c.user_id]), expires=m[c.expires]
    )


def session_and_user_from(
    sessions: Table, users: Table, row: Sequence[Any]
) -> tuple[AdapterSession, AdapterUser]:
    """The session check's row (the session's columns, then the user's, in table order) as
    records, whether SQLAlchemy read it or the driver did: dates that a driver gives as it
    stored them (SQLite's text, MariaDB's naive UTC) become aware UTC ``datetime``s."""
    at = row_positions(sessions, users)
    expires = to_utc(row[at["expires"]])
    if expires is None:
        raise ValueError("a session row without an expiry")
    session = AdapterSession(
        session_token=row[at["session_token"]], user_id=str(row[at["user_id"]]), expires=expires
    )
    user = AdapterUser(
        id=str(row[at["id"]]),
        email=row[at["email"]],
        email_verified=to_utc(row[at["email_verified"]]),
        name=row[at["name"]],
        image=row[at["image"]],
    )
    return session, user


@functools.cache
def row_positions(sessions: Table, users: Table) -> dict[str, int]:
    """Where each field is in the session check's row: the sessions' column keys, then
    the users' (``id`` is the user's)."""
    found = {key: n for n, key in enumerate(sessions.c.keys())}
    return found | {key: len(found) + n for n, key in enumerate(users.c.keys())}


def token_from(tokens: Table, row: Row[Any]) -> VerificationToken:
    c, m = tokens.c, row._mapping
    return VerificationToken(identifier=m[c.identifier], token=m[c.token], expires=m[c.expires])


def authenticator_from(authenticators: Table, row: Row[Any]) -> AdapterAuthenticator:
    c, m = authenticators.c, row._mapping
    return AdapterAuthenticator(
        credential_id=m[c.credential_id],
        user_id=str(m[c.user_id]),
        provider_account_id=m[c.provider_account_id],
        counter=m[c.counter],
        credential_backed_up=bool(m[c.credential_backed_up]),
        credential_public_key=m[c.credential_public_key],
        credential_device_type=m[c.credential_device_type],
        transports=m[c.transports],
    )


def session_details_values(details: SessionDetails) -> dict[str, Any]:
    """``details`` for an ``INSERT`` (its ``user_id`` as given)."""
    return values_of(details) | {"amr": " ".join(details.amr)}


def session_details_from(table: Table, row: Row[Any]) -> SessionDetails:
    c, m = table.c, row._mapping
    return SessionDetails(
        session_token=m[c.session_token],
        user_id=str(m[c.user_id]),
        expires=m[c.expires],
        created=m[c.created],
        last_seen=m[c.last_seen],
        auth_time=m[c.auth_time],
        amr=tuple(m[c.amr].split()),
        user_agent=m[c.user_agent],
        client=m[c.client],
    )


def passkey_details_from(table: Table, row: Row[Any]) -> PasskeyDetails:
    c, m = table.c, row._mapping
    return PasskeyDetails(
        credential_id=m[c.credential_id],
        user_id=str(m[c.user_id]),
        name=m[c.name],
        created=m[c.created],
        last_used=m[c.last_used],
    )


def security_event_values(event: SecurityEvent) -> dict[str, Any]:
    """``event`` for an ``INSERT`` (its ``user_id`` as given): ``detail`` as JSON text,
    ``NULL`` when empty."""
    detail = json.dumps(dict(event.detail), separators=(",", ":")) if event.detail else None
    return values_of(event) | {"detail": detail}


def security_event_from(table: Table, row: Row[Any]) -> SecurityEvent:
    c, m = table.c, row._mapping
    detail = m[c.detail]
    return SecurityEvent(
        user_id=str(m[c.user_id]),
        kind=m[c.kind],
        at=m[c.at],
        provider=m[c.provider],
        client=m[c.client],
        user_agent=m[c.user_agent],
        detail=json.loads(detail) if detail else {},
    )


def password_from(table: Table, row: Row[Any]) -> PasswordRecord:
    c, m = table.c, row._mapping
    return PasswordRecord(user_id=str(m[c.user_id]), hash=m[c.hash], updated=m[c.updated])


def mfa_from(table: Table, row: Row[Any]) -> MfaEnrolment:
    c, m = table.c, row._mapping
    step = m[c.totp_last_step]
    return MfaEnrolment(
        user_id=str(m[c.user_id]),
        created=m[c.created],
        totp_secret=m[c.totp_secret],
        totp_last_step=None if step is None else int(step),
        passkey=bool(m[c.passkey]),
    )


def trusted_browser_from(table: Table, row: Row[Any]) -> TrustedBrowser:
    c, m = table.c, row._mapping
    return TrustedBrowser(
        browser_id=m[c.browser_id],
        user_id=str(m[c.user_id]),
        created=m[c.created],
        expires=m[c.expires],
        user_agent=m[c.user_agent],
        client=m[c.client],
    )
