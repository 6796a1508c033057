"""The account center's records: what authui keeps about a user's database sessions and
passkeys beyond Auth.js's rows, and the account's security activity; with the checks
every adapter makes before it stores them.

A signed-in user's account pages list their sessions (``UserSession``: Auth.js's session
with authui's ``SessionDetails``, or ``None`` for a session authui did not make), their
passkeys (``PasskeyDetails``: a name beside Auth.js's authenticator) and what happened to
the account (``SecurityEvent``). The adapter methods that keep them are optional (see
``authui.adapters.base.Adapter``); each adapter keeps them apart from Auth.js's tables or
keys, so an Auth.js app sharing the store never sees them.

Security events are kept ``SECURITY_EVENT_DAYS`` days, and a store may keep only the
newest ``SECURITY_EVENTS_KEPT`` of a user (``newest_events`` is the order and the cut
they share).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypedDict

from authui.adapters.base import AdapterSession

SECURITY_EVENT_DAYS = 90
"""How long a security event is kept, in days: older ones are removed in time."""

SECURITY_EVENTS_KEPT = 100
"""How many of a user's newest security events a store keeps at least: it may remove
older ones."""

#: The longest ``user_agent`` of session details and security events, in characters.
MAX_USER_AGENT = 512
#: The longest ``client`` address, in characters (an IPv6 address with a zone fits).
MAX_CLIENT = 64
#: The longest ``amr`` of session details, its methods joined by spaces.
MAX_AMR = 255
#: The longest ``kind`` of a security event.
MAX_EVENT_KIND = 64
#: The longest ``provider`` of a security event (a provider id).
MAX_PROVIDER = 255
#: The longest passkey name; a name has at least one character.
MAX_PASSKEY_NAME = 100

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionDetails:
    """What authui keeps about a database session beyond Auth.js's row.

    ``expires`` follows the session's expiry (``touch_session_details`` moves it with
    ``last_seen``, at most once per ``update_age``); ``auth_time`` is when the user last
    proved who they are in this session, and ``amr`` how (``"fed"``, ``"email"``,
    ``"hwk"``, ``"pwd"``, … in order, each without spaces; may be empty). ``user_agent``
    is the browser's ``User-Agent`` (at most 512 characters) and ``client`` its IP address
    (at most 64).
    """

    session_token: str
    user_id: str
    expires: datetime
    created: datetime
    last_seen: datetime
    auth_time: datetime
    amr: tuple[str, ...]
    user_agent: str | None = None
    client: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class UserSession:
    """One of a user's database sessions, with authui's details when it has them
    (``None`` for a session that Auth.js, or an authui without details, made)."""

    session: AdapterSession
    details: SessionDetails | None


@dataclass(frozen=True, slots=True, kw_only=True)
class PasskeyDetails:
    """What authui keeps about a passkey beyond Auth.js's authenticator row: the name the
    user gave it (1 to 100 characters), when it was made and when it was last used."""

    credential_id: str
    user_id: str
    name: str
    created: datetime | None = None
    last_used: datetime | None = None


class PasskeyChanges(TypedDict, total=False):
    """Fields ``update_authenticator_details`` may change."""

    name: str
    last_used: datetime


@dataclass(frozen=True, slots=True, kw_only=True)
class SecurityEvent:
    """One thing that happened to a user's account, for the account's activity page.

    ``kind`` says what (``"sign-in"``, ``"passkey-added"``, …; at most 64 characters),
    ``provider`` the provider concerned, if any; ``client`` and ``user_agent`` where it
    came from. ``detail`` holds a few more strings (kept as a JSON object).
    """

    user_id: str
    kind: str
    at: datetime
    provider: str | None = None
    client: str | None = None
    user_agent: str | None = None
    detail: Mapping[str, str] = field(default_factory=dict)


def check_session_details(details: SessionDetails) -> None:
    """Check ``details`` for ``save_session_details``.

    Raises:
        ValueError: ``user_agent`` or ``client`` is too long (``MAX_USER_AGENT``,
            ``MAX_CLIENT``), a method of ``amr`` is empty or holds whitespace, or the
            methods joined by spaces are longer than ``MAX_AMR``.
    """
    _check_length("user_agent", details.user_agent, MAX_USER_AGENT)
    _check_length("client", details.client, MAX_CLIENT)
    if any(method.split() != [method] for method in details.amr):
        raise ValueError(f"amr holds methods without spaces, not {details.amr!r}")
    _check_length("amr", " ".join(details.amr), MAX_AMR)


def check_passkey_details(details: PasskeyDetails) -> None:
    """Check ``details`` for ``save_authenticator_details``.

    Raises:
        ValueError: The name is empty or longer than ``MAX_PASSKEY_NAME``.
    """
    _check_name(details.name)


def passkey_changes(changes: Mapping[str, Any]) -> dict[str, Any]:
    """``changes`` for ``update_authenticator_details``, checked: a ``dict`` of the
    ``PasskeyChanges`` fields, ``name`` a ``str`` of 1 to ``MAX_PASSKEY_NAME``
    characters, ``last_used`` a ``datetime``.

    Raises:
        ValueError: A name is not a field of ``PasskeyChanges`` (the credential id, the
            user and ``created`` never change), or the new name is empty or too long.
        TypeError: A value is not of its field's type.
    """
    checked = dict(changes)
    unknown = sorted(set(checked) - PasskeyChanges.__annotations__.keys(), key=str)
    if unknown:
        raise ValueError(f"update_authenticator_details cannot change {unknown}")
    if "name" in checked:
        name = checked["name"]
        if not isinstance(name, str):
            raise TypeError(f"a passkey name is a str, not {type(name).__name__}")
        _check_name(name)
    if "last_used" in checked and not isinstance(checked["last_used"], datetime):
        raise TypeError(f"last_used is a datetime, not {checked['last_used']!r}")
    return checked


def check_security_event(event: SecurityEvent) -> None:
    """Check ``event`` for ``record_security_event``.

    Raises:
        ValueError: ``kind`` is empty, or ``kind``, ``provider``, ``client`` or
            ``user_agent`` is too long (``MAX_EVENT_KIND``, ``MAX_PROVIDER``,
            ``MAX_CLIENT``, ``MAX_USER_AGENT``).
        TypeError: ``detail`` has a name or a value that is not a ``str``.
    """
    if not event.kind:
        raise ValueError("a security event has a kind")
    _check_length("kind", event.kind, MAX_EVENT_KIND)
    _check_length("provider", event.provider, MAX_PROVIDER)
    _check_length("client", event.client, MAX_CLIENT)
    _check_length("user_agent", event.user_agent, MAX_USER_AGENT)
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in event.detail.items()):
        raise TypeError(f"detail maps strings to strings, not {dict(event.detail)!r}")


def security_event_limit(limit: int) -> int:
    """``limit`` for ``list_security_events``, checked.

    Raises:
        ValueError: ``limit`` is not a positive integer.
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"limit must be a positive integer, not {limit!r}")
    return limit


