"""``SpentKeys``: keys used once in this process, each kept until it expires.

The fallback of single-use challenges for an adapter without ``use_challenge`` (or a
database without its table): a passkey ceremony's answer is refused when this process saw
its challenge used already. Other processes do not know of it, so a replay sent to another
process is refused only by the challenge cookie being spent in the browser that used it.
"""

from __future__ import annotations

import heapq
import time

#: The most keys kept; beyond it the soonest to expire are forgotten first.
MAX_KEYS = 100_000


class SpentKeys:
    """Keys used once, in this process, until their expiry (seconds since the epoch)."""

    def __init__(self, max_keys: int = MAX_KEYS) -> None:
        self._max_keys = max_keys
        self._expiry: dict[str, float] = {}
        self._queue: list[tuple[float, str]] = []  # (expiry, key), soonest first

    def __len__(self) -> int:
        return len(self._expiry)

    def spend(self, key: str, expires: float) -> bool:
        """Mark ``key`` used until ``expires``; ``False`` if it was used already and has
        not expired."""
        now = time.time()
        self._forget(now)
        if self._expiry.get(key, 0.0) > now:
            return False
        self._expiry[key] = expires
        heapq.heappush(self._queue, (expires, key))
        return True

    def _forget(self, now: float) -> None:
        while self._queue and (self._queue[0][0] <= now or len(self._queue) > self._max_keys):
            expires, key = heapq.heappop(self._queue)
            if self._expiry.get(key) == expires:
                del self._expiry[key]
