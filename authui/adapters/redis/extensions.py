"""``RedisExtensions``: the Redis adapter's methods beyond Auth.js's interface, shared
rate-limit counts, single-use WebAuthn challenges and leases."""

from __future__ import annotations

import functools
import math

from redis.commands.core import AsyncScript

from authui.adapters.base import Challenge, RateLimitWindow
from authui.adapters.json_records import dump_record
from authui.adapters.redis.store import RedisStore, epoch_ms, load
from authui.adapters.token_refresh import lease_seconds, new_lease_holder

# KEYS[1]: the hash of one key's counts; ARGV: the window's length in seconds, its number,
# and the milliseconds until it ends. Per window length the hash keeps the current window's
# number and count: a new window replaces the last one, so it has two fields per length.
# It expires when the longest of its windows ends (NX sets a first expiry, GT extends it).
_COUNT_EVENT = """
local window, count = 'window:' .. ARGV[1], 'count:' .. ARGV[1]
local counted = 1
if redis.call('HGET', KEYS[1], window) == ARGV[2] then
    counted = redis.call('HINCRBY', KEYS[1], count, 1)
else
    redis.call('HSET', KEYS[1], window, ARGV[2], count, 1)
end
redis.call('PEXPIRE', KEYS[1], ARGV[3], 'NX')
redis.call('PEXPIRE', KEYS[1], ARGV[3], 'GT')
return counted
"""

# KEYS[1]: a lease's key; ARGV[1]: a holder's token. Deletes the lease if that holder holds
# it (compare and delete, one step): 1 if it did, else 0.
_RELEASE_LEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
"""


class RedisExtensions(RedisStore):
    """``increment_rate_limit``, ``reset_rate_limit``, ``create_challenge``,
    ``use_challenge``, ``claim_lease`` and ``release_lease``, each one atomic command (or
    script) on one key."""

    def rate_limit_key(self, key: str) -> str:
        """``<prefix>rate-limits:<key>``: a hash of ``key``'s counts, per window length
        ``<seconds>`` the current window's number (``window:<seconds>``) and count
        (``count:<seconds>``); it expires when the longest of those windows ends. ``<key>``
        comes last, so it needs no escaping."""
        return f"{self._prefix}rate-limits:{key}"

    def challenge_key(self, key: str) -> str:
        """``<prefix>challenge:<key>``: the challenge's JSON, expiring at ``expires``."""
        return f"{self._prefix}challenge:{key}"

    def lease_key(self, key: str) -> str:
        """``<prefix>lease:<key>``: the holder's token, expiring when the lease runs out.
        ``<key>`` comes last, so it needs no escaping."""
        return f"{self._prefix}lease:{key}"

    async def increment_rate_limit(self, key: str, window_seconds: int) -> int:
        """Count one event for ``key`` in the current window of ``window_seconds`` and
        return the window's count, this one included: one Lua script on ``key``'s hash,
        which starts the count again at 1 in a new window and keeps the hash until the
        longest window it counts ends (the time left, so that Redis's clock need not agree
        with the app's)."""
        window = RateLimitWindow.current(window_seconds)
        time_left = math.ceil((window.ends_at - window.now) * 1000)
        args = [window_seconds, window.number, time_left]
        return int(await self._count_event(keys=[self.rate_limit_key(key)], args=args))

    async def reset_rate_limit(self, key: str) -> None:
        """Forget every count of ``key``, in windows of any length: one ``DEL``."""
        await self._redis.delete(self.rate_limit_key(key))

    async def create_challenge(self, challenge: Challenge) -> None:
        """Store ``challenge`` to expire at its ``expires`` (``SET … PXAT … NX``: a key
        stored already keeps its challenge)."""
        await self._redis.set(
            self.challenge_key(challenge.key),
            dump_record(challenge),
            pxat=epoch_ms(challenge.expires),
            nx=True,
        )

    async def use_challenge(self, key: str) -> Challenge | None:
        """Return the challenge stored under ``key`` and delete it in one step
        (``GETDEL``): of concurrent calls, in any number of processes, exactly one gets
        it."""
        return load(Challenge, await self._redis.getdel(self.challenge_key(key)))

    async def claim_lease(self, key: str, seconds: int) -> str | None:
        """Take the lease ``key`` for ``seconds`` and return the new holder's token, or
        ``None`` while another holds it: one ``SET … NX PX``, which only a key that is not
        there takes. Redis drops the key when the lease runs out (by Redis's clock)."""
        holder = new_lease_holder()
        taken = await self._redis.set(
            self.lease_key(key), holder, nx=True, px=lease_seconds(seconds) * 1000
        )
        return holder if taken else None

    async def release_lease(self, key: str, holder: str) -> None:
        """End the lease ``key`` if ``holder`` still holds it: a Lua script that compares
        and deletes in one step, so that a lease another has claimed since stays."""
        await self._release_lease(keys=[self.lease_key(key)], args=[holder])

    @functools.cached_property
    def _count_event(self) -> AsyncScript:
        return self._redis.register_script(_COUNT_EVENT)

    @functools.cached_property
    def _release_lease(self) -> AsyncScript:
        return self._redis.register_script(_RELEASE_LEASE)
