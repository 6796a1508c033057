"""The Starlette integration through a real ASGI round trip (httpx's ASGI transport): the
mounted ``AuthApp``, ``handlers``, ``AuthMiddleware``, ``get_session``, the server-side
helpers and the template helpers."""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.templating import Jinja2Templates
from starlette.websockets import WebSocket

from authui import AuthConfig, Callbacks, CredentialsSignin, Pages, SessionOptions, Theme
from authui.errors import MissingSecret
from authui.failures import INVALID_HOST_MESSAGE
from authui.jwt import encode
from authui.options import resolve
from authui.starlette import (
    AuthApp,
    AuthMiddleware,
    get_session,
    handlers,
    setup_templates,
    sign_in,
    sign_out,
    update,
)
from tests.asgi_driver import lifespan, websocket
from tests.conftest import SECRET, make_config

BROWSER = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
"""What a browser sends when it opens a page."""
PAGE = """<!doctype html><html {{ authui_html_attrs() }}><title>t</title>
{% if user %}<p id="who">{{ user.name }}</p>{{ SignOut(redirect_to="/", inline=True) }}
{% else %}{{ SignIn() }}{% endif %}"""


LAYOUT_PAGE = """{% extends "authui/layouts/app.html" %}
{% block title %}Dashboard{% endblock %}
{% block header %}<strong>Acme</strong>{{ SignIn(inline=True) }}{% endblock %}
{% block content %}<h1>Dashboard</h1>{% endblock %}"""


def rename_jwt(token: dict[str, Any], trigger: str | None = None, session: Any = None) -> Any:
    if trigger == "update" and isinstance(session, dict):
        token["name"] = session["name"]
    return token


def build_app(config: AuthConfig, tmp_path: Path, *, protect: tuple[str, ...] = ()) -> Starlette:
    """A small site: the auth routes mounted, the middleware, pages, an API and helpers."""
    (tmp_path / "page.html").write_text(PAGE)
    (tmp_path / "dashboard.html").write_text(LAYOUT_PAGE)
    templates = setup_templates(Jinja2Templates(directory=tmp_path))

    async def home(request: Request) -> Response:
        return templates.TemplateResponse(request, "page.html")

    async def dashboard(request: Request) -> Response:
        return templates.TemplateResponse(request, "dashboard.html")

    async def private(request: Request) -> Response:
        return PlainTextResponse(f"secret for {request.state.auth['user']['name']}")

    async def me(request: Request) -> Response:
        return JSONResponse(await get_session(request))

    async def login(request: Request) -> Response:
        form = await request.form()
        try:
            return await sign_in(
                request,
                "credentials",
                redirect_to="/private",
                username=str(form["u"]),
                password=str(form["p"]),
            )
        except CredentialsSignin as error:
            return PlainTextResponse(f"refused: {error.code}", status_code=401)

    async def logout(request: Request) -> Response:
        return await sign_out(request, redirect_to="/")

    async def rename(request: Request) -> Response:
        form = await request.form()
        return JSONResponse(await update(request, {"name": form["name"]}))

    async def live(websocket: WebSocket) -> None:
        await websocket.accept()
        session = websocket.state.auth
        await websocket.send_json(session["user"]["name"] if session else None)
        await websocket.close()

    return Starlette(
        routes=[
            Route("/", home),
            Route("/dashboard", dashboard),
            Route("/private", private),
            Route("/private/{rest:path}", private),
            Route("/api/me", me),
            Route("/login", login, methods=["POST"]),
            Route("/logout", logout, methods=["POST"]),
            Route("/rename", rename, methods=["POST"]),
            WebSocketRoute("/live", live),
            WebSocketRoute("/private/live", live),
            Mount("/auth", AuthApp(config)),
        ],
        middleware=[_middleware(config, protect)],
    )


def _middleware(config: Any, protect: tuple[str, ...]) -> Middleware:
    return Middleware(AuthMiddleware, config=config, protect=protect)


def client_for(app: Any, base_url: str = "http://testserver") -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=base_url)


@pytest.fixture
def config() -> AuthConfig:
    return make_config(callbacks=Callbacks(jwt=rename_jwt))


