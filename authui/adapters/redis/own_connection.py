"""``ScriptOnOwnConnection``: the session check's Lua script, run on a connection of its own.

A command through redis-py's client takes a connection from the pool and gives it back,
wraps the call in its retry policy and records its duration for observability: about
30 µs of CPU a command in a served request, as much as the round trip's own system calls.
The session check runs one script at a time per process
(``authui.adapters.read_batches.ROUND_TRIPS`` is 1), so it keeps one connection for it
instead:

- The connection is taken from the client's pool on first use and kept (given back when
  the adapter closes), so the URL's or the client's settings apply (host, database,
  password, TLS, ``decode_responses``, time limits, health checks), it counts towards the
  pool's ``max_connections``, and closing the client closes it too.
- redis-py's connection closes itself when a send or a read fails or is cancelled, so a
  reply is never left unread, and connects again on the next call.
- A call that fails for a lost connection, on a connection that had served before, is
  tried once more: the server may have closed it while it sat idle (a restart, a
  ``timeout`` setting). The script only reads, so a second try changes nothing.
- The script goes as ``EVALSHA``; a server that does not know it (restarted, or ``SCRIPT
  FLUSH``) gets it once as ``EVAL``, which also keeps it for the next calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from hashlib import sha1
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.connection import AbstractConnection
from redis.exceptions import ConnectionError, NoScriptError


class ScriptOnOwnConnection:
    """``await script(keys, args)``: the script's reply. The caller makes one call at a
    time (``ReadBatches`` with one round trip on its way)."""

    def __init__(self, redis: Redis, script: str) -> None:
        self._pool = redis.connection_pool
        self._script = script
        self._sha = sha1(script.encode(), usedforsecurity=False).hexdigest()  # its name in Redis
        self._connection: AbstractConnection | None = None

    async def __call__(self, keys: Sequence[str], args: Sequence[str]) -> Any:
        connection = self._connection
        served_before = connection is not None and connection.is_connected
        if connection is None:
            taken: AbstractConnection = await self._pool.get_connection()  # type: ignore[no-untyped-call]
            connection = self._connection = taken
        try:
            return await self._run(connection, keys, args)
        except ConnectionError:
            if not served_before:
                raise
        return await self._run(connection, keys, args)

    async def _run(
        self, connection: AbstractConnection, keys: Sequence[str], args: Sequence[str]
    ) -> Any:
        try:
            await connection.send_command("EVALSHA", self._sha, len(keys), *keys, *args)
            return await connection.read_response()
        except NoScriptError:
            await connection.send_command("EVAL", self._script, len(keys), *keys, *args)
            return await connection.read_response()

    async def aclose(self) -> None:
        """Give the connection back to the pool (at shutdown, when no check is running)."""
        connection, self._connection = self._connection, None
        if connection is not None:
            await self._pool.release(connection)
