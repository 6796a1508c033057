"""A client's error is a 4xx, an outage a 503, and ``Configuration`` a configuration error.

Each answer comes in the form its client can use: a themed page for a browser, JSON for an
API client, a redirect for htmx; and each is one log line without a traceback. The outage
here is an adapter whose database refuses connections; tests/adapters/test_outages.py
cuts a real one.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest

from authui import Pages, Request
from authui.adapters import AdapterSession, AdapterUser
from authui.adapters.memory import MemoryAdapter
from authui.core import session_of
from authui.http import Response
from authui.testing import AuthClient
from tests.conftest import make_config

ORIGIN = "http://localhost:3000"
BROWSER = {"accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
API = {"accept": "application/json"}
RETURN_REDIRECT = {"x-auth-return-redirect": "1"}
HTMX = {"hx-request": "true"}
BAD_CALLBACK = "javascript:alert(1)"
CALLBACK_MESSAGE = {"message": "The callbackUrl must be a path or an absolute http(s) URL."}


def error_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The ``[auth][error]`` lines, after checking that none has a traceback."""
    records = [r for r in caplog.records if r.name == "authui" and r.levelno >= logging.ERROR]
    assert all(r.exc_info is None for r in records)
    assert "Traceback" not in caplog.text
    lines = [r.getMessage() for r in records]
    assert all("\n" not in line for line in lines)
    return lines


