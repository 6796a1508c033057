"""Views that need a sign-in with two-step verification, through each integration's stack
(Quart's test client; Starlette and FastAPI over httpx's ASGI transport): Quart's
``@auth.required(mfa=True)``, FastAPI's ``RequireMfaSession`` and Starlette's
``get_sign_in_facts``.

The users sign in through the served app as a browser does: a password, then (for Ann,
who set an authenticator app up) the code at ``/auth/mfa``. Signed out, a view answers
as ``@auth.required`` does; signed in with one step, browsers go to the account center's
two-factor page (coming back afterwards) and API callers get 403; with both steps, 200.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from quart import Quart
from quart.typing import TestClientProtocol as QuartClient
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from authui import AuthConfig
from authui.fastapi import AuthApp as FastAPIAuthApp
from authui.fastapi import AuthMiddleware as FastAPIAuthMiddleware
from authui.fastapi import RequireMfaSession, RequireSession, get_sign_in_facts
from authui.quart import AuthUI
from authui.starlette import AuthApp, AuthMiddleware
from authui.starlette import get_sign_in_facts as starlette_facts
from tests.mfa.support import App, Clock, enrol
from tests.passwords.support import STRONG, password_site

BROWSER = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
API = {"Accept": "application/json"}
MFA_REFUSAL = "This needs a sign-in with two-step verification."
TWO_FACTOR_FOR_STRONG = "/auth/account/two-factor?callbackUrl=%2Fstrong%3Ftab%3D2"
SIGN_IN_FOR_STRONG = "/auth/signin?callbackUrl=%2Fstrong%3Ftab%3D2"


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The time of ``authui.mfa.totp``, moved by the test (``tests.mfa.conftest``)."""
    moved = Clock((int(time.time()) // 30) * 30 + 1)
    monkeypatch.setattr("authui.mfa.totp.time", moved)
    return moved


@dataclass
class Users:
    """The site's configuration; Ann's app (Bob has only a password)."""

    config: AuthConfig
    ann_app: App


async def users(clock: Clock, strategy: str = "jwt") -> Users:
    site = await password_site(strategy, passkeys=False)
    await site.add_user("ann@example.com", name="Ann")
    await site.add_user("bob@example.com", name="Bob")
    enrolled = await enrol(await site.signed_in("ann@example.com"), clock)
    return Users(site.config, enrolled.app)


# Driving the served apps ------------------------------------------------------------------


@dataclass
class Answer:
    status: int
    location: str | None
    json: Any


Get = Callable[[str, dict[str, str]], Awaitable[Answer]]
Post = Callable[[str, dict[str, str]], Awaitable[Answer]]


async def sign_in(get: Get, post: Post, email: str, code: str | None) -> None:
    """A password sign-in through the app, then the code when one is asked for."""
    csrf = (await get("/auth/csrf", API)).json["csrfToken"]
    first = await post(
        "/auth/callback/password",
        {"csrfToken": csrf, "email": email, "password": STRONG, "callbackUrl": "/"},
    )
    assert first.status == 302, first
    if code is None:
        assert first.location is not None
        assert not first.location.endswith("/auth/mfa"), first.location
        return
    assert str(first.location).endswith("/auth/mfa"), first.location
    done = await post("/auth/mfa", {"csrfToken": csrf, "method": "totp", "code": code})
    assert done.status == 302, done
    assert not str(done.location).endswith("/auth/signin"), done.location


def httpx_driver(client: httpx.AsyncClient) -> tuple[Get, Post]:
    async def get(path: str, headers: dict[str, str]) -> Answer:
        answer = await client.get(path, headers=headers)
        body = answer.json() if "json" in answer.headers.get("content-type", "") else None
        return Answer(answer.status_code, answer.headers.get("location"), body)

    async def post(path: str, form: dict[str, str]) -> Answer:
        answer = await client.post(path, data=form, headers=BROWSER)
        return Answer(answer.status_code, answer.headers.get("location"), None)

    return get, post


def quart_driver(client: QuartClient) -> tuple[Get, Post]:
    async def get(path: str, headers: dict[str, str]) -> Answer:
        answer = await client.get(path, headers=headers)
        body = await answer.get_json() if answer.is_json else None
        return Answer(answer.status_code, answer.headers.get("Location"), body)

    async def post(path: str, form: dict[str, str]) -> Answer:
        answer = await client.post(path, form=form, headers=BROWSER)
        return Answer(answer.status_code, answer.headers.get("Location"), None)

    return get, post


async def check_the_strong_view(get: Get, post: Post, here: Users, clock: Clock) -> None:
    """``/strong?tab=2`` (needs two steps) for each kind of caller, signed out, signed in
    with one step (Bob), with two (Ann)."""
    out_page = await get("/strong?tab=2", BROWSER)
    assert (out_page.status, out_page.location) == (302, SIGN_IN_FOR_STRONG)
    out_api = await get("/strong?tab=2", API)
    assert out_api.status == 401

    await sign_in(get, post, "bob@example.com", None)
    one_step = await get("/strong?tab=2", BROWSER)
    assert (one_step.status, one_step.location) == (302, TWO_FACTOR_FOR_STRONG)
    api = await get("/strong?tab=2", API)
    assert api.status == 403
    assert MFA_REFUSAL in str(api.json)
    plain = await get("/plain", API)  # needs a sign-in only
    assert (plain.status, plain.json) == (200, {"name": "Bob"})
    # The two-factor page the browser is sent to says what is needed.
    needed = await get(TWO_FACTOR_FOR_STRONG, API)
    assert needed.status == 200
    assert (needed.json["needed"], needed.json["multiFactor"]) == (True, False)
    assert needed.json["continueUrl"].endswith("/strong?tab=2")

    clock.tick()
    await sign_in(get, post, "ann@example.com", here.ann_app.code())
    strong = await get("/strong?tab=2", API)
    assert (strong.status, strong.json) == (200, {"name": "Ann"})
    page = await get("/strong?tab=2", BROWSER)
    assert page.status == 200


# Quart ---------------------------------------------------------------------------------------


def quart_app(config: AuthConfig) -> Quart:
    app = Quart(__name__)
    auth = AuthUI(app, config).auth

    @app.get("/plain")
    @auth.required
    async def plain() -> dict[str, Any]:
        session = await auth()
        assert session is not None
        return {"name": session["user"]["name"]}

    @app.get("/strong")
    @auth.required(mfa=True)
    async def strong() -> dict[str, Any]:
        session = await auth()
        assert session is not None
        return {"name": session["user"]["name"]}

    return app


async def test_quart_required_mfa(clock: Clock) -> None:
    here = await users(clock)
    client = quart_app(here.config).test_client()
    get, post = quart_driver(client)
    signed_out = await get("/plain", BROWSER)
    assert (signed_out.status, signed_out.location) == (302, "/auth/signin?callbackUrl=%2Fplain")
    await check_the_strong_view(get, post, here, clock)


async def test_quart_required_mfa_with_database_sessions(clock: Clock) -> None:
    here = await users(clock, "database")
    get, post = quart_driver(quart_app(here.config).test_client())
    await check_the_strong_view(get, post, here, clock)


# FastAPI --------------------------------------------------------------------------------------


def fastapi_app(config: AuthConfig) -> FastAPI:
    app = FastAPI()
    app.add_middleware(FastAPIAuthMiddleware, config=config)
    app.mount("/auth", FastAPIAuthApp(config))

    @app.get("/plain")
    async def plain(session: RequireSession) -> dict[str, Any]:
        return {"name": session["user"].get("name")}

    @app.get("/strong")
    async def strong(session: RequireMfaSession) -> dict[str, Any]:
        return {"name": session["user"].get("name")}

    @app.get("/facts")
    async def facts(request: Request) -> dict[str, Any]:
        found = await get_sign_in_facts(request)
        return {"amr": list(found.amr), "multiFactor": found.multi_factor}

    return app


@pytest.fixture
async def fastapi_client(clock: Clock) -> AsyncIterator[tuple[httpx.AsyncClient, Users]]:
    here = await users(clock)
    transport = httpx.ASGITransport(app=fastapi_app(here.config))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client, here


async def test_fastapi_require_mfa_session(
    fastapi_client: tuple[httpx.AsyncClient, Users], clock: Clock
) -> None:
    client, here = fastapi_client
    get, post = httpx_driver(client)
    await check_the_strong_view(get, post, here, clock)
    facts = await get("/facts", API)
    assert facts.json == {"amr": ["pwd", "otp", "mfa"], "multiFactor": True}


async def test_fastapi_refusals_are_json_for_api_callers(
    fastapi_client: tuple[httpx.AsyncClient, Users],
) -> None:
    client, _ = fastapi_client
    get, post = httpx_driver(client)
    await sign_in(get, post, "bob@example.com", None)
    answer = await client.get("/strong", headers=API)
    assert answer.status_code == 403
    assert answer.json() == {"detail": MFA_REFUSAL}
    anything = await client.get("/strong", headers={"Accept": "*/*"})
    assert anything.status_code == 403


# Starlette ------------------------------------------------------------------------------------


def starlette_app(config: AuthConfig) -> Starlette:
    """An app whose views read the sign-in's facts themselves."""

    async def facts(request: Request) -> Response:
        found = await starlette_facts(request)
        when = found.auth_time.isoformat() if found.auth_time else None
        return JSONResponse(
            {"amr": list(found.amr), "multiFactor": found.multi_factor, "authTime": when}
        )

    async def strong(request: Request) -> Response:
        found = await starlette_facts(request)
        if not found.multi_factor:
            return JSONResponse({"message": MFA_REFUSAL}, status_code=403)
        return JSONResponse({"amr": list(found.amr)})

    return Starlette(
        routes=[
            Route("/facts", facts),
            Route("/strong", strong),
            Mount("/auth", AuthApp(config)),
        ],
        middleware=[],
    )


@pytest.mark.parametrize("strategy", ["jwt", "database"])
async def test_starlette_get_sign_in_facts(strategy: str, clock: Clock) -> None:
    here = await users(clock, strategy)
    app = AuthMiddleware(starlette_app(here.config), config=here.config)
    transport = httpx.ASGITransport(app=app)
    for email, code, amr in [
        ("bob@example.com", None, ["pwd"]),
        ("ann@example.com", "ann", ["pwd", "otp", "mfa"]),
    ]:
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            get, post = httpx_driver(client)
            signed_out = (await get("/facts", API)).json
            assert signed_out == {"amr": [], "multiFactor": False, "authTime": None}
            clock.tick()
            await sign_in(get, post, email, here.ann_app.code() if code else None)
            facts = (await get("/facts", API)).json
            assert facts["amr"] == amr
            assert facts["multiFactor"] == (code is not None)
            assert facts["authTime"] is not None
            strong = await get("/strong", API)
            assert strong.status == (200 if code else 403)