@pytest.fixture
async def client(config: AuthConfig, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(build_app(config, tmp_path, protect=("/private",))) as client:
        yield client


async def csrf_of(client: httpx.AsyncClient) -> str:
    token: str = (await client.get("/auth/csrf")).json()["csrfToken"]
    return token


async def sign_in_as_ada(client: httpx.AsyncClient) -> httpx.Response:
    response = await client.post(
        "/auth/callback/credentials",
        data={"csrfToken": await csrf_of(client), "username": "ada", "password": "correct horse"},
    )
    assert response.status_code == 302, response.text
    return response


# --- AuthApp ----------------------------------------------------------------------------------


async def test_the_mounted_app_serves_routes_pages_and_static_files(
    client: httpx.AsyncClient,
) -> None:
    providers = (await client.get("/auth/providers")).json()
    assert providers["credentials"]["signinUrl"] == "http://testserver/auth/signin/credentials"
    page = await client.get("/auth/signin")
    assert page.status_code == 200
    assert "script-src 'self' 'nonce-" in page.headers["content-security-policy"]
    stylesheet = re.search(r'href="(/auth/_static/[^"]+\.css)"', page.text)
    assert stylesheet is not None
    css = await client.get(stylesheet.group(1))
    assert (css.status_code, css.headers["content-type"]) == (200, "text/css; charset=utf-8")
    put = await client.put("/auth/session")
    assert (put.status_code, put.json()) == (400, "Bad request.")


async def test_credentials_sign_in_sets_the_session_and_the_cookies(
    client: httpx.AsyncClient,
) -> None:
    response = await sign_in_as_ada(client)
    assert response.headers["location"] == "http://testserver"
    cookies = response.headers.get_list("set-cookie")
    assert any(c.startswith("authjs.session-token=") and "HttpOnly" in c for c in cookies)
    session = (await client.get("/auth/session")).json()
    assert session["user"] == {
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "image": "https://x/a.png",
    }


async def test_a_bad_csrf_token_is_refused(client: httpx.AsyncClient) -> None:
    await csrf_of(client)
    response = await client.post(
        "/auth/callback/credentials",
        data={"csrfToken": "0" * 64, "username": "ada", "password": "correct horse"},
    )
    assert response.status_code == 302
    assert "error=MissingCSRF" in response.headers["location"]
    assert (await client.get("/auth/session")).json() is None


async def test_an_oversized_body_is_refused_with_413(client: httpx.AsyncClient) -> None:
    response = await client.post("/auth/signout", content=b"x" * (65 * 1024))
    assert (response.status_code, response.json()) == (
        413,
        {"message": "The request body is too large."},
    )


async def test_a_mount_at_another_path_than_the_base_path_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app = Starlette(routes=[Mount("/api/auth", AuthApp(make_config()))])
    async with client_for(app) as client:
        response = await client.get("/api/auth/session")
    assert response.status_code == 500
    message = response.json()["message"]
    assert "mounted at '/api/auth' but serves the base path '/auth'" in message
    assert "base_path='/api/auth'" in message
    assert message in caplog.text


async def test_another_base_path_when_given(tmp_path: Path) -> None:
    config = make_config()
    app = Starlette(routes=[Mount("/api/auth", AuthApp(config, base_path="/api/auth"))])
    async with client_for(app) as client:
        providers = (await client.get("/api/auth/providers")).json()
    assert providers["credentials"]["callbackUrl"] == (
        "http://testserver/api/auth/callback/credentials"
    )


def test_a_broken_configuration_stops_the_app_at_start_up() -> None:
    with pytest.raises(MissingSecret):
        AuthApp(AuthConfig(providers=[], trust_host=True))


def test_a_base_path_other_than_the_configuration_s_serves_a_copy_of_it() -> None:
    config = make_config()
    same = AuthApp(config, base_path="/auth")
    other = AuthApp(config, base_path="/other")
    assert same.integration.static is config  # the configuration's own base path
    moved = other.integration.static
    assert moved is not None
    assert moved is not config
    assert resolve(moved).base_path == "/other"
    assert other.integration.static is moved  # one copy, made once


async def test_as_the_top_level_app_it_runs_the_lifespan() -> None:
    app = AuthApp(make_config())
    async with lifespan(app), client_for(app) as client:
        assert (await client.get("/auth/csrf")).status_code == 200


# --- handlers ---------------------------------------------------------------------------------


async def test_handlers_serve_every_route_from_a_router() -> None:
    auth = handlers(make_config())
    app = Starlette(
        routes=[
            Route("/auth/{path:path}", auth.GET, methods=["GET"]),
            Route("/auth/{path:path}", auth.POST, methods=["POST"]),
        ]
    )
    async with client_for(app) as client:
        assert (await client.get("/auth/signin")).status_code == 200
        await sign_in_as_ada(client)
        assert (await client.get("/auth/session")).json()["user"]["name"] == "Ada Lovelace"
        out = await client.post("/auth/signout", data={"csrfToken": await csrf_of(client)})
        assert out.status_code == 302
        assert (await client.get("/auth/session")).json() is None


# --- get_session ------------------------------------------------------------------------------


async def test_get_session_without_the_middleware_reads_cookie_and_bearer() -> None:
    config = make_config()

    async def me(request: Request) -> Response:
        return JSONResponse(await get_session(request, config))

    app = Starlette(routes=[Route("/me", me), Mount("/auth", AuthApp(config))])
    async with client_for(app) as client:
        assert (await client.get("/me")).json() is None
        await sign_in_as_ada(client)
        assert (await client.get("/me")).json()["user"]["email"] == "ada@example.com"
        token = client.cookies["authjs.session-token"]
    async with client_for(app) as stranger:
        bearer = await stranger.get("/me", headers={"Authorization": f"Bearer {token}"})
        assert bearer.json()["user"]["email"] == "ada@example.com"
        assert "set-cookie" not in bearer.headers  # a bearer caller gets no cookies
        forged = await stranger.get("/me", headers={"Authorization": f"Bearer {token[:-4]}AAAA"})
        assert forged.json() is None
        odd = await stranger.get("/me", headers={"Authorization": "Bearer a;b=c"})
        assert odd.json() is None


async def test_get_session_without_config_or_middleware_says_what_is_missing() -> None:
    async def me(request: Request) -> Response:
        return JSONResponse(await get_session(request))

    async with client_for(Starlette(routes=[Route("/me", me)])) as client:
        with pytest.raises(RuntimeError, match="needs authui's AuthMiddleware"):
            await client.get("/me")


# --- AuthMiddleware ---------------------------------------------------------------------------


async def test_protected_prefixes_send_browsers_to_sign_in_and_back(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get("/private/page?tab=2", headers=BROWSER)
    assert response.status_code == 302
    assert response.headers["location"] == "/auth/signin?callbackUrl=%2Fprivate%2Fpage%3Ftab%3D2"
    assert (await client.get("/", headers=BROWSER)).status_code == 200  # not protected
    await sign_in_as_ada(client)
    assert (await client.get("/private")).text == "secret for Ada Lovelace"


@pytest.mark.parametrize("accept", ["application/json", "*/*", None])
async def test_protected_prefixes_answer_api_callers_with_401(
    client: httpx.AsyncClient, accept: str | None
) -> None:
    headers = {"Accept": accept} if accept else {}
    response = await client.get("/private", headers=headers)
    assert response.status_code == 401
    assert response.json() == {"message": "Sign in to access this resource."}
    assert response.headers["www-authenticate"] == 'Bearer realm="authui"'


async def test_the_authorized_callback_decides(tmp_path: Path) -> None:
    seen: list[str] = []

    def only_admins(auth: dict[str, Any] | None, request: Request) -> Any:
        seen.append(request.url.path)
        if request.url.path == "/private/teapot":
            return PlainTextResponse("custom", status_code=418)
        return bool(auth and auth["user"]["email"] == "root@example.com")

    config = make_config(callbacks=Callbacks(authorized=only_admins))
    async with client_for(build_app(config, tmp_path, protect=("/private",))) as client:
        await sign_in_as_ada(client)
        assert (await client.get("/private", headers=BROWSER)).status_code == 302
        teapot = await client.get("/private/teapot")
        assert (teapot.status_code, teapot.text) == (418, "custom")
        assert (await client.get("/")).status_code == 200
    assert seen == ["/private", "/private/teapot"]  # only for protected paths


async def rolling_client(tmp_path: Path) -> httpx.AsyncClient:
    """A client of the site with a session re-issued on every check (``update_age=0``)."""
    config = make_config(session=SessionOptions(update_age=0))
    return client_for(build_app(config, tmp_path, protect=("/private",)))


async def test_the_session_is_request_state_and_a_rolling_session_is_refreshed(
    tmp_path: Path,
) -> None:
    async with await rolling_client(tmp_path) as client:
        await sign_in_as_ada(client)
        before = client.cookies["authjs.session-token"]
        response = await client.get("/private")
        assert response.text == "secret for Ada Lovelace"
        refreshed = [c for c in response.headers.get_list("set-cookie") if "session-token" in c]
        assert len(refreshed) == 1
        assert "HttpOnly" in refreshed[0]
        assert client.cookies["authjs.session-token"] != before


async def test_an_auth_route_answer_has_only_the_core_s_session_cookie(tmp_path: Path) -> None:
    async with await rolling_client(tmp_path) as client:
        await sign_in_as_ada(client)
        response = await client.get("/auth/session")
    session_cookies = [c for c in response.headers.get_list("set-cookie") if "session" in c]
    assert len(session_cookies) == 1  # the core's own, not a second one from the middleware


async def test_the_middleware_alone_serves_the_auth_routes() -> None:
    """Without ``AuthApp`` mounted: the middleware answers authui's own routes, and other
    paths under the base path still reach the app."""

    async def custom(request: Request) -> Response:
        return PlainTextResponse("the app's own")

    async def live(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.send_text("the app's socket")
        await websocket.close()

    app = Starlette(
        routes=[Route("/auth/custom", custom), WebSocketRoute("/auth/live", live)],
        middleware=[_middleware(make_config(), ())],
    )
    async with client_for(app) as client:
        page = await client.get("/auth/signin")
        assert page.status_code == 200
        stylesheet = re.search(r'href="(/auth/_static/[^"]+\.css)"', page.text)
        assert stylesheet is not None
        assert (await client.get(stylesheet.group(1))).status_code == 200
        await sign_in_as_ada(client)
        assert (await client.get("/auth/session")).json()["user"]["name"] == "Ada Lovelace"
        out = await client.post("/auth/signout", data={"csrfToken": await csrf_of(client)})
        assert out.status_code == 302
        assert (await client.get("/auth/session")).json() is None
        assert (await client.get("/auth/custom")).text == "the app's own"
        assert (await client.get("/auth/nothing-here")).status_code == 404
    sent = await websocket(app, "/auth/live")
    assert {"type": "websocket.send", "text": "the app's socket"} in sent


async def test_a_fresh_session_costs_no_cookie(client: httpx.AsyncClient) -> None:
    await sign_in_as_ada(client)
    response = await client.get("/private")
    assert response.text == "secret for Ada Lovelace"
    assert "set-cookie" not in response.headers


async def test_websockets_get_the_session_and_protected_ones_need_it(
    config: AuthConfig, tmp_path: Path
) -> None:
    app = build_app(config, tmp_path, protect=("/private",))
    sent = await websocket(app, "/live")
    assert [m["type"] for m in sent] == ["websocket.accept", "websocket.send", "websocket.close"]
    assert sent[1]["text"] == "null"
    refused = await websocket(app, "/private/live")
    assert refused == [{"type": "websocket.close", "code": 1008}]
    async with client_for(app) as client:
        await sign_in_as_ada(client)
        cookie = f"authjs.session-token={client.cookies['authjs.session-token']}"
    sent = await websocket(app, "/private/live", cookie)
    assert sent[1]["text"] == '"Ada Lovelace"'


@pytest.mark.parametrize("database", ["sqlite", "redis"])
async def test_the_middleware_closes_the_adapters_it_made_at_shutdown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, database: str
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite'}"
    if database == "redis":
        url = os.environ.get("AUTHUI_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
    config = make_config(adapter=url)
    middleware = AuthMiddleware(Starlette(), config)
    adapter = resolve(middleware.integration.prepare(config)).config.adapter
    closed: list[bool] = []
    real_close = adapter.close

    async def close() -> None:
        closed.append(True)
        await real_close()

    monkeypatch.setattr(adapter, "close", close)
    async with lifespan(middleware):
        assert closed == []
    assert closed == [True]


# --- helpers ----------------------------------------------------------------------------------


async def test_server_side_sign_in_sign_out_and_update(client: httpx.AsyncClient) -> None:
    refused = await client.post("/login", data={"u": "ada", "p": "nope"})
    assert (refused.status_code, refused.text) == (401, "refused: credentials")
    response = await client.post("/login", data={"u": "ada", "p": "correct horse"})
    assert (response.status_code, response.headers["location"]) == (
        302,
        "http://testserver/private",
    )
    renamed = await client.post("/rename", data={"name": "Countess"})
    assert renamed.json()["user"]["name"] == "Countess"
    assert (await client.get("/private")).text == "secret for Countess"
    out = await client.post("/logout")
    assert out.status_code == 302
    assert (await client.get("/private", headers=BROWSER)).status_code == 302


async def test_update_without_middleware_needs_a_response(tmp_path: Path) -> None:
    config = make_config(callbacks=Callbacks(jwt=rename_jwt))

    async def rename(request: Request) -> Response:
        response = JSONResponse({})
        session = await update(request, {"name": "Countess"}, config=config, response=response)
        response.body = response.render(session)
        response.headers["content-length"] = str(len(response.body))
        return response

    async def rename_lost(request: Request) -> Response:
        return JSONResponse(await update(request, {"name": "Lost"}, config=config))

    app = Starlette(
        routes=[
            Route("/rename", rename, methods=["POST"]),
            Route("/lost", rename_lost, methods=["POST"]),
            Mount("/auth", AuthApp(config)),
        ]
    )
    async with client_for(app) as client:
        await sign_in_as_ada(client)
        assert (await client.post("/rename")).json()["user"]["name"] == "Countess"
        assert (await client.get("/auth/session")).json()["user"]["name"] == "Countess"
        with pytest.raises(RuntimeError, match="update\\(\\) without a response"):
            await client.post("/lost")


# --- templates --------------------------------------------------------------------------------


async def test_templates_get_the_session_and_the_buttons(client: httpx.AsyncClient) -> None:
    page = await client.get("/")
    assert 'href="/auth/signin?callbackUrl=%2F"' in page.text
    assert '<html lang="en" dir="ltr" class="authui" data-color-scheme="auto">' in page.text
    german = await client.get("/", headers={"Accept-Language": "de"})
    assert '<html lang="de" dir="ltr" class="authui"' in german.text  # as the auth pages
    assert ">Anmelden<" in german.text  # the SignIn button
    await sign_in_as_ada(client)
    page = await client.get("/")
    assert '<p id="who">Ada Lovelace</p>' in page.text
    assert 'class="authui-form authui-signout-snippet authui-inline"' in page.text
    token = re.search(
        r'action="/auth/signout".*?name="csrfToken" value="([0-9a-f]{64})"', page.text, re.S
    )
    assert token is not None
    out = await client.post("/auth/signout", data={"csrfToken": token.group(1)})
    assert out.status_code == 302
    assert '<p id="who">' not in (await client.get("/")).text


async def test_an_app_page_extends_the_pack_s_layout(tmp_path: Path) -> None:
    config = make_config(theme=Theme(pack="terminal", color_scheme="light"))
    async with client_for(build_app(config, tmp_path)) as client:
        html = (await client.get("/dashboard")).text
    assert '<html lang="en" dir="ltr" class="authui" data-color-scheme="light">' in html
    assert 'href="/auth/_static/terminal.' in html
    assert "authui-inline" in html.split("</header>")[0]
    assert '<span class="authui-term-title">Dashboard</span>' in html
    assert "<h1>Dashboard</h1>" in html.split('<main class="authui-app-main">')[1]


async def test_the_sign_out_button_issues_the_csrf_cookie_it_needs_once(
    config: AuthConfig, tmp_path: Path
) -> None:
    app = build_app(config, tmp_path)
    async with client_for(app) as client:
        await sign_in_as_ada(client)
        client.cookies.delete("authjs.csrf-token")
        page = await client.get("/")
        issued = [c for c in page.headers.get_list("set-cookie") if "csrf-token" in c]
        assert len(issued) == 1
        again = await client.get("/")  # the browser has it now: not issued again
        assert not [c for c in again.headers.get_list("set-cookie") if "csrf-token" in c]
        token = re.search(r'name="csrfToken" value="([0-9a-f]{64})"', again.text)
        assert token is not None
        out = await client.post("/auth/signout", data={"csrfToken": token.group(1)})
        assert out.status_code == 302


async def test_custom_sign_in_page_is_where_the_middleware_sends_browsers(tmp_path: Path) -> None:
    config = make_config(pages=Pages(sign_in="/login-page"))
    async with client_for(build_app(config, tmp_path, protect=("/private",))) as client:
        response = await client.get("/private", headers=BROWSER)
    assert response.headers["location"] == "/login-page?callbackUrl=%2Fprivate"


async def test_a_broken_lazy_configuration_reads_as_no_session(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv("AUTH_SECRET", raising=False)
    broken = AuthConfig(providers=[], trust_host=True)  # no secret, found per request

    def config_for(request: Any) -> AuthConfig:
        return broken

    async def me(request: Request) -> Response:
        return JSONResponse(await get_session(request))

    app = Starlette(routes=[Route("/me", me)], middleware=[_middleware(config_for, ())])
    async with client_for(app) as client:
        response = await client.get("/me", headers={"Cookie": "authjs.session-token=x"})
    assert (response.status_code, response.json()) == (200, None)
    assert "MissingSecret" in caplog.text


@pytest.mark.parametrize("host", ["a b", "example.com:99999", "[::1", ""])
async def test_a_host_header_no_browser_sends_is_a_clear_4xx_or_no_session(
    client: httpx.AsyncClient, host: str
) -> None:
    headers = {"Host": host, "Accept": "text/html"}
    session = await client.get("/auth/session", headers={"Host": host})
    assert (session.status_code, session.json()) == (400, {"message": INVALID_HOST_MESSAGE})
    page = await client.get("/auth/signin", headers=headers)
    assert (page.status_code, page.headers["content-type"]) == (400, "text/html")
    # under AuthMiddleware, the app's own routes too
    assert (await client.get("/api/me", headers=headers)).status_code == 400
    assert (await client.get("/private", headers=headers)).status_code == 400


async def test_behind_a_tls_proxy_the_public_url_names_the_cookies(tmp_path: Path) -> None:
    """``AUTH_URL`` is https while the app is reached over http (TLS ends at a proxy the
    server does not trust): sessions and forms still use the ``__Secure-``/``__Host-``
    cookies the core issues."""
    config = make_config(url="https://app.test/auth")
    app = build_app(config, tmp_path)
    token = encode(
        token={"name": "Ada Lovelace", "email": "ada@example.com", "sub": "42"},
        secret=SECRET,
        salt="__Secure-authjs.session-token",
    )
    async with client_for(app) as client:
        me = await client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
        assert me.json()["user"]["name"] == "Ada Lovelace"
        csrf = await client.get("/auth/csrf")
        issued = csrf.headers["set-cookie"].split(";", 1)[0]
        assert issued.startswith("__Host-authjs.csrf-token=")
        page = await client.get("/", headers={"Cookie": issued})
        assert "set-cookie" not in page.headers  # the browser's CSRF cookie was found
        assert f'value="{csrf.json()["csrfToken"]}"' not in page.text  # a link, no form yet
        signed_in = {"Cookie": f"{issued}; __Secure-authjs.session-token={token}"}
        page = await client.get("/", headers=signed_in)
        assert '<p id="who">Ada Lovelace</p>' in page.text
        assert f'value="{csrf.json()["csrfToken"]}"' in page.text


async def test_under_a_root_path_protect_prefixes_are_the_routes_paths() -> None:
    """Behind a proxy serving the app at ``/prefix`` (``uvicorn --root-path /prefix``)."""
    config = make_config(base_path="/prefix/auth")

    async def private(request: Request) -> Response:
        return PlainTextResponse("secret")

    app = Starlette(
        routes=[
            Route("/private", private),
            Mount("/auth", AuthApp(config)),
        ],
        middleware=[_middleware(config, ("/private",))],
    )
    transport = httpx.ASGITransport(app=app, root_path="/prefix")
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        refused = await client.get("/prefix/private", headers=BROWSER)
        assert refused.headers["location"] == (
            "/prefix/auth/signin?callbackUrl=%2Fprefix%2Fprivate"
        )
        providers = (await client.get("/prefix/auth/providers")).json()
        assert providers["credentials"]["signinUrl"] == (
            "http://testserver/prefix/auth/signin/credentials"
        )


async def test_the_middleware_and_the_app_given_one_configuration_run_it_alone() -> None:
    config = make_config(base_path="/api/auth")
    middleware = AuthMiddleware(Starlette(), config)
    app = AuthApp(config)
    assert middleware.integration.static is app.integration.static is config
    assert middleware.integration.base_path == app.integration.base_path == "/api/auth"
