"""The account center from the app's own views: ``auth_ui.account`` in Quart,
``authui.starlette.account(request)`` in Starlette and FastAPI, each app served through
its whole ASGI stack (httpx's ASGI transport, with the app's lifespan): a read, changes
whose cookies land on the view's response, and a step-up refusal that names the page to
send the browser to. The views post no CSRF token: the app is the caller."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pyotp
import pytest
from fastapi import FastAPI
from fastapi import Request as FastAPIRequest
from quart import Quart
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from authui.integrations.account import AccountCalls, AccountResult
from authui.quart import AuthUI
from authui.starlette import AuthApp, AuthMiddleware, account
from tests.account.support import (
    APP,
    PASSWORD,
    SESSION_COOKIE,
    Site,
    account_url,
    aged,
    site,
)
from tests.asgi_driver import lifespan

Calls = Callable[[AccountCalls], Awaitable[AccountResult]]
VIEWS: dict[str, Calls] = {
    "overview": lambda calls: calls.overview(),
    "sessions": lambda calls: calls.sessions(),
    "connections": lambda calls: calls.connections(),
    "rename": lambda calls: calls.update_profile(name="Ada King"),
    "elsewhere": lambda calls: calls.revoke_other_sessions(),
    "everywhere": lambda calls: calls.sign_out_everywhere(),
    "delete": lambda calls: calls.delete_account(),
    "two-factor": lambda calls: calls.two_factor(),
    "start-app": lambda calls: calls.start_authenticator_app(),
    "confirm-app": lambda calls: calls.confirm_authenticator_app(TYPED["code"]),
    "new-codes": lambda calls: calls.new_recovery_codes(),
    "off": lambda calls: calls.turn_off_two_factor(),
}
TYPED: dict[str, str] = {}
"""What the user typed, for the views that pass it on (set by the test before the call)."""
"""What each of the app's views (``POST /me/<name>``) asks of the account center."""


def answer(result: AccountResult) -> dict[str, Any]:
    return {
        "failed": result.failed,
        "status": result.status,
        "message": result.message,
        "formErrors": result.form_errors,
        "reauthenticate": result.reauthenticate,
        "data": dict(result.data),
    }


def quart_app(here: Site) -> Quart:
    app = Quart(__name__)
    auth_ui = AuthUI(app, here.config)

    @app.post("/me/<name>")
    async def view(name: str) -> dict[str, Any]:
        return answer(await VIEWS[name](auth_ui.account))

    return app


async def starlette_view(request: Request) -> Response:
    calls = account(request)
    return JSONResponse(answer(await VIEWS[request.path_params["name"]](calls)))


def starlette_app(here: Site) -> Starlette:
    return Starlette(
        routes=[
            Route("/me/{name}", starlette_view, methods=["POST"]),
            Mount("/auth", AuthApp(here.config)),
        ],
        middleware=[Middleware(AuthMiddleware, config=here.config)],
    )


def fastapi_app(here: Site) -> FastAPI:
    app = FastAPI()
    app.add_middleware(AuthMiddleware, config=here.config)
    app.mount("/auth", AuthApp(here.config))

    @app.post("/me/{name}")
    async def view(name: str, request: FastAPIRequest) -> dict[str, Any]:
        return answer(await VIEWS[name](account(request)))

    return app


APPS: dict[str, Callable[[Site], Any]] = {
    "quart": quart_app,
    "starlette": starlette_app,
    "fastapi": fastapi_app,
}


class Served:
    """An app under test and a browser talking to it."""

    def __init__(self, here: Site, browser: httpx.AsyncClient) -> None:
        self.here = here
        self.browser = browser

    async def sign_in(self, email: str = "ada@example.com") -> None:
        csrf = (await self.browser.get("/auth/csrf")).json()["csrfToken"]
        form = {"csrfToken": csrf, "email": email, "password": PASSWORD}
        signed = await self.browser.post("/auth/callback/credentials", data=form)
        assert signed.status_code == 302, signed.text

    async def view(self, name: str) -> httpx.Response:
        return await self.browser.post(f"/me/{name}")

    async def session(self) -> Any:
        return (await self.browser.get("/auth/session")).json()

    async def make_old(self) -> None:
        """The browser's sign-in made two hours old (``support.aged``)."""
        [cookie] = [c for c in self.browser.cookies.jar if c.name == SESSION_COOKIE]
        assert cookie.value is not None
        cookie.value = await aged(self.here, cookie.value)


async def served(framework: str, strategy: str) -> AsyncIterator[Served]:
    here = await site(strategy)
    app = APPS[framework](here)
    transport = httpx.ASGITransport(app=app)
    async with lifespan(app), httpx.AsyncClient(transport=transport, base_url=APP) as browser:
        yield Served(here, browser)


