"""Writes that a request starts and does not wait for.

A database session check whose session is due to have its expiry pushed out (once per
``session.update_age``) answers at once and leaves the ``UPDATE`` to a task of its own:
the answer does not depend on it (the cookie carries the new expiry either way), and a
write that fails is tried again by the next check, since the stored expiry is still due.
One write per key is pending at a time, so a burst of requests with one session makes one
``UPDATE``. ``authui.options.aclose`` (which integrations call when the app stops) waits
for what is pending.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from authui.errors import AuthError
from authui.logger import Logger


class PendingWrites:
    """The writes this configuration's requests left running, by key."""

    def __init__(self) -> None:
        self._tasks: dict[str, asyncio.Task[None]] = {}

    def start(self, key: str, write: Callable[[], Awaitable[object]], logger: Logger) -> None:
        """Run ``write()`` in a task unless a write with ``key`` is pending. An
        ``AuthError`` it raises (an adapter's failure or outage) is logged."""
        if key in self._tasks:
            return

        async def run() -> None:
            try:
                await write()
            except AuthError as exc:
                logger.error(exc)

        task = asyncio.get_running_loop().create_task(run())
        self._tasks[key] = task
        task.add_done_callback(lambda _: self._tasks.pop(key, None))

    async def wait(self) -> None:
        """Wait until no write is pending (the app stops; a test checks what was
        written)."""
        while self._tasks:
            await asyncio.gather(*self._tasks.values())
