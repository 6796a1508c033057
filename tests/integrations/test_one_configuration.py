"""One app, one resolved configuration: every integration, used every way an app uses it
(its routes, the session read in views and templates, the server-side helpers, the
template macros), builds the configuration's options once (one renderer, one adapter) and
closes the adapter it made from a URL once, at shutdown."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from quart import Quart, render_template_string
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from authui import options
from authui.adapters.memory import MemoryAdapter
from authui.config import AuthConfig, SessionOptions
from authui.fastapi import CurrentSession
from authui.quart import AuthUI
from authui.starlette import AuthApp, AuthMiddleware, get_session, sign_in
from tests.asgi_driver import lifespan
from tests.conftest import make_config


class ClosingAdapter(MemoryAdapter):
    """What ``adapter_from_url`` makes in these tests: a memory adapter counting its
    closes."""

    def __init__(self, census: Census) -> None:
        super().__init__()
        self.census = census

    async def close(self) -> None:
        self.census.closes += 1


@dataclass
class Census:
    builds: list[AuthConfig] = field(default_factory=list)
    adapters: int = 0
    closes: int = 0


@pytest.fixture
def census(monkeypatch: pytest.MonkeyPatch) -> Census:
    counted = Census()
    build = options._build

    def counting_build(config: AuthConfig) -> options.Options:
        counted.builds.append(config)
        return build(config)

    def made_from_url(url: str) -> ClosingAdapter:
        counted.adapters += 1
        return ClosingAdapter(counted)

    monkeypatch.setattr(options, "_build", counting_build)
    monkeypatch.setattr(options, "adapter_from_url", made_from_url)
    return counted


def url_config() -> AuthConfig:
    """A configuration with a database URL (so authui makes, and must close, the adapter)
    and JWT sessions (so a credentials sign-in works with it)."""
    return make_config(adapter="memory://counted", session=SessionOptions(strategy="jwt"))


SIGN_IN = {"username": "ada", "password": "correct horse"}


async def use_routes(client: httpx.AsyncClient | Any) -> None:
    """What a browser does with the auth routes and the app's pages."""
    assert (await client.get("/auth/csrf")).status_code == 200
    assert (await client.get("/auth/signin")).status_code == 200
    assert (await client.get("/auth/session")).status_code == 200


async def test_quart(census: Census) -> None:
    app = Quart(__name__)
    auth_ui = AuthUI(app, url_config())

    @app.get("/me")
    async def me() -> Any:
        return {"session": await auth_ui.auth()}

    @app.get("/page")
    async def page() -> str:
        return await render_template_string("{{ SignIn('credentials') }}{{ SignOut() }}")

    @app.post("/login")
    async def login() -> Any:
        return await auth_ui.sign_in("credentials", redirect_to="/me", **SIGN_IN)

    async with app.test_app() as running:
        client = running.test_client()
        await use_routes(client)
        assert (await client.get("/page")).status_code == 200
        assert (await client.post("/login")).status_code == 302
        assert (await (await client.get("/me")).get_json())["session"]["user"]["name"]
        assert (census.adapters, census.closes) == (1, 0)
    assert len(census.builds) == 1
    assert (census.adapters, census.closes) == (1, 1)


async def test_quart_on_the_fast_path(census: Census) -> None:
    app = Quart(__name__)
    auth_ui = AuthUI(app, url_config(), fast_path=True)

    @app.get("/me")
    async def me() -> Any:
        return {"session": await auth_ui.auth()}

    async with app.test_app() as running:
        client = running.test_client()
        await use_routes(client)
        assert (await client.get("/me")).status_code == 200
    assert len(census.builds) == 1
    assert (census.adapters, census.closes) == (1, 1)


def starlette_app(config: AuthConfig, make: Callable[..., Any] = Starlette) -> Any:
    async def me(request: Request) -> Response:
        return JSONResponse({"session": await get_session(request)})

    async def login(request: Request) -> Response:
        return await sign_in(
            request, "credentials", redirect_to="/me", username="ada", password="correct horse"
        )

    async def elsewhere(request: Request) -> Response:  # without the middleware's help
        return JSONResponse({"session": await get_session(request, config)})

    return make(
        routes=[
            Route("/me", me),
            Route("/login", login, methods=["POST"]),
            Route("/elsewhere", elsewhere),
            Mount("/auth", AuthApp(config)),  # not needed under the middleware; no harm
        ],
        middleware=[Middleware(AuthMiddleware, config=config)],
    )


@asynccontextmanager
async def served(app: Any) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with (
        lifespan(app),
        httpx.AsyncClient(transport=transport, base_url="http://testserver") as client,
    ):
        yield client


@pytest.mark.parametrize("make", [Starlette, FastAPI], ids=["starlette", "fastapi"])
async def test_starlette_and_fastapi(census: Census, make: Callable[..., Any]) -> None:
    config = url_config()
    app = starlette_app(config, make)
    if make is FastAPI:

        async def dependency(session: CurrentSession) -> Any:
            return {"session": session}

        app.add_api_route("/dependency", dependency)
    async with served(app) as client:
        await use_routes(client)
        assert (await client.post("/login")).status_code == 302
        assert (await client.get("/me")).json()["session"]["user"]["name"]
        assert (await client.get("/elsewhere")).json()["session"]["user"]["name"]
        if make is FastAPI:
            assert (await client.get("/dependency")).json()["session"]["user"]["name"]
    assert len(census.builds) == 1
    assert (census.adapters, census.closes) == (1, 1)


async def test_a_configuration_function_building_one_per_request_is_warned_of(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Each new object is resolved anew (and counts sign-in attempts from zero): after ten
    dropped ones, one warning says to keep one object per tenant."""
    app = Quart(__name__)
    AuthUI(app, lambda request: make_config(), base_path="/auth")
    client = app.test_client()
    for _ in range(12):
        assert (await client.get("/auth/session")).status_code == 200
        gc.collect()  # the dropped configuration is gone, as it soon is in a server
    assert caplog.text.count("[auth][warn][config-rebuilt]") == 1


async def test_one_configuration_per_tenant_is_not_warned_of(
    caplog: pytest.LogCaptureFixture,
) -> None:
    tenants = {f"t{n}": make_config() for n in range(30)}
    app = Quart(__name__)
    AuthUI(app, lambda request: tenants[request.args["tenant"]], base_path="/auth")
    client = app.test_client()
    for _ in range(2):
        for tenant in tenants:
            assert (await client.get(f"/auth/session?tenant={tenant}")).status_code == 200
        gc.collect()  # once a round: on the full suite's heap, each collection takes long
    assert "config-rebuilt" not in caplog.text
