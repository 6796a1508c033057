"""Adapter calls that run to their end though the request that made them is cancelled.

A server cancels a request's task when its client goes away: Quart does when the
connection closes, as when a browser leaves a page whose form it has just posted.
Cancelled in the middle of a database call, SQLAlchemy (2.1, with aiosqlite) gives up the
connection without ending its transaction. On SQLite that connection keeps the database's
write lock for as long as the process lives, and every later write fails with "database
is locked"; on a database server the transaction's row locks stay until the server sees
the connection go.

So authui runs each adapter call (``AdapterCalls``) in a task of its own, which the
caller's cancellation does not reach. The caller stops waiting at once, and the call
commits or rolls back as it would have; a failure nobody waits for any more is handed to
a callback, which logs it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")

_left: set[asyncio.Future[Any]] = set()
"""Calls whose caller was cancelled, until they end: the event loop holds its tasks only
weakly, and nothing else may hold these."""


async def to_the_end(call: Awaitable[T], on_failure: Callable[[Exception], None]) -> T:
    """The result of ``call``, which runs on if the caller is cancelled; its failure
    after that goes to ``on_failure``."""
    task = asyncio.ensure_future(call)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        _left.add(task)
        task.add_done_callback(_left.discard)
        task.add_done_callback(lambda done: _report(done, on_failure))
        raise


def _report(task: asyncio.Future[T], on_failure: Callable[[Exception], None]) -> None:
    if task.cancelled():
        return
    failure = task.exception()
    if isinstance(failure, Exception):
        on_failure(failure)
