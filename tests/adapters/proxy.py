"""A TCP proxy the adapter tests put in front of a real database, to take it away.

``stop()`` closes the proxy's listener and resets every open connection, as a database
that goes down does (open connections reset, new ones refused); ``cut()`` does the same
without waiting, from code that cannot await (a SQLAlchemy event hook, to cut at one
exact statement). ``start()`` listens again on the same port. ``blackhole()`` keeps the
connections open, new ones included, and forwards nothing, as a network partition that
drops packets does, where only time limits end the wait.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from sqlalchemy.engine import make_url


@dataclass
class Proxy:
    """A TCP proxy on 127.0.0.1 in front of ``upstream``: stopped, started again on the
    same port, or made silent."""

    upstream: tuple[str, int]
    port: int = 0
    silent: bool = False
    server: asyncio.Server | None = None
    links: set[asyncio.StreamWriter] = field(default_factory=set)
    tasks: set[asyncio.Task[None]] = field(default_factory=set)

    def url(self, database_url: str) -> str:
        """``database_url`` (a SQLAlchemy URL of ``upstream``) through the proxy."""
        url = make_url(database_url).set(host="127.0.0.1", port=self.port)
        return url.render_as_string(hide_password=False)

    async def start(self) -> None:
        """Listen (again) and forward."""
        self.silent = False
        self.server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)
        self.port = self.server.sockets[0].getsockname()[1]

    def cut(self) -> None:
        """Close the listener and reset every open connection, at once."""
        if self.server is not None:
            self.server.close()
            self.server = None
        for writer in list(self.links):
            writer.transport.abort()
        self.links.clear()
        for task in list(self.tasks):
            task.cancel()

    async def stop(self) -> None:
        """``cut()``, then wait until the forwarding has ended: the database is down."""
        self.cut()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    def blackhole(self) -> None:
        """Keep every connection, new ones included, and forward nothing."""
        self.silent = True

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.links.add(writer)
        if self.silent:
            return  # held open, never answered
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        except OSError:
            writer.transport.abort()
            return
        self.links.add(up_writer)
        for source, sink in ((reader, up_writer), (up_reader, writer)):
            task = asyncio.create_task(self._pipe(source, sink))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def _pipe(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        try:
            while data := await source.read(65536):
                if not self.silent:
                    sink.write(data)
                    await sink.drain()
        except OSError:
            pass
        finally:
            sink.transport.abort()


async def running_proxy(upstream_url: str, default_port: int) -> Proxy:
    """A started proxy in front of the server of ``upstream_url`` (a SQLAlchemy or Redis
    URL; ``default_port`` when it names none)."""
    url = make_url(upstream_url)
    proxy = Proxy((url.host or "127.0.0.1", url.port or default_port))
    await proxy.start()
    return proxy
