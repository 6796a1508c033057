"""Quart: authui's routes answered before Quart's routing when nothing of the app's would
run for them, and through Quart (its hooks and signals) otherwise."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from quart import Quart, Response, signals
from quart.asgi import ASGIHTTPConnection
from quart.typing import TestClientProtocol as Client

from authui.integrations.quart.direct import DirectConnection, _direct
from authui.quart import AuthUI
from tests.conftest import make_config


def auth_app(config: Any = None) -> Quart:
    app = Quart(__name__)
    AuthUI(app, config or make_config())
    return app


def http_scope(path: str, host: bytes = b"localhost", root_path: str = "") -> dict[str, Any]:
    return {
        "type": "http",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "root_path": root_path,
        "query_string": b"",
        "headers": [(b"host", host)],
    }


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


def test_authui_installs_its_connection_handler_but_keeps_an_app_s_own() -> None:
    assert auth_app().asgi_http_class is DirectConnection

    class Custom(ASGIHTTPConnection):
        pass

    app = Quart(__name__)
    app.asgi_http_class = Custom
    AuthUI(app, make_config())
    assert app.asgi_http_class is Custom


def _hooked(add: Callable[[Quart], object]) -> Quart:
    app = auth_app()
    add(app)
    return app


async def _nothing(*args: Any) -> None:
    return None


@pytest.mark.parametrize(
    "app",
    [
        pytest.param(lambda: _hooked(lambda a: a.before_request(_nothing)), id="before_request"),
        pytest.param(lambda: _hooked(lambda a: a.after_request(_nothing)), id="after_request"),
        pytest.param(lambda: _hooked(lambda a: a.teardown_request(_nothing)), id="teardown"),
        pytest.param(lambda: _hooked(lambda a: a.teardown_appcontext(_nothing)), id="appcontext"),
        pytest.param(
            lambda: _hooked(lambda a: a.url_value_preprocessor(lambda *_: None)), id="url_values"
        ),
        pytest.param(lambda: _hooked(lambda a: a.config.update(SERVER_NAME="x")), id="server"),
        pytest.param(lambda: auth_app(lambda request: make_config()), id="config function"),
    ],
)
def test_whatever_the_app_runs_around_requests_keeps_the_auth_routes_in_quart(
    app: Callable[[], Quart],
) -> None:
    assert _direct(auth_app(), http_scope("/auth/session")) is not None
    assert _direct(app(), http_scope("/auth/session")) is None


def test_only_plain_requests_to_authui_s_routes_skip_quart() -> None:
    app = auth_app()
    assert _direct(app, http_scope("/auth/callback/credentials")) is not None
    assert _direct(app, http_scope("/auth/_static/x.css")) is not None
    assert _direct(app, http_scope("/private")) is None
    assert _direct(app, http_scope("/auth/nothing")) is None
    assert _direct(app, http_scope("/auth/session", host=b"[::1]:5000")) is None
    assert _direct(app, http_scope("/auth/session", root_path="/prefix")) is None


def test_a_request_signal_receiver_keeps_the_auth_routes_in_quart() -> None:
    app = auth_app()

    def seen(sender: Any, **extra: Any) -> None:
        return None

    with signals.request_started.connected_to(seen):
        assert _direct(app, http_scope("/auth/session")) is None
    assert _direct(app, http_scope("/auth/session")) is not None


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


async def test_auth_routes_answer_alike_with_and_without_quart() -> None:
    config = make_config()
    direct, hooked = auth_app(config), auth_app(config)
    hooked.before_request(_nothing)
    assert _direct(direct, http_scope("/auth/session")) is not None
    assert _direct(hooked, http_scope("/auth/session")) is None
    assert await answers(direct.test_client()) == await answers(hooked.test_client())
