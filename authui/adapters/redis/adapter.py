"""``RedisAdapter``: Auth.js's adapter methods over Redis, gathered from ``RedisSessions``
(with ``RedisUsers``: users and accounts), ``RedisAuthenticators`` and authui's own
``RedisAccountCenter``, ``RedisFactors`` and ``RedisExtensions``; the key names come from
``RedisKeys``, the client and transactions from ``RedisStore``."""

from __future__ import annotations

from authui.adapters.redis.account import RedisAccountCenter
from authui.adapters.redis.authenticators import RedisAuthenticators
from authui.adapters.redis.extensions import RedisExtensions
from authui.adapters.redis.factors import RedisFactors
from authui.adapters.redis.sessions import RedisSessions


class RedisAdapter(
    RedisSessions, RedisAuthenticators, RedisAccountCenter, RedisFactors, RedisExtensions
):
    """Every adapter method, and authui's extensions (rate limits, single-use challenges,
    account updates, leases, deleting a user's sessions, the account center, passwords and
    multi-factor authentication), over Redis (``redis.asyncio``).

    Args:
        redis: A ``redis://``/``rediss://``/``unix://`` URL, or an existing
            ``redis.asyncio.Redis`` client (with or without ``decode_responses``).
        prefix: Put in front of every key, so several apps (or test runs) can share one
            database.
    """
