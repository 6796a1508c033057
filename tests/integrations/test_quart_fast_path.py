"""Quart: authui's routes go through Quart (the blueprint: the app's hooks, signals and
error handlers see them) by default; with ``fast_path=True`` they are answered before
Quart's routing, by the ASGI wrapper on ``app.asgi_app``, with the same answers."""

from __future__ import annotations

from typing import Any

import pytest
from quart import Quart, Response, request, signals
from quart.asgi import ASGIHTTPConnection
from quart.typing import TestClientProtocol as Client

from authui.integrations.asgi import AuthRoutes
from authui.quart import AuthUI
from tests.conftest import make_config


def auth_app(config: Any = None, *, fast_path: bool = False) -> Quart:
    app = Quart(__name__)
    AuthUI(app, config or make_config(), fast_path=fast_path)
    return app


async def sign_in(client: Client) -> None:
    csrf = (await (await client.get("/auth/csrf")).get_json())["csrfToken"]
    response = await client.post(
        "/auth/callback/credentials",
        form={"csrfToken": csrf, "username": "ada", "password": "correct horse"},
    )
    assert response.status_code == 302


async def answers(client: Client) -> list[tuple[Any, ...]]:
    """What a new browser, then a signed-in one, gets from the auth routes, without the
    values that are new on every request (CSRF tokens, page nonces)."""
    fresh = await client.get("/auth/session")
    issued = sorted(c.split("=", 1)[0] for c in fresh.headers.getlist("Set-Cookie"))
    found: list[tuple[Any, ...]] = [("fresh", fresh.status_code, issued, await fresh.get_json())]
    await sign_in(client)
    for method, path in [
        ("GET", "/auth/session"),
        ("GET", "/auth/providers"),
        ("GET", "/auth/signin"),
        ("GET", "/auth/error?error=AccessDenied"),
        ("GET", "/auth/nothing"),
        ("PUT", "/auth/session"),
        ("GET", "/auth/session?callbackUrl=https://evil.example/"),
    ]:
        response = await (client.put(path) if method == "PUT" else client.get(path))
        headers = sorted(name.lower() for name, _ in response.headers.items())
        cookies = sorted(c.split("=", 1)[0] for c in response.headers.getlist("Set-Cookie"))
        body = await response.get_json() if response.is_json else None
        if isinstance(body, dict):
            body.pop("expires", None)  # each client signed in at its own second
        found.append((path, response.status_code, headers, cookies, body))
    return found


def test_the_wrapper_sits_on_the_documented_hook_and_keeps_an_app_s_connection_class() -> None:
    class Custom(ASGIHTTPConnection):
        pass

    app = Quart(__name__)
    app.asgi_http_class = Custom
    AuthUI(app, make_config())
    assert isinstance(app.asgi_app, AuthRoutes)
    assert app.asgi_http_class is Custom


async def _nothing(*args: Any) -> None:
    return None


def _seen_by_hooks(app: Quart) -> list[str]:
    seen: list[str] = []

    @app.before_request
    async def mark() -> None:
        seen.append(request.path)

    return seen


@pytest.mark.parametrize("fast_path", [False, True])
async def test_the_app_s_hooks_see_the_auth_routes_unless_the_fast_path_is_on(
    fast_path: bool,
) -> None:
    app = auth_app(fast_path=fast_path)
    seen = _seen_by_hooks(app)

    @app.get("/page")
    async def page() -> str:
        return "page"

    client = app.test_client()
    assert (await client.get("/auth/session")).status_code == 200
    assert (await client.get("/auth/nothing")).status_code == 400  # not a route: Quart's
    assert (await client.get("/page")).status_code == 200
    assert seen == (
        ["/auth/nothing", "/page"] if fast_path else ["/auth/session", "/auth/nothing", "/page"]
    )


async def test_the_app_s_hooks_and_signals_see_its_auth_routes() -> None:
    app = auth_app()
    started: list[str] = []

    @app.after_request
    async def mark(response: Response) -> Response:
        response.headers["X-App"] = "seen"
        return response

    def record(sender: Any, **extra: Any) -> None:
        started.append("started")

    with signals.request_started.connected_to(record, app):
        response = await app.test_client().get("/auth/session")
    assert response.headers["X-App"] == "seen"
    assert started == ["started"]


async def test_a_lazy_configuration_goes_through_quart_even_on_the_fast_path() -> None:
    config = make_config()
    app = auth_app(lambda request: config, fast_path=True)
    seen = _seen_by_hooks(app)
    assert (await app.test_client().get("/auth/session")).status_code == 200
    assert seen == ["/auth/session"]


async def test_auth_routes_answer_alike_on_the_blueprint_and_the_fast_path() -> None:
    config = make_config()
    blueprint, fast = auth_app(config), auth_app(config, fast_path=True)
    assert await answers(fast.test_client()) == await answers(blueprint.test_client())
