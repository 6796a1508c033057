"""A small site for ``tests/integrations/test_served_hosts.py``, in the framework that
``AUTHUI_HOSTS_FRAMEWORK`` names, for a real server to serve (``hypercorn`` or ``uvicorn``
``tests.peers.hosts_app:app``):

- ``quart``: ``AuthUI`` with its defaults (authui's routes on the blueprint, through Quart)
  and a request hook of the app's;
- ``quart-fast``: ``AuthUI(…, fast_path=True)``, so authui's routes are answered before
  Quart's routing;
- ``starlette``: ``handlers()`` in the app's router, no middleware;
- ``fastapi``: ``AuthMiddleware`` and a mounted ``AuthApp``.

Sign-in is by email, into a console outbox, with at most two links per client (IP address)
and window; sessions are JWTs. Routes: ``/auth/*``; ``/``, a page of the app's own showing
the session; ``/leave``, signing out with the server-side helper; ``/outbox``, the links
sent so far (JSON, oldest first). The host settings come from the environment, as in a
deployment (``AUTH_SECRET``, ``AUTH_TRUSTED_HOSTS``, ``AUTH_TRUSTED_PROXIES``).
``AUTHUI_HOSTS_LOG`` names a file that gets every log record of the process, the server's
included, for the test to look for tracebacks in.
"""

from __future__ import annotations

import io
import logging
import os
from typing import Any

from fastapi import FastAPI
from quart import Quart
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from authui import AuthConfig, SessionOptions
from authui.adapters.memory import MemoryAdapter
from authui.fastapi import AuthApp, AuthMiddleware, CurrentSession
from authui.mail.console import ConsoleOutbox
from authui.mail.limits import SendLimits
from authui.providers.console_email import ConsoleEmail
from authui.quart import AuthUI
from authui.starlette import get_session, handlers, sign_out

log = logging.FileHandler(os.environ["AUTHUI_HOSTS_LOG"])
log.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
for name in ("", "uvicorn.error"):  # uvicorn's loggers do not reach the root one
    logging.getLogger(name).addHandler(log)

outbox = ConsoleOutbox(stream=io.StringIO())
config = AuthConfig(
    providers=[ConsoleEmail(outbox=outbox, limits=SendLimits(per_address=None, per_client=2))],
    adapter=MemoryAdapter(),
    session=SessionOptions(strategy="jwt"),
)
FRAMEWORK = os.environ["AUTHUI_HOSTS_FRAMEWORK"]


def sent() -> list[dict[str, str]]:
    return [{"to": m.to, "url": m.url} for m in outbox.messages]


def quart_app(fast_path: bool) -> Any:
    app = Quart(__name__)
    auth_ui = AuthUI(app, config, fast_path=fast_path)
    auth = auth_ui.auth

    @app.get("/")
    async def home() -> dict[str, Any]:
        return {"auth": await auth()}

    @app.get("/outbox")
    async def listed() -> list[dict[str, str]]:
        return sent()

    @app.get("/leave")
    async def leave() -> Any:
        return await auth_ui.sign_out(redirect_to="/")

    @app.before_request
    async def seen() -> None:
        return None

    return app


def starlette_app() -> Any:
    auth = handlers(config)

    async def home(request: Request) -> JSONResponse:
        return JSONResponse({"auth": await get_session(request, config)})

    async def listed(request: Request) -> JSONResponse:
        return JSONResponse(sent())

    async def leave(request: Request) -> Response:
        return await sign_out(request, config=config, redirect_to="/")

    return Starlette(
        routes=[
            Route("/", home),
            Route("/outbox", listed),
            Route("/leave", leave),
            Route("/auth/{path:path}", auth.GET, methods=["GET"]),
            Route("/auth/{path:path}", auth.POST, methods=["POST"]),
        ]
    )


def fastapi_app() -> Any:
    app = FastAPI()
    app.add_middleware(AuthMiddleware, config=config)
    app.mount("/auth", AuthApp(config))

    @app.get("/")
    async def home(session: CurrentSession) -> dict[str, Any]:
        return {"auth": session}

    @app.get("/outbox")
    async def listed() -> list[dict[str, str]]:
        return sent()

    @app.get("/leave")
    async def leave(request: Request) -> Response:
        return await sign_out(request, redirect_to="/")

    return app


if FRAMEWORK == "starlette":
    app = starlette_app()
elif FRAMEWORK == "fastapi":
    app = fastapi_app()
else:
    app = quart_app(fast_path=FRAMEWORK == "quart-fast")
