"""Throttling of sign-in attempts: the policy (``Throttle``, ``Limit``) and where the counts
live (the adapter's shared counters, or a bounded ``LocalCounter`` in this process). The
checks each sign-in path makes are in ``authui.actions.throttling``.

Every sign-in path is counted per client (IP address) and, where there is one, per
account, in fixed windows. An attempt over a limit raises ``TooManyAttempts``: 429 with
``Retry-After`` (the seconds until the window ends) and the sign-in page saying how long to
wait. The counts go through the adapter's ``increment_rate_limit``, so that every process
of the app sees the same numbers; without it (or without an adapter) they stay in this
process, in a ``LocalCounter`` of bounded size.

Keys hold SHA-256 digests, never an identifier or an address:
``throttle:<provider id>:<account|client|address>:<sha256 hex>``.

Credentials count *failed* attempts, without reading a count back (adapters only
increment): each attempt counts on ``<key>:a`` (attempts) and on ``<key>:m`` (marks), and a
success counts once more on ``<key>:m``, so the failures are ``2a - m``. An attempt
counts as failed from its start, so a guess over the limit is refused before the password
is checked. A successful sign-in also resets the account's count (not the client's) when
the counter can reset.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import Protocol

from authui.adapters.base import AdapterCalls, RateLimitWindow

LOCAL_MAX_KEYS = 10_000
"""How many keys a ``LocalCounter`` keeps at most (a few MB at worst)."""
NEEDED_FOR = "throttling sign-in attempts"


@dataclass(frozen=True, slots=True)
class Limit:
    """At most ``count`` attempts per fixed window of ``window`` seconds.

    Raises:
        ValueError: ``count`` or ``window`` is not a positive integer.
    """

    count: int
    window: int

    def __post_init__(self) -> None:
        for name in ("count", "window"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"Limit.{name} must be a positive integer, not {value!r}")

    def __str__(self) -> str:
        return f"{self.count}/{self.window}s"


@dataclass(frozen=True, slots=True, kw_only=True)
class Throttle:
    """Limits on sign-in attempts (``AuthConfig.throttle``); ``None`` turns one off.

    The defaults are django-allauth's (``ACCOUNT_RATE_LIMITS``) for the same paths. Email
    sign-in has its limits on the provider (``EmailProvider.limits``), as each provider
    sends its own mail.

    Attributes:
        credentials_per_account: Failed credentials sign-ins per account (the first
            field of the provider that is not a password, lower-cased): 5 per 5 minutes,
            allauth's ``login_failed`` ``5/5m/key``. A successful sign-in starts it again.
        credentials_per_client: Failed credentials sign-ins per client, whatever the
            account: 10 per minute, allauth's ``login_failed`` ``10/m/ip``.
        passkey_per_client: Passkey answers per client: 30 per minute, allauth's
            ``login`` ``30/m/ip``.
        oauth_per_client: OAuth and OIDC callbacks per client: 30 per minute, allauth's
            ``login`` ``30/m/ip``.
        passkey_options_per_client: Passkey ceremonies started per client (each stores
            a challenge until it is answered or expires): 300 per minute. Generous, as
            every load of a sign-in page with passkey autofill starts one and many users
            may share an address; it bounds a flood, not a user.
    """

    credentials_per_account: Limit | None = Limit(5, 5 * 60)
    credentials_per_client: Limit | None = Limit(10, 60)
    passkey_per_client: Limit | None = Limit(30, 60)
    oauth_per_client: Limit | None = Limit(30, 60)
    passkey_options_per_client: Limit | None = Limit(300, 60)


# -- where the counts live ----------------------------------------------------------------


class Counter(Protocol):
    """Fixed-window counts, shared by every process or kept in this one."""

    @property
    def can_reset(self) -> bool:
        """Whether ``reset`` clears counts (else it does nothing)."""

    async def increment(self, key: str, window_seconds: int) -> int:
        """Count one event for ``key``; its count in the current window."""

    async def reset(self, key: str) -> None:
        """Forget the counts of ``key``."""


class LocalCounter:
    """Fixed-window counts in this process, for configurations whose adapter has no
    ``increment_rate_limit`` (or that have no adapter).

    Its size is bounded: keys whose windows have all ended are dropped from the oldest
    end, and beyond ``max_keys`` the least recently counted keys go first.
    """

    can_reset = True

    def __init__(self, max_keys: int | None = None) -> None:
        self._max_keys = max_keys
        # key -> {window_seconds: (window number, count)}, least recently counted first
        self._counts: OrderedDict[str, dict[int, tuple[int, int]]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._counts)

    async def increment(self, key: str, window_seconds: int) -> int:
        window = RateLimitWindow.current(window_seconds)
        windows = self._counts.pop(key, {})
        number, count = windows.get(window_seconds, (window.number, 0))
        count = count + 1 if number == window.number else 1
        windows[window_seconds] = (window.number, count)
        self._counts[key] = windows
        self._forget(window.now)
        return count

    async def reset(self, key: str) -> None:
        self._counts.pop(key, None)

    def _forget(self, now: float) -> None:
        while self._counts:
            windows = next(iter(self._counts.values()))
            if any((number + 1) * seconds > now for seconds, (number, _) in windows.items()):
                break
            self._counts.popitem(last=False)
        while len(self._counts) > (self._max_keys or LOCAL_MAX_KEYS):
            self._counts.popitem(last=False)


class SharedCounter:
    """The adapter's counts (``increment_rate_limit``, and ``reset_rate_limit`` when it
    has it), which every process of the app shares."""

    def __init__(self, adapter: AdapterCalls) -> None:
        self._adapter = adapter

    @property
    def can_reset(self) -> bool:
        return self._adapter.has("reset_rate_limit")

    async def increment(self, key: str, window_seconds: int) -> int:
        count = await self._adapter.call("increment_rate_limit", NEEDED_FOR, key, window_seconds)
        return int(count)

    async def reset(self, key: str) -> None:
        if self.can_reset:
            await self._adapter.call("reset_rate_limit", NEEDED_FOR, key)


def digest(value: str) -> str:
    """What keys and logs hold instead of an identifier or address: its SHA-256."""
    return hashlib.sha256(value.encode()).hexdigest()
