"""Dates as Auth.js writes them (``toISOString``) and reads them (``isDate``)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import TypeGuard

_ISO_DATE = re.compile(
    r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$"
)


def now() -> datetime:
    """The current time, timezone-aware in UTC."""
    return datetime.now(UTC)


def in_seconds(seconds: int) -> datetime:
    """``now() + seconds``."""
    return now() + timedelta(seconds=seconds)


@lru_cache(maxsize=1024)
def to_iso(value: datetime) -> str:
    """``2026-12-21T12:57:46.596Z``: UTC, milliseconds, ``Z``, as JavaScript writes dates.
    A database session's expiry is written out on every check of it, so the last answers
    are kept."""
    utc = value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
    return utc.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@lru_cache(maxsize=1024)
def timestamp_to_iso(seconds: float) -> str:
    """``to_iso`` of a Unix time. A session's expiry is written out on every check of it,
    so the last answers are kept."""
    return to_iso(datetime.fromtimestamp(seconds, UTC))


def is_date(value: object) -> TypeGuard[str]:
    """Whether ``value`` is a string holding an ISO 8601 date (or date-time).

    Adapters use it to turn date strings read back from JSON stores into ``datetime``.
    """
    if not isinstance(value, str) or not _ISO_DATE.match(value):
        return False
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True
