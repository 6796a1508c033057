"""The process's outgoing HTTP client: one ``httpx.AsyncClient`` per event loop, shared by
OAuth requests and the HTTP mail APIs."""

from __future__ import annotations

import asyncio
import weakref

import httpx

TIMEOUT = httpx.Timeout(10.0, connect=5.0)
"""Per-request limits: a service that hangs must not hold a sign-in (or a worker) forever."""

USER_AGENT = "authui"

_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = (
    weakref.WeakKeyDictionary()
)


def shared_client() -> httpx.AsyncClient:
    """The client for the running event loop (connection pools belong to one loop, so a
    second loop, as in tests, gets its own)."""
    loop = asyncio.get_running_loop()
    client = _clients.get(loop)
    if client is None or client.is_closed:
        client = httpx.AsyncClient(timeout=TIMEOUT, headers={"User-Agent": USER_AGENT})
        _clients[loop] = client
    return client
