"""``SQLExtensions``: the SQL adapter's methods beyond Auth.js's interface, shared rate-limit
counts, single-use WebAuthn challenges and leases, each in a table of authui's own."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import delete

from authui.adapters.base import Challenge, RateLimitWindow
from authui.adapters.sql.schema import MAX_CHALLENGE_KEY, MAX_LEASE_KEY, MAX_RATE_LIMIT_KEY
from authui.adapters.sql.statements import (
    count_event,
    delete_returning,
    insert_unless_taken,
    take_lease,
)
from authui.adapters.sql.store import SQLStore
from authui.adapters.token_refresh import lease_seconds, new_lease_holder


class SQLExtensions(SQLStore):
    """``increment_rate_limit``, ``reset_rate_limit``, ``create_challenge``,
    ``use_challenge``, ``claim_lease`` and ``release_lease`` over the ``rate_limits``,
    ``authui_challenges`` and ``authui_leases`` tables.

    Expired rows are deleted after a write (before a claim, for leases), at most once a
    minute per table and adapter (``SQLStore._sweep``): the tables hold what is current
    and little more.
    """

    # -- rate limits ---------------------------------------------------------------------

    async def increment_rate_limit(self, key: str, window_seconds: int) -> int:
        """Count one event for ``key`` in the current window of ``window_seconds`` and
        return the window's count, this one included.

        One atomic upsert of the ``rate_limits`` row of ``(key, window_seconds, window)``
        (see ``authui.adapters.sql.statements.count_event``).

        Raises:
            ValueError: ``window_seconds`` is not a positive integer, or ``key`` is longer
                than 255 characters.
        """
        window = RateLimitWindow.current(window_seconds)
        _check_length("rate limit keys", key, MAX_RATE_LIMIT_KEY)
        rate_limits = self.tables.rate_limits
        async with self._transaction() as conn:
            count = await count_event(conn, rate_limits, key, window)
        await self._sweep(rate_limits, datetime.fromtimestamp(window.now, UTC))
        return count

    async def reset_rate_limit(self, key: str) -> None:
        """Forget every count of ``key``, in windows of any length: one ``DELETE``."""
        rate_limits = self.tables.rate_limits
        async with self._transaction() as conn:
            await conn.execute(delete(rate_limits).where(rate_limits.c.key == key))

    # -- single-use challenges -----------------------------------------------------------

    async def create_challenge(self, challenge: Challenge) -> None:
        """Store ``challenge`` unless its key is stored already.

        Raises:
            ValueError: The key is longer than 128 characters.
        """
        _check_length("challenge keys", challenge.key, MAX_CHALLENGE_KEY)
        challenges = self.tables.challenges
        values = {"key": challenge.key, "expires": challenge.expires}
        async with self._transaction() as conn:
            await insert_unless_taken(conn, challenges, values)
        await self._sweep(challenges, datetime.now(UTC))

    async def use_challenge(self, key: str) -> Challenge | None:
        """Delete the challenge stored under ``key`` and return it, or ``None``: of
        concurrent calls, in any number of processes, exactly one gets it."""
        challenges = self.tables.challenges
        async with self._transaction() as conn:
            row = await delete_returning(conn, challenges, challenges.c.key == key)
        return None if row is None else Challenge(row.key, row.expires)

    # -- leases --------------------------------------------------------------------------

    async def claim_lease(self, key: str, seconds: int) -> str | None:
        """Take the lease ``key`` for ``seconds`` if nobody holds it or its holder's time
        has run out, and return the new holder's token; else ``None``: of concurrent
        calls, in any number of processes, exactly one takes a free lease.

        One upsert of the ``authui_leases`` row of ``key`` (see
        ``authui.adapters.sql.statements.take_lease``). Leases run by the app's clock
        (``datetime.now``), as every process of the app should agree on it. Before the
        claim, at most once a minute, the rows of leases that have run out are deleted.

        Raises:
            ValueError: ``seconds`` is not a positive integer, or ``key`` is longer than
                255 characters.
        """
        lease_seconds(seconds)
        _check_length("lease keys", key, MAX_LEASE_KEY)
        leases, holder = self.tables.leases, new_lease_holder()
        await self._sweep(leases, datetime.now(UTC))  # first: its failure takes no lease
        now = datetime.now(UTC)
        async with self._transaction() as conn:
            taken = await take_lease(
                conn, leases, key, holder, now, now + timedelta(seconds=seconds)
            )
        return holder if taken else None

    async def release_lease(self, key: str, holder: str) -> None:
        """End the lease ``key`` if ``holder`` still holds it: one ``DELETE … WHERE key =
        :key AND holder = :holder`` (a lease claimed since by another has its holder)."""
        leases = self.tables.leases
        where = (leases.c.key == key) & (leases.c.holder == holder)
        async with self._transaction() as conn:
            await conn.execute(delete(leases).where(where))


def _check_length(what: str, key: str, most: int) -> None:
    if len(key) > most:
        raise ValueError(f"{what} have at most {most} characters")
