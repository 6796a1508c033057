"""``ReadBatches``: session checks that arrive together are read in one round trip.

Under load, many requests wait for their session row at once. Each round trip to the
database costs the server more CPU than the row it brings (asyncpg and redis-py spend
about 35 µs a statement, whatever it reads), so reads that are waiting when a round trip
starts go in it together: one query for every token (``… WHERE token = ANY(…)``), one
script for every key.

Each read is still answered by a round trip that started after it was asked for, so it
sees the store as it is then: nothing is kept from one read to the next, and a session
deleted by any process is gone for the next request. A read waits at most for the round
trip on its way (``ROUND_TRIPS`` of them run at once) and then its own.

The reader that starts a round trip runs it; when it is done, the first of those that
waited meanwhile (if any) starts the next one, for all of them. No task is started, and a
reader cancelled mid-way hands its batch on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

MAX_BATCH = 64
"""The most keys one round trip reads."""
ROUND_TRIPS = 1
"""Round trips on their way at once, per store and process. Measured under load (wrk, 32
connections, PostgreSQL and Redis on the same machine), one gave the least CPU per check
(two: about 10 % more), and a check waits for at most the round trip on its way, then
its own."""
GATHER_TURNS = 2
"""Turns of the event loop that the lead of a read that does not wait for a network
(SQLite's) lets pass before it reads, so that the checks arriving meanwhile join it. One
turn gathers only the requests already under way; the second lets those whose bytes the
loop read in between join too: under load on hypercorn (whose requests take several turns
to reach the app) SQLite's check cost about 8 µs less with two, the same on uvicorn."""


class _Lead:
    """What a waiting reader is told when it is to start the next round trip."""


_LEAD = _Lead()


class ReadBatches(Generic[K, V]):
    """Reads of ``read_many(keys) -> {key: value}`` (a key without a value: none), in
    batches of up to ``MAX_BATCH`` keys, ``limit`` round trips at a time."""

    def __init__(
        self,
        read_many: Callable[[list[K]], Awaitable[dict[K, V]]],
        limit: int = ROUND_TRIPS,
        *,
        gather: int = 0,
    ) -> None:
        self._read_many = read_many
        self._limit = limit
        self._gather = gather
        self._running = 0
        self._waiting: list[tuple[K, asyncio.Future[V | _Lead | None]]] = []

    async def read(self, key: K) -> V | None:
        """The value of ``key``, read by a round trip that starts after this call."""
        if self._running >= self._limit:
            future: asyncio.Future[V | _Lead | None] = asyncio.get_running_loop().create_future()
            self._waiting.append((key, future))
            try:
                answer = await future
            except asyncio.CancelledError:
                self._forget(future)
                raise
            if not isinstance(answer, _Lead):
                return answer
        else:
            self._running += 1
        return await self._lead(key)

    async def _lead(self, key: K) -> V | None:
        """Run one round trip for ``key`` and up to ``MAX_BATCH - 1`` waiting keys, then
        hand the lead to the next waiting reader (or give the slot back). First let the
        event loop turn ``gather`` times, so that the readers that arrive meanwhile join
        (for a ``read_many`` that does not wait for a network: ``GATHER_TURNS``)."""
        for _ in range(self._gather):
            try:
                await asyncio.sleep(0)
            except asyncio.CancelledError:
                self._hand_on()
                raise
        batch, self._waiting = self._waiting[: MAX_BATCH - 1], self._waiting[MAX_BATCH - 1 :]
        try:
            found = await self._read_many(list(dict.fromkeys([key, *(k for k, _ in batch)])))
        except BaseException as exc:
            if isinstance(exc, asyncio.CancelledError):
                self._waiting[:0] = batch  # theirs is not read yet: the next lead reads it
            else:
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
            self._hand_on()
            raise
        for k, future in batch:
            if not future.done():
                future.set_result(found.get(k))
        self._hand_on()
        return found.get(key)

    def _hand_on(self) -> None:
        while self._waiting:
            _, future = self._waiting.pop(0)
            if not future.done():
                future.set_result(_LEAD)
                return
        self._running -= 1

    def _forget(self, future: asyncio.Future[V | _Lead | None]) -> None:
        """A waiting reader was cancelled: drop its entry; if it had just been made the
        lead, hand the lead on."""
        self._waiting = [(k, f) for k, f in self._waiting if f is not future]
        if future.done() and not future.cancelled() and future.result() is _LEAD:
            self._hand_on()