def security_events_since(now: datetime) -> datetime:
    """The oldest time of a security event that is still kept at ``now``."""
    return now - timedelta(days=SECURITY_EVENT_DAYS)


def newest_events(events: Iterable[SecurityEvent], now: datetime) -> list[SecurityEvent]:
    """``events`` that are still kept at ``now``, newest first, at most
    ``SECURITY_EVENTS_KEPT``; events of one time keep their order (give them newest
    recorded first)."""
    since = security_events_since(now)
    kept = sorted((e for e in events if e.at > since), key=lambda e: e.at, reverse=True)
    return kept[:SECURITY_EVENTS_KEPT]


def passkey_order(details: PasskeyDetails) -> tuple[bool, datetime, str]:
    """How ``list_authenticator_details`` orders a user's passkeys: those without
    ``created`` first, then oldest first; by credential id where that ties."""
    return details.created is not None, details.created or _EPOCH, details.credential_id


def _check_name(name: str) -> None:
    if not 1 <= len(name) <= MAX_PASSKEY_NAME:
        raise ValueError(f"a passkey name has 1 to {MAX_PASSKEY_NAME} characters")


def _check_length(name: str, value: str | None, most: int) -> None:
    if value is not None and len(value) > most:
        raise ValueError(f"{name} has at most {most} characters")
