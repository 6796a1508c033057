"""The core's framework-author features: raw mode, logging levels, cookie overrides."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from authui import (
    Auth,
    Callbacks,
    CookieOverride,
    InternalResponse,
    Request,
    Response,
    raw,
    skip_csrf_check,
)
from authui.errors import AccessDenied, AuthError, CredentialsSignin
from authui.testing import AuthClient
from tests.conftest import make_config


class RecordingLogger:
    def __init__(self) -> None:
        self.errors: list[AuthError] = []
        self.warnings: list[str] = []
        self.debugs: list[tuple[str, Any]] = []

    def error(self, error: AuthError) -> None:
        self.errors.append(error)

    def warn(self, code: str) -> None:
        self.warnings.append(code)

    def debug(self, message: str, metadata: Any = None) -> None:
        self.debugs.append((message, metadata))


def form_request(path: str, body: str, cookie: str = "") -> Request:
    return Request.build(
        "POST",
        f"http://localhost:3000/auth/{path}",
        headers={"content-type": "application/x-www-form-urlencoded", "cookie": cookie},
        body=body,
    )


async def test_raw_mode_returns_internal_response_with_cookies() -> None:
    config = make_config(raw=raw)
    response = await Auth(Request.build("GET", "http://localhost:3000/auth/csrf"), config)
    assert isinstance(response, InternalResponse)
    assert response.status == 200
    assert set(response.body) == {"csrfToken"}
    assert {c.name for c in response.cookies} == {"authjs.csrf-token", "authjs.callback-url"}


async def test_raw_mode_raises_auth_errors_to_the_integration() -> None:
    config = make_config(raw=raw, skip_csrf_check=skip_csrf_check)
    with pytest.raises(CredentialsSignin):
        await Auth(form_request("callback/credentials", "username=x"), config)


async def test_raw_mode_with_return_redirect_header_answers_url() -> None:
    config = make_config(raw=raw)
    request = Request.build(
        "POST",
        "http://localhost:3000/auth/callback/credentials",
        headers={"x-auth-return-redirect": "1"},
    )
    response = await Auth(request, config)
    assert isinstance(response, InternalResponse)
    assert response.body == {"url": "http://localhost:3000/auth/signin?error=MissingCSRF"}


async def test_client_safe_error_from_authorize_is_reported_as_itself() -> None:
    from authui import Credentials

    def authorize(credentials: dict[str, Any]) -> None:
        raise AccessDenied("suspended")

    client = AuthClient(make_config(providers=[Credentials(authorize=authorize)]))
    response = await client.sign_in_with_credentials(pin="1")
    assert response.header("location") == "http://localhost:3000/auth/error?error=AccessDenied"


async def test_custom_logger_gets_errors_and_no_debug_by_default() -> None:
    logger = RecordingLogger()
    client = AuthClient(make_config(logger=logger))
    await client.sign_in_with_credentials(username="ada", password="wrong")
    assert [e.type for e in logger.errors] == ["CredentialsSignin"]
    assert logger.debugs == []


async def test_debug_messages_only_with_debug_on() -> None:
    logger = RecordingLogger()

    def big(token: dict[str, Any]) -> dict[str, Any]:
        return {**token, "blob": "x" * 5000}

    client = AuthClient(make_config(logger=logger, debug=True, callbacks=Callbacks(jwt=big)))
    await client.sign_in_with_credentials(username="ada", password="correct horse")
    assert "debug-enabled" in logger.warnings
    messages = [m for m, _ in logger.debugs]
    assert "request" in messages
    assert "CHUNKING_SESSION_COOKIE" in messages
    chunking = dict(logger.debugs)["CHUNKING_SESSION_COOKIE"]
    assert chunking["chunks"] == 2


async def test_secrets_and_passwords_never_reach_the_log(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="authui")
    client = AuthClient(make_config(debug=True))
    await client.sign_in_with_credentials(username="ada", password="correct horse")
    await client.sign_in_with_credentials(username="boom", password="hunter2")
    await client.get("session")
    assert "correct horse" not in caplog.text
    assert "hunter2" not in caplog.text
    assert "test-secret-that-is-long-enough" not in caplog.text
    assert client.cookies["authjs.session-token"] not in caplog.text


async def test_cookie_overrides_are_merged() -> None:
    config = make_config(
        cookies={"session_token": CookieOverride(name="app.session", same_site="strict")}
    )
    client = AuthClient(config)
    response = await client.sign_in_with_credentials(username="ada", password="correct horse")
    session = [h for h in response.header_all("set-cookie") if h.startswith("app.session=")]
    assert len(session) == 1
    assert session[0].endswith("; HttpOnly; SameSite=Strict")
    assert (await client.get("session")).data()["user"]["name"] == "Ada Lovelace"


async def test_unknown_cookie_override_is_a_configuration_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = AuthClient(make_config(cookies={"sesion_token": CookieOverride(name="x")}))
    response = await client.get("session")
    assert response.status == 500
    assert "sesion_token" in caplog.text


async def test_auth_url_origin_replaces_the_request_host() -> None:
    config = make_config(url="https://app.example.com/auth")
    request = Request.build(
        "POST",
        "http://evil.example:8080/auth/signin",
        headers={"host": "evil.example:8080", "x-auth-return-redirect": "1"},
    )
    response = await Auth(request, config)
    assert isinstance(response, Response)
    assert response.data() == {"url": "https://app.example.com/auth/signin?error=MissingCSRF"}