def logged_types(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [line.split(":")[0].removeprefix("[auth][error] ") for line in error_lines(caplog)]


def hidden_fields(page: Response) -> dict[str, str]:
    return dict(re.findall(r'type="hidden" name="(\w+)" value="([^"]*)"', page.text))


def assert_page(response: Response, status: int, heading: str) -> None:
    assert response.status == status
    assert (response.header("content-type") or "").startswith("text/html")
    assert f">{heading}</h1>" in response.text


def assert_json(response: Response, status: int, data: Any) -> None:
    assert response.status == status
    assert response.header("content-type") == "application/json"
    assert response.data() == data


# --- an invalid callbackUrl ------------------------------------------------------------


async def test_an_invalid_callback_url_leaves_a_sign_in_page_that_works(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = AuthClient(make_config())
    page = await client.get(f"signin?callbackUrl={BAD_CALLBACK}", headers=BROWSER)
    assert page.status == 400
    assert 'name="username"' in page.text
    assert "javascript:" not in page.text
    fields = hidden_fields(page)
    assert fields["callbackUrl"] == ORIGIN  # the parameter is passed over
    form = {**fields, "username": "ada", "password": "correct horse"}
    signed_in = await client.post("callback/credentials", form=form)
    assert (signed_in.status, signed_in.header("location")) == (302, ORIGIN)
    assert "authjs.session-token" in client.cookies
    assert logged_types(caplog) == ["InvalidCallbackUrl"]


@pytest.mark.parametrize(
    ("method", "path", "headers"),
    [
        ("GET", "session", API),
        ("GET", "csrf", {}),
        ("GET", "signin", RETURN_REDIRECT),
        ("POST", "signout", BROWSER),
    ],
)
async def test_an_invalid_callback_url_is_json_400_for_everything_but_pages(
    method: str, path: str, headers: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    response = await AuthClient(make_config()).request(
        method, f"{path}?callbackUrl={BAD_CALLBACK}", headers=headers
    )
    assert_json(response, 400, CALLBACK_MESSAGE)
    assert logged_types(caplog) == ["InvalidCallbackUrl"]


async def test_an_invalid_callback_url_on_another_page_is_the_bad_request_page() -> None:
    response = await AuthClient(make_config()).get(f"signout?callbackUrl={BAD_CALLBACK}")
    assert_page(response, 400, "Bad request")


async def test_an_invalid_callback_url_stops_a_sign_in() -> None:
    client = AuthClient(make_config())
    form = {"csrfToken": await client.csrf_token(), "username": "ada", "password": "correct horse"}
    response = await client.post(f"callback/credentials?callbackUrl={BAD_CALLBACK}", form=form)
    assert_json(response, 400, CALLBACK_MESSAGE)
    assert "authjs.session-token" not in client.cookies


async def test_a_bad_callback_url_cookie_is_replaced(caplog: pytest.LogCaptureFixture) -> None:
    client = AuthClient(make_config(), cookies={"authjs.callback-url": BAD_CALLBACK})
    page = await client.get("signin", headers=BROWSER)
    assert page.status == 200
    assert client.cookies["authjs.callback-url"] == "http%3A%2F%2Flocalhost%3A3000"
    signed_in = await client.sign_in_with_credentials(username="ada", password="correct horse")
    assert (signed_in.status, signed_in.header("location")) == (302, ORIGIN)
    assert logged_types(caplog) == ["InvalidCallbackUrl"]


# --- no such action ---------------------------------------------------------------------

UNROUTABLE = [
    ("GET", "nope"),
    ("PUT", "signin"),
    ("GET", "session/credentials"),
    ("GET", "signin/credentials"),
    ("POST", "csrf"),
]


@pytest.mark.parametrize(("method", "path"), UNROUTABLE)
async def test_a_browser_gets_a_400_page_for_no_such_action(
    method: str, path: str, caplog: pytest.LogCaptureFixture
) -> None:
    response = await AuthClient(make_config()).request(method, path, headers=BROWSER)
    assert_page(response, 400, "Bad request")
    assert response.header_all("set-cookie") == []
    assert logged_types(caplog) == ["UnknownAction"]


@pytest.mark.parametrize("headers", [{}, API, {**BROWSER, **RETURN_REDIRECT}])
@pytest.mark.parametrize(("method", "path"), UNROUTABLE)
async def test_an_api_client_gets_json_400_for_no_such_action(
    method: str, path: str, headers: dict[str, str]
) -> None:
    response = await AuthClient(make_config()).request(method, path, headers=headers)
    assert_json(response, 400, "Bad request.")
    assert response.header_all("set-cookie") == []


async def test_no_such_action_with_a_custom_error_page() -> None:
    client = AuthClient(make_config(pages=Pages(error="/oops")))
    response = await client.get("nope", headers=BROWSER)
    assert (response.status, response.header("location")) == (
        302,
        f"{ORIGIN}/oops?error=BadRequest",
    )


# --- the database ---------------------------------------------------------------------------


class Unreachable(MemoryAdapter):
    """A database that refuses every connection."""

    async def get_user(self, user_id: str) -> AdapterUser | None:
        raise ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 5432)")

    get_user_by_email = get_user  # type: ignore[assignment]
    get_session_and_user = get_user  # type: ignore[assignment]


async def signed_in_client(adapter: MemoryAdapter) -> AuthClient:
    client = AuthClient(make_config(adapter=MemoryAdapter()))
    await client.sign_in_with_credentials(username="ada", password="correct horse")
    assert "authjs.session-token" in client.cookies
    return AuthClient(make_config(adapter=adapter), cookies=dict(client.cookies))


def credentials_form(token: str) -> dict[str, str]:
    return {"csrfToken": token, "username": "ada", "password": "correct horse"}


async def test_an_outage_is_503_for_every_kind_of_client(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = AuthClient(make_config(adapter=Unreachable()))
    form = credentials_form(await client.csrf_token())
    answers = {
        name: await client.post("callback/credentials", form=form, headers=headers)
        for name, headers in [("browser", BROWSER), ("api", RETURN_REDIRECT), ("htmx", HTMX)]
    }
    assert_page(answers["browser"], 503, "Temporarily unavailable")
    assert "Nothing was changed" in answers["browser"].text
    error_page = f"{ORIGIN}/auth/error?error=ServiceUnavailable"
    assert_json(answers["api"], 503, {"url": error_page})
    assert (answers["htmx"].status, answers["htmx"].header("hx-redirect")) == (503, error_page)
    for answer in answers.values():
        assert answer.header("retry-after") == "30"
        assert "Configuration" not in answer.text
    assert "authjs.session-token" not in client.cookies
    assert logged_types(caplog) == ["ServiceUnavailable"] * 3


async def test_the_session_check_during_an_outage_is_503_and_keeps_the_cookie() -> None:
    client = await signed_in_client(Unreachable())
    token = client.cookies["authjs.session-token"]
    response = await client.get("session")
    assert_json(response, 503, None)
    assert response.header("retry-after") == "30"
    assert response.header("cache-control") == "private, no-cache, no-store"
    assert response.header_all("set-cookie") == []
    assert client.cookies["authjs.session-token"] == token


async def test_an_app_reading_the_session_during_an_outage_sees_none(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = await signed_in_client(Unreachable())
    cookie = "; ".join(f"{k}={v}" for k, v in client.cookies.items())
    request = Request.build("GET", f"{ORIGIN}/dashboard", headers={"cookie": cookie})
    assert await session_of(request, client.config) == (None, [])
    assert logged_types(caplog) == ["ServiceUnavailable"]


class Gone(MemoryAdapter):
    """A database that goes away once the user is signed in."""

    async def delete_session(self, session_token: str) -> AdapterSession | None:
        raise ConnectionResetError(104, "Connection reset by peer")

    get_session_and_user = delete_session  # type: ignore[assignment]


async def test_sign_out_during_an_outage_still_signs_this_browser_out(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = await signed_in_client(Gone())
    response = await client.post("signout", form={"csrfToken": await client.csrf_token()})
    assert (response.status, response.header("location")) == (302, ORIGIN)
    assert "authjs.session-token" not in client.cookies
    assert logged_types(caplog) == ["SignOutError"]


class TakenToken(MemoryAdapter):
    """A database whose unique constraint refuses the new session's token."""

    async def create_user_and_session(
        self, user: AdapterUser, session_token: str, expires: Any
    ) -> tuple[AdapterUser, AdapterSession]:
        raise ValueError('duplicate key value violates unique constraint "sessions_pkey"')


async def test_a_refused_write_is_an_adapter_error_not_configuration(
    caplog: pytest.LogCaptureFixture,
) -> None:
    adapter = TakenToken()
    client = AuthClient(make_config(adapter=adapter))
    form = credentials_form(await client.csrf_token())
    response = await client.post("callback/credentials", form=form)
    error_page = f"{ORIGIN}/auth/error?error=AdapterError"
    assert (response.status, response.header("location")) == (302, error_page)
    api = await client.post("callback/credentials", form=form, headers=RETURN_REDIRECT)
    assert_json(api, 200, {"url": error_page})
    page = await client.get("error?error=AdapterError")
    assert_page(page, 500, "Unable to sign in")
    assert "Nothing was changed" in page.text
    assert adapter.users == {}
    assert logged_types(caplog) == ["AdapterError"] * 2
    assert "create_user_and_session" in caplog.text