@pytest.fixture(params=list(APPS))
def framework(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def on_jwt(framework: str) -> AsyncIterator[Served]:
    async for app in served(framework, "jwt"):
        yield app


@pytest.fixture
async def on_database(framework: str) -> AsyncIterator[Served]:
    async for app in served(framework, "database"):
        yield app


async def test_a_read(on_database: Served) -> None:
    await on_database.sign_in()
    overview = (await on_database.view("overview")).json()
    assert (overview["failed"], overview["status"]) == (False, 200)
    assert overview["data"]["user"]["email"] == "ada@example.com"
    assert overview["data"]["signIn"]["amr"] == ["pwd"]
    sessions = (await on_database.view("sessions")).json()
    [own] = sessions["data"]["sessions"]
    assert (own["current"], own["client"]) == (True, "127.0.0.1")


async def test_a_page_the_site_does_not_offer_answers_404(on_database: Served) -> None:
    """``connections()`` on a site without an OAuth provider."""
    await on_database.sign_in()
    seen = (await on_database.view("connections")).json()
    assert (seen["failed"], seen["status"]) == (True, 404)
    assert seen["formErrors"] == ["The account center does not offer this here."]


async def test_a_read_signed_out_answers_401(on_database: Served) -> None:
    seen = (await on_database.view("overview")).json()
    assert (seen["failed"], seen["status"]) == (True, 401)
    assert seen["formErrors"] == ["Sign in to manage your account."]


async def test_a_change_sets_its_cookies_on_the_views_response(on_jwt: Served) -> None:
    await on_jwt.sign_in()
    renamed = await on_jwt.view("rename")
    assert renamed.json()["message"] == "Your profile is saved."
    cookies = renamed.headers.get_list("set-cookie")
    assert [c for c in cookies if c.startswith(f"{SESSION_COOKIE}=")]  # the token, anew
    assert (await on_jwt.session())["user"]["name"] == "Ada King"
    assert [u["user"]["name"] for u in on_jwt.here.emitted("update_user")] == ["Ada King"]


async def test_deleting_the_account_clears_the_session_cookie(on_jwt: Served) -> None:
    await on_jwt.sign_in()
    deleted = await on_jwt.view("delete")
    assert deleted.json()["data"] == {"deleted": True}
    cleared = [c for c in deleted.headers.get_list("set-cookie") if c.startswith(SESSION_COOKIE)]
    assert cleared
    assert all("Max-Age=0" in c for c in cleared)
    assert await on_jwt.session() is None
    assert await on_jwt.here.user("ada") is None


async def test_a_change_that_needs_a_recent_sign_in_names_the_step_up_page(
    on_database: Served,
) -> None:
    await on_database.sign_in()
    await on_database.make_old()
    refused = (await on_database.view("elsewhere")).json()
    assert (refused["failed"], refused["status"]) == (True, 403)
    assert refused["reauthenticate"] == account_url(
        "reauthenticate", callbackUrl=account_url("sessions")
    )
    assert refused["formErrors"] == [
        "Sign in again to confirm it is you: this change needs a recent sign-in."
    ]
    assert (await on_database.session())["user"]["name"] == "Ada"
    assert [e.kind for e in on_database.here.activity()] == ["sign-in"]  # nothing ended


async def test_signing_out_everywhere_keeps_this_browser(on_jwt: Served) -> None:
    await on_jwt.sign_in()
    done = await on_jwt.view("everywhere")
    assert done.json()["message"] == "Every other browser is signed out within a day."
    assert [c for c in done.headers.get_list("set-cookie") if c.startswith(SESSION_COOKIE)]
    assert (await on_jwt.view("overview")).json()["status"] == 200  # its token has the new sv
    await on_jwt.make_old()
    refused = (await on_jwt.view("everywhere")).json()
    assert (refused["status"], refused["reauthenticate"] is not None) == (403, True)


async def test_two_step_verification_from_python(on_jwt: Served) -> None:
    """Set an authenticator app up from the app's views: the secret stays in the browser's
    cookie until a code of it confirms it; then the recovery codes come once, and this
    session counts as two-step verified (its token re-issued)."""
    await on_jwt.sign_in()
    assert (await on_jwt.view("two-factor")).json()["data"]["on"] is False
    started = (await on_jwt.view("start-app")).json()
    assert (started["failed"], started["status"]) == (False, 200)
    setup = (await on_jwt.view("two-factor")).json()["data"]["setup"]
    secret = setup["key"].replace(" ", "")
    assert setup["uri"].startswith("otpauth://totp/")
    assert f"secret={secret}" in setup["uri"]
    TYPED["code"] = "000000" if pyotp.TOTP(secret).now() != "000000" else "111111"
    wrong = (await on_jwt.view("confirm-app")).json()
    assert (wrong["failed"], wrong["status"]) == (True, 422)
    TYPED["code"] = pyotp.TOTP(secret).now()
    confirmed = await on_jwt.view("confirm-app")
    codes = confirmed.json()["data"]["recoveryCodes"]
    assert len(set(codes)) == len(codes) == 10
    assert [c for c in confirmed.headers.get_list("set-cookie") if c.startswith(SESSION_COOKIE)]
    now = (await on_jwt.view("two-factor")).json()["data"]
    assert (now["on"], now["totp"], now["recoveryCodesLeft"], now["setup"]) == (
        True,
        True,
        10,
        None,
    )
    assert now["multiFactor"] is True
    await on_jwt.make_old()
    refused = (await on_jwt.view("new-codes")).json()
    assert (refused["status"], refused["reauthenticate"] is not None) == (403, True)
