"""Drive an ASGI app's lifespan and WebSockets in-process, as a server would (httpx's ASGI
transport covers plain HTTP)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

ASGI = {"version": "3.0", "spec_version": "2.4"}


@contextlib.asynccontextmanager
async def lifespan(app: Any) -> AsyncIterator[None]:
    """Start ``app`` (``lifespan.startup``), and shut it down on leaving."""
    incoming: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    outgoing: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    scope = {"type": "lifespan", "asgi": ASGI, "state": {}}
    task = asyncio.create_task(app(scope, incoming.get, outgoing.put))
    await incoming.put({"type": "lifespan.startup"})
    assert (await asyncio.wait_for(outgoing.get(), 5))["type"] == "lifespan.startup.complete"
    try:
        yield
    finally:
        await incoming.put({"type": "lifespan.shutdown"})
        assert (await asyncio.wait_for(outgoing.get(), 5))["type"] == "lifespan.shutdown.complete"
        await asyncio.wait_for(task, 5)


async def websocket(
    app: Any, path: str, cookie: str = "", host: bytes = b"testserver"
) -> list[dict[str, Any]]:
    """Open a WebSocket to ``path`` and return what the app sent until it closed it."""
    headers = [(b"host", host)]
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    scope = {
        "type": "websocket",
        "asgi": ASGI,
        "scheme": "ws",
        "http_version": "1.1",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": headers,
        "server": ("testserver", 80),
        "client": ("127.0.0.1", 50000),
        "subprotocols": [],
        "state": {},
    }
    incoming: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    await incoming.put({"type": "websocket.connect"})
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)
        if message["type"] == "websocket.close":
            await incoming.put({"type": "websocket.disconnect", "code": message.get("code", 1000)})

    await asyncio.wait_for(app(scope, incoming.get, send), 5)
    return sent
