"""``DriverLane``: a few driver connections kept apart for the session check.

The session check runs one statement on the driver's own connection
(``authui.adapters.sql.session_reads``). Checking a connection out of SQLAlchemy's pool
for it costs two switches between greenlets, and those cost more the deeper the stack
they leave: in a served request, about 70 µs of CPU per check, more than the read itself.
asyncpg's own pool shields every release in a task of its own. So the adapter keeps a few
connections for this one statement (as many as reads it runs at once,
``authui.adapters.read_batches.ROUND_TRIPS``), in a queue:

- A connection is made by the engine's pool and detached from it (``detach()``: the
  engine's pool forgets it and makes another when it needs one), so the engine's connect
  arguments (server settings, TLS, time limits) and its ``connect`` event listeners apply.
- The queue holds idle connections and empty slots (``None``): taking a slot means making
  a connection; a connection that failed is closed and its slot goes back. So waiters are
  never stranded by a broken connection, and there are never more than the lane's size.
- A connection older than ``RECYCLE_SECONDS`` is closed on its return (like the engine's
  ``pool_recycle``), before a server's or a proxy's idle timeout ends it.
- A read that fails on a connection that had served before is tried once more on a new
  one: the server may have closed it while it sat idle. The statement only reads, so a
  second try changes nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.util import greenlet_spawn

T = TypeVar("T")

RECYCLE_SECONDS = 1800.0
"""A lane connection older than this is closed when it is returned, and made anew."""


@dataclass(frozen=True, slots=True)
class Driver:
    """What the lane needs to know of a driver's connections."""

    prepare: Callable[[Any], Awaitable[None]]
    """Run once on a new connection (MariaDB: autocommit, so a read leaves no snapshot)."""
    is_closed: Callable[[Any], bool]
    close: Callable[[Any], None]
    """Close at once, without a round trip."""


@dataclass(slots=True)
class _Kept:
    connection: Any
    made_at: float


class DriverLane:
    """Up to ``size`` connections of ``engine``'s database, for one statement; a caller
    beyond ``size`` at once waits for one."""

    def __init__(self, engine: AsyncEngine, driver: Driver, size: int) -> None:
        self._engine_pool = engine.sync_engine.pool
        self._driver = driver
        self._size = size
        self._queue: asyncio.LifoQueue[_Kept | None] | None = None  # made in the first call's loop

    async def run(self, use: Callable[[Any], Awaitable[T]]) -> T:
        """``await use(connection)`` on a lane connection, with one more try on a new
        connection when a reused one fails."""
        kept = await self._take()
        fresh = kept is None
        if kept is None:
            kept = await self._make()
        try:
            result = await use(kept.connection)
        except BaseException:
            self._discard(kept)
            if fresh:
                raise
            kept = await self._make_in_a_slot()
            try:
                result = await use(kept.connection)
            except BaseException:
                self._discard(kept)
                raise
        self._give_back(kept)
        return result

    async def _take(self) -> _Kept | None:
        """An idle connection, or ``None`` for an empty slot (a connection to make)."""
        if self._queue is None:
            self._queue = asyncio.LifoQueue()
            for _ in range(self._size):
                self._queue.put_nowait(None)
        queue = self._queue
        kept = queue.get_nowait() if not queue.empty() else await queue.get()
        if kept is not None and self._driver.is_closed(kept.connection):
            self._driver.close(kept.connection)
            return None
        return kept

    async def _make_in_a_slot(self) -> _Kept:
        kept = await self._take()
        return kept if kept is not None else await self._make()

    async def _make(self) -> _Kept:
        """A new connection for a slot just taken; the slot goes back if it fails."""
        try:
            connection = await greenlet_spawn(self._engine_pool.connect)
            driver_connection = connection.driver_connection
            await greenlet_spawn(connection.detach)
            await self._driver.prepare(driver_connection)
        except BaseException:
            self._free_slot()
            raise
        return _Kept(driver_connection, time.monotonic())

    def _give_back(self, kept: _Kept) -> None:
        if time.monotonic() - kept.made_at > RECYCLE_SECONDS:
            self._discard(kept)
        elif self._queue is not None:
            self._queue.put_nowait(kept)

    def _discard(self, kept: _Kept) -> None:
        self._driver.close(kept.connection)
        self._free_slot()

    def _free_slot(self) -> None:
        if self._queue is not None:
            self._queue.put_nowait(None)

    async def aclose(self) -> None:
        """Close the idle connections (at shutdown, when no check is running)."""
        queue, self._queue = self._queue, None
        while queue is not None and not queue.empty():
            kept = queue.get_nowait()
            if kept is not None:
                self._driver.close(kept.connection)
