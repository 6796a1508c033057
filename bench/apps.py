"""The Python servers of the benchmarks: bare Quart and Starlette "hello" apps (the
baselines) and the same apps with authui, configured from the environment.

Environment (read at import):
    BENCH_SECRET     AUTH_SECRET
    BENCH_STRATEGY   "jwt" (default) or "database"
    BENCH_DATABASE   the adapter URL for "database" (SQLite, PostgreSQL, Redis)
    BENCH_PG_SCHEMA  for PostgreSQL: the schema holding authui's tables
    BENCH_PASSWORD   "1": password accounts too (``authui.Password``, default hashing,
                     beside the credentials provider), with an email provider whose
                     transport drops every message; needs BENCH_DATABASE (the harness
                     seeds it: ``bench.passwords.seed``)

Each authui app (Quart with its blueprint, ``quart_auth``, or on the fast path,
``quart_fast``; Starlette) serves the auth routes at /auth, GET /hello (untouched by authui, so its
figure shows what the integration adds to every request) and GET /protected (a view that
reads the session). The credentials provider accepts bench / bench (and bench-2 to
bench-4); with BENCH_PASSWORD, ``POST /auth/callback/password`` signs the users seeded by
``bench.passwords.seed`` in (bench@example.com, …, "bench-password-1").
"""

from __future__ import annotations

import os
from typing import Any

from quart import Quart
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Mount, Route

from authui import AuthConfig, Credentials, SessionOptions
from authui.adapters.from_url import adapter_from_url
from authui.mail.message import VerificationEmail
from authui.providers.email import EmailProvider
from authui.providers.password import Password
from authui.quart import AuthUI
from authui.starlette import AuthApp, AuthMiddleware
from bench.accounts import LOGINS

BENCH_USER = {"id": "1", "name": "Bench User", "email": "bench@example.com"}


async def authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
    if credentials.get("username") in LOGINS and credentials.get("password") == "bench":
        return dict(BENCH_USER)
    return None


def _adapter() -> Any:
    url = os.environ.get("BENCH_DATABASE")
    if not url:
        return None
    schema = os.environ.get("BENCH_PG_SCHEMA")
    if schema and url.startswith("postgresql"):
        from authui.adapters.sqlalchemy import SQLAlchemyAdapter

        options = {"connect_args": {"server_settings": {"search_path": schema}}}
        return SQLAlchemyAdapter(url, engine_options=options)
    return adapter_from_url(url)


async def drop(message: VerificationEmail, provider: EmailProvider) -> None:
    """The password server's mail transport: the bench sends no mail."""


def _providers() -> list[Any]:
    providers: list[Any] = [
        Credentials(credentials={"username": {}, "password": {}}, authorize=authorize)
    ]
    if os.environ.get("BENCH_PASSWORD") == "1":
        providers += [Password(), EmailProvider(transport=drop, sender="bench@example.com")]
    return providers


CONFIG = AuthConfig(
    providers=_providers(),
    secret=os.environ.get("BENCH_SECRET", "bench-secret-bench-secret-bench-secret-0123"),
    trust_host=True,
    session=SessionOptions(strategy=os.environ.get("BENCH_STRATEGY", "jwt")),  # type: ignore[arg-type]
    adapter=_adapter(),
)


# --- Quart --------------------------------------------------------------------------------------

quart_bare = Quart("bench_bare")


@quart_bare.get("/hello")
async def quart_bare_hello() -> str:
    return "hello"


def _quart_app(name: str, *, fast_path: bool) -> Quart:
    """The Quart app with authui: its routes on the blueprint (the default), or answered
    before Quart's routing (``fast_path``)."""
    app = Quart(name)
    auth_ui = AuthUI(app, CONFIG, fast_path=fast_path)

    @app.get("/hello")
    async def quart_hello() -> str:
        return "hello"

    @app.get("/protected")
    @auth_ui.auth.required
    async def quart_protected() -> str:
        session = await auth_ui.auth()
        assert session is not None
        return f"secret for {session['user']['name']}"

    return app


quart_auth = _quart_app("bench_auth", fast_path=False)
quart_fast = _quart_app("bench_fast", fast_path=True)


# --- Starlette ----------------------------------------------------------------------------------


async def hello(request: Request) -> Response:
    return PlainTextResponse("hello")


async def protected(request: Request) -> Response:
    return PlainTextResponse(f"secret for {request.state.auth['user']['name']}")


starlette_bare = Starlette(routes=[Route("/hello", hello)])

starlette_auth = Starlette(
    routes=[
        Route("/hello", hello),
        Route("/protected", protected),
        Mount("/auth", AuthApp(CONFIG)),
    ],
    middleware=[Middleware(AuthMiddleware, config=CONFIG, protect=["/protected"])],
)
