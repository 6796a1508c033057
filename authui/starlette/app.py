"""The auth routes as ASGI: ``AuthApp`` to mount, ``handlers`` for a router."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import NamedTuple

from starlette.requests import HTTPConnection, Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from authui.http import Response as CoreResponse
from authui.integrations.asgi import answer_scope, send_response
from authui.integrations.state import ConfigSource, Integration
from authui.starlette.requests import starlette_response, url_of
from authui.starlette.state import integration_for

Endpoint = Callable[[Request], Awaitable[Response]]


async def answer_request(
    integration: Integration, connection: HTTPConnection, receive: Receive
) -> CoreResponse:
    """The core's answer to a request to the auth routes (its body read from ``receive``)."""
    config = await integration.config_for(connection)
    return await answer_scope(connection.scope, receive, url_of(connection), config)


class AuthApp:
    """Every auth route, the pages and their static files, as one ASGI app.

    Mount it at its base path in any Starlette or FastAPI app (or any ASGI router)::

        app.mount("/auth", AuthApp(config))

    Args:
        config: An ``AuthConfig``, or a function of the request returning one (sync or
            async; return the same object for the same tenant).
        base_path: Where it is mounted; defaults to the configuration's ``base_path``
            (or ``AUTH_URL``'s path, or ``/auth``).

    Raises:
        AuthError: The (static) configuration is broken: the app stops at start-up.
    """

    def __init__(self, config: ConfigSource, *, base_path: str | None = None):
        self.integration = integration_for(config, base_path)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            await send({"type": "websocket.close", "code": 1000})
            return
        connection = HTTPConnection(scope)
        mounted = scope.get("root_path", "")
        if mounted and mounted.rstrip("/") != self.integration.base_path:
            await send_response(send, self._misplaced(mounted))
            return
        await send_response(send, await answer_request(self.integration, connection, receive))

    def _misplaced(self, mounted: str) -> CoreResponse:
        message = (
            f"AuthApp is mounted at {mounted!r} but serves the base path"
            f" {self.integration.base_path!r}: mount it at {self.integration.base_path!r},"
            f" or pass AuthApp(config, base_path={mounted!r})"
        )
        logging.getLogger("authui").error("[auth][error] %s", message)
        return CoreResponse.json(500, {"message": message})

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        """As the top-level app: at start-up, let the adapter learn its data store
        (``Integration.start``); at shutdown, close the adapters authui made from
        database URLs."""
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await self.integration.start()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.integration.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def aclose(self) -> None:
        """Close the adapters authui made from database URLs (call it at shutdown when
        the app is mounted; ``AuthMiddleware`` does it for you)."""
        await self.integration.aclose()


class Handlers(NamedTuple):
    """The endpoints of the route-handler style: both answer every auth route."""

    GET: Endpoint
    POST: Endpoint


def handlers(config: ConfigSource, *, base_path: str | None = None) -> Handlers:
    """``GET`` and ``POST`` endpoints for any router, at ``<base_path>/{path:path}``::

        auth = handlers(config)
        routes = [Route("/auth/{path:path}", auth.GET, methods=["GET"]),
                  Route("/auth/{path:path}", auth.POST, methods=["POST"])]

    Args:
        config: An ``AuthConfig``, or a function of the request returning one.
        base_path: Where the routes are; defaults to the configuration's (or ``/auth``).
    """
    integration = integration_for(config, base_path)

    async def endpoint(request: Request) -> Response:
        return starlette_response(await answer_request(integration, request, request.receive))

    return Handlers(GET=endpoint, POST=endpoint)
