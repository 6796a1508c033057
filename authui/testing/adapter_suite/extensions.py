"""The suite's tests of authui's optional extensions: shared rate-limit counts and
single-use WebAuthn challenges."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from authui.adapters.base import Adapter, Challenge
from authui.testing.adapter_suite.common import (
    DAY,
    HOUR,
    ConformanceBase,
    absent,
    expect,
    in_one_window,
    optional,
    rate_limiter,
    same,
)


class ExtensionConformance(ConformanceBase):
    """``increment_rate_limit`` and ``reset_rate_limit``; ``create_challenge`` and
    ``use_challenge``. Each test is skipped for an adapter without its methods."""

    # -- rate limits: authui's optional increment_rate_limit ------------------------------

    async def test_increment_rate_limit_counts_up(self, adapter: Adapter) -> None:
        increment = rate_limiter(adapter)

        async def three(key: str) -> list[int]:
            return [await increment(key, DAY) for _ in range(3)]

        _, _, counts = await in_one_window(DAY, three)
        expect(
            counts == [1, 2, 3],
            f"three increment_rate_limit calls in a row returned {counts}; expected [1, 2, 3]",
        )

    async def test_rate_limit_keys_and_window_lengths_are_independent(
        self, adapter: Adapter
    ) -> None:
        increment = rate_limiter(adapter)

        async def interleaved(key: str) -> list[int]:
            calls = [
                (key, DAY),
                (key.upper(), DAY),  # keys differ in case only
                (key, HOUR),  # the same key, counted in windows of another length
                (key, DAY),
                (f"{key}:2", DAY),
                (key, HOUR),
                (key, DAY),
            ]
            return [await increment(k, seconds) for k, seconds in calls]

        # Every day's end is an hour's end: one hour-long window holds both counts.
        _, _, counts = await in_one_window(HOUR, interleaved)
        expect(
            counts == [1, 1, 1, 2, 1, 2, 3],
            f"increment_rate_limit (key, day), (KEY, day), (key, hour), (key, day), "
            f"(key:2, day), (key, hour), (key, day) returned {counts}; expected "
            "[1, 1, 1, 2, 1, 2, 3]: every key and window length counts on its own",
        )

    async def test_increment_rate_limit_is_atomic(self, adapter: Adapter) -> None:
        increment = rate_limiter(adapter)
        callers = self.concurrency

        async def race(key: str) -> list[int]:
            return list(await asyncio.gather(*(increment(key, DAY) for _ in range(callers))))

        _, _, counts = await in_one_window(DAY, race)
        expect(
            sorted(counts) == list(range(1, callers + 1)),
            f"{callers} concurrent increment_rate_limit calls returned {sorted(counts)}; "
            f"expected 1 to {callers}, each once",
        )

    async def test_rate_limit_window_rolls_over(self, adapter: Adapter) -> None:
        """A new window starts from 1; with 1-second windows the next one is at most a
        second away."""
        increment = rate_limiter(adapter)

        async def two(key: str) -> list[int]:
            return [await increment(key, 1) for _ in range(2)]

        key, window, counts = await in_one_window(1, two)
        expect(counts == [1, 2], f"increment_rate_limit returned {counts}; expected [1, 2]")
        await asyncio.sleep(window + 1 - time.time() + 0.02)  # into the next second
        count = await increment(key, 1)
        expect(
            count == 1,
            f"increment_rate_limit in the next 1-second window returned {count}; expected 1",
        )

    async def test_reset_rate_limit_starts_every_count_of_the_key_again(
        self, adapter: Adapter
    ) -> None:
        """After ``reset_rate_limit(key)`` (a sign-in succeeded) ``key`` counts from 1 in
        windows of every length; other keys count on."""
        increment = rate_limiter(adapter)
        reset = optional(adapter, "reset_rate_limit")

        async def counted_reset_counted(key: str) -> list[int]:
            other = f"{key}:other"
            before = [await increment(k, s) for k, s in [(key, DAY), (key, DAY), (key, HOUR)]]
            before.append(await increment(other, DAY))
            await reset(key)
            after = [await increment(k, s) for k, s in [(key, DAY), (key, HOUR), (other, DAY)]]
            return before + after

        _, _, counts = await in_one_window(HOUR, counted_reset_counted)
        expect(
            counts == [1, 2, 1, 1, 1, 1, 2],
            f"increment_rate_limit (key, day) twice, (key, hour), (other, day), then "
            f"reset_rate_limit(key), then (key, day), (key, hour), (other, day) returned "
            f"{counts}; expected [1, 2, 1, 1, 1, 1, 2]: the reset key starts again from 1 "
            "in every window length, other keys count on",
        )

    async def test_reset_rate_limit_of_an_unknown_key(self, adapter: Adapter) -> None:
        increment = rate_limiter(adapter)
        reset = optional(adapter, "reset_rate_limit")

        async def reset_first(key: str) -> list[int]:
            await reset(key)
            return [await increment(key, DAY)]

        _, _, counts = await in_one_window(DAY, reset_first)
        expect(counts == [1], f"increment_rate_limit after a reset returned {counts}; not [1]")

    # -- single-use challenges: authui's optional create_challenge and use_challenge -------

    async def test_use_challenge_returns_it_once(self, adapter: Adapter) -> None:
        create, use = _challenge_methods(adapter)
        challenge = _new_challenge()
        await create(challenge)
        same(await use(challenge.key), challenge, "use_challenge")
        absent(await use(challenge.key), "use_challenge of a used challenge")

    async def test_use_challenge_unknown_key_is_none(self, adapter: Adapter) -> None:
        _, use = _challenge_methods(adapter)
        absent(await use(_new_challenge().key), "use_challenge of a key never stored")

    async def test_challenges_are_kept_by_key(self, adapter: Adapter) -> None:
        create, use = _challenge_methods(adapter)
        first, second = _new_challenge(), _new_challenge(minutes=10)
        await create(first)
        await create(second)
        same(await use(second.key), second, "use_challenge with two challenges stored")
        same(await use(first.key), first, "use_challenge of the other challenge")

    async def test_creating_a_challenge_twice_keeps_one(self, adapter: Adapter) -> None:
        create, use = _challenge_methods(adapter)
        challenge = _new_challenge()
        await create(challenge)
        try:
            await create(challenge)  # a retry
        except Exception as exc:
            raise AssertionError(
                f"create_challenge of a key stored already raised {exc!r}; expected no error"
            ) from exc
        same(await use(challenge.key), challenge, "use_challenge of a challenge stored twice")
        absent(await use(challenge.key), "a second use_challenge of a challenge stored twice")

    async def test_an_expired_challenge_is_none_or_itself(self, adapter: Adapter) -> None:
        """A challenge past its ``expires`` may be gone, or returned for the caller to
        refuse; either way it is not another one and it is gone after use."""
        create, use = _challenge_methods(adapter)
        expired = _new_challenge(minutes=-1)
        await create(expired)
        found = await use(expired.key)
        if found is not None:
            same(found, expired, "use_challenge of an expired challenge")
        absent(await use(expired.key), "use_challenge of a used expired challenge")

    async def test_use_challenge_is_atomic(self, adapter: Adapter) -> None:
        create, use = _challenge_methods(adapter)
        challenge = _new_challenge()
        await create(challenge)
        results = await asyncio.gather(*(use(challenge.key) for _ in range(self.concurrency)))
        winners = [result for result in results if result is not None]
        expect(
            len(winners) == 1,
            f"{len(winners)} of {self.concurrency} concurrent use_challenge calls got the "
            "challenge; expected exactly 1",
        )
        same(winners[0], challenge, "use_challenge (the one concurrent winner)")


def _challenge_methods(
    adapter: object,
) -> tuple[Callable[[Challenge], Awaitable[None]], Callable[[str], Awaitable[Challenge | None]]]:
    """The adapter's ``create_challenge`` and ``use_challenge``; the test is skipped for an
    adapter without them."""
    __tracebackhide__ = True
    return optional(adapter, "create_challenge"), optional(adapter, "use_challenge")


def _new_challenge(*, minutes: float = 5) -> Challenge:
    """A challenge as authui stores one: the hex SHA-256 of 32 random bytes as its key."""
    key = hashlib.sha256(secrets.token_bytes(32)).hexdigest()
    expires = datetime.now(UTC) + timedelta(minutes=minutes, microseconds=secrets.randbelow(999))
    return Challenge(key, expires)
