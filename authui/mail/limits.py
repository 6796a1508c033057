"""How many sign-in emails an address or a client may ask for in a time window.

Counting goes through the adapter's ``increment_rate_limit`` when it has one, so that
every process of the app shares the counts (the SQL adapter keeps them in a table, the
Redis adapter in expiring keys); otherwise through a counter in this process only (one per
configuration).
"""

from __future__ import annotations

import hashlib
import weakref
from collections import defaultdict
from dataclasses import dataclass

from authui.adapters.base import AdapterCalls, RateLimitWindow


@dataclass(frozen=True, slots=True, kw_only=True)
class SendLimits:
    """Limits on sign-in emails; ``None`` turns one off.

    Attributes:
        per_address: Links one email address may be sent per window.
        per_client: Links one client (IP address) may ask for per window, whatever the
            addresses. The client address comes from the server; ``X-Forwarded-For`` is
            read only with ``trust_host`` (its last entry: the one your proxy added).
        window: The window's length in seconds.
    """

    per_address: int | None = 5
    per_client: int | None = 20
    window: int = 60 * 60


class LocalCounter:
    """Fixed-window counts in this process, for adapters without ``increment_rate_limit``."""

    def __init__(self) -> None:
        self._counts: dict[tuple[str, int, int], int] = defaultdict(int)

    def increment(self, key: str, window: int) -> int:
        """Count one event for ``key``; the count in the current window."""
        current = RateLimitWindow.current(window).number
        for stale in [k for k in self._counts if k[0] == key and k[2] != current]:
            del self._counts[stale]
        self._counts[(key, window, current)] += 1
        return self._counts[(key, window, current)]


_local: weakref.WeakKeyDictionary[AdapterCalls, LocalCounter] = weakref.WeakKeyDictionary()


async def over_limit(
    adapter: AdapterCalls,
    limits: SendLimits,
    *,
    scope: str,
    address: str,
    client: str | None,
) -> str | None:
    """Count one request; which limit it passes (``"address"``, ``"client"``), or ``None``.

    The address is counted by its SHA-256, so the counter store holds no addresses."""
    checks = [("address", hashlib.sha256(address.encode()).hexdigest(), limits.per_address)]
    if client:
        checks.append(("client", client, limits.per_client))
    for name, value, limit in checks:
        if limit is None:
            continue
        key = f"{scope}:{name}:{value}"
        if adapter.has("increment_rate_limit"):
            count: int = await adapter.call(
                "increment_rate_limit", "email limits", key, limits.window
            )
        else:
            count = _local.setdefault(adapter, LocalCounter()).increment(key, limits.window)
        if count > limit:
            return name
    return None
