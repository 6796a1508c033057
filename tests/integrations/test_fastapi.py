"""The FastAPI side: ``CurrentSession`` and ``RequireSession`` dependencies, a view's
``update`` through FastAPI's response parameter, and the typed session in the OpenAPI
schema; through a real ASGI round trip (httpx's ASGI transport)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request, Response, WebSocket

from authui import AuthConfig, Callbacks
from authui.fastapi import (
    AuthApp,
    AuthMiddleware,
    CurrentSession,
    RequireSession,
    Session,
    handlers,
    update,
)
from tests.asgi_driver import websocket
from tests.conftest import make_config

BROWSER = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
"""What a browser sends when it opens a page."""


def rename_jwt(token: dict[str, Any], trigger: str | None = None, session: Any = None) -> Any:
    if trigger == "update" and isinstance(session, dict):
        token["name"] = session["name"]
    return token


def build_app(config: AuthConfig, *, middleware: bool = True) -> FastAPI:
    app = FastAPI()
    if middleware:
        app.add_middleware(AuthMiddleware, config=config)
    app.mount("/auth", AuthApp(config))

    @app.get("/whoami")
    async def whoami(session: CurrentSession) -> dict[str, Any]:
        return {"name": session["user"].get("name") if session else None}

    @app.get("/api/me")
    async def me(session: RequireSession) -> Session:
        return session

    @app.post("/api/rename")
    async def rename(name: str, request: Request, response: Response) -> Session | None:
        return await update(request, {"name": name}, response=response)

    @app.websocket("/live")
    async def live(socket: WebSocket, session: RequireSession) -> None:
        await socket.accept()
        await socket.send_text(session["user"].get("name") or "")
        await socket.close()

    return app


def client_for(app: FastAPI) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver")


@pytest.fixture
def app() -> FastAPI:
    return build_app(make_config(callbacks=Callbacks(jwt=rename_jwt)))


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(app) as client:
        yield client


async def sign_in_as_ada(client: httpx.AsyncClient) -> None:
    csrf = (await client.get("/auth/csrf")).json()["csrfToken"]
    response = await client.post(
        "/auth/callback/credentials",
        data={"csrfToken": csrf, "username": "ada", "password": "correct horse"},
    )
    assert response.status_code == 302, response.text


async def test_current_session_is_none_or_the_session(client: httpx.AsyncClient) -> None:
    assert (await client.get("/whoami")).json() == {"name": None}
    await sign_in_as_ada(client)
    assert (await client.get("/whoami")).json() == {"name": "Ada Lovelace"}


@pytest.mark.parametrize("accept", ["application/json", "*/*", None])
async def test_require_session_answers_api_callers_with_401(
    client: httpx.AsyncClient, accept: str | None
) -> None:
    response = await client.get("/api/me", headers={"Accept": accept} if accept else {})
    assert response.status_code == 401
    assert response.json() == {"detail": "Sign in to access this resource."}
    assert response.headers["www-authenticate"] == 'Bearer realm="authui"'


async def test_require_session_sends_browsers_to_sign_in_and_back(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get("/api/me?page=2", headers=BROWSER)
    assert response.status_code == 302
    assert response.headers["location"] == "/auth/signin?callbackUrl=%2Fapi%2Fme%3Fpage%3D2"
    await sign_in_as_ada(client)
    me = await client.get("/api/me", headers=BROWSER)
    assert me.json()["user"] == {
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "image": "https://x/a.png",
    }
    assert set(me.json()) == {"user", "expires"}


async def test_require_session_takes_a_bearer_token(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    await sign_in_as_ada(client)
    token = client.cookies["authjs.session-token"]
    async with client_for(app) as api_caller:
        me = await api_caller.get("/api/me", headers={"Authorization": f"Bearer {token}"})
    assert me.json()["user"]["email"] == "ada@example.com"
    assert "set-cookie" not in me.headers


async def test_update_sets_the_cookie_through_the_response_parameter(
    client: httpx.AsyncClient,
) -> None:
    await sign_in_as_ada(client)
    renamed = await client.post("/api/rename", params={"name": "Countess"})
    assert renamed.json()["user"]["name"] == "Countess"
    assert any("session-token" in c for c in renamed.headers.get_list("set-cookie"))
    assert (await client.get("/api/me")).json()["user"]["name"] == "Countess"


async def test_a_websocket_needs_a_session(client: httpx.AsyncClient, app: FastAPI) -> None:
    refused = await websocket(app, "/live")
    assert refused[0]["type"] == "websocket.close"
    assert refused[0]["code"] == 1008
    await sign_in_as_ada(client)
    cookie = f"authjs.session-token={client.cookies['authjs.session-token']}"
    sent = await websocket(app, "/live", cookie)
    assert [m.get("text") for m in sent if m["type"] == "websocket.send"] == ["Ada Lovelace"]


async def test_the_dependencies_say_when_the_middleware_is_missing() -> None:
    async with client_for(build_app(make_config(), middleware=False)) as client:
        with pytest.raises(RuntimeError, match="CurrentSession needs authui's AuthMiddleware"):
            await client.get("/whoami")


async def test_the_session_type_is_in_the_openapi_schema(client: httpx.AsyncClient) -> None:
    schema = (await client.get("/openapi.json")).json()
    session = schema["components"]["schemas"]["Session"]
    assert session["required"] == ["user", "expires"]
    user = schema["components"]["schemas"]["SessionUser"]
    assert set(user["properties"]) == {"id", "name", "email", "image"}
    me = schema["paths"]["/api/me"]["get"]["responses"]["200"]["content"]["application/json"]
    assert me["schema"] == {"$ref": "#/components/schemas/Session"}


async def test_handlers_as_fastapi_routes() -> None:
    config = make_config()
    auth = handlers(config)
    app = FastAPI()
    app.add_middleware(AuthMiddleware, config=config)
    app.add_api_route("/auth/{path:path}", auth.GET, methods=["GET"], include_in_schema=False)
    app.add_api_route("/auth/{path:path}", auth.POST, methods=["POST"], include_in_schema=False)

    @app.get("/api/me")
    async def me(session: RequireSession) -> Session:
        return session

    async with client_for(app) as client:
        assert (await client.get("/auth/signin")).status_code == 200
        await sign_in_as_ada(client)
        assert (await client.get("/api/me")).json()["user"]["name"] == "Ada Lovelace"
