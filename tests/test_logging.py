"""What authui writes to the log: one line per client error or outage, the sign-ins and
sign-outs with the user's id and the client's address (never an email or a secret), debug
output that shows up, and configured loggers that may lack levels."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from authui import AuthConfig, Credentials, SessionOptions, set_env_defaults
from authui.adapters.memory import MemoryAdapter
from authui.errors import AuthError, CallbackRouteError, ServiceUnavailable, TooManyAttempts
from authui.logger import StandardLogger
from authui.options import resolve
from authui.testing import AuthClient
from tests.conftest import CREDENTIALS, ENV, USER, authorize, make_config

PASSWORD = "correct horse"


def authui_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "authui"]


def lines(caplog: pytest.LogCaptureFixture, prefix: str) -> list[dict[str, Any]]:
    """The metadata of the ``[auth][<level>][<event>]`` lines starting with ``prefix``."""
    found = []
    for record in authui_records(caplog):
        message = record.getMessage()
        if message.startswith(prefix):
            found.append(json.loads(message.removeprefix(prefix)))
    return found


async def signed_in_client(config: AuthConfig, address: str = "203.0.113.7") -> AuthClient:
    client = AuthClient(config, client_address=address)
    response = await client.sign_in_with_credentials(username="ada", password=PASSWORD)
    assert response.status == 302
    assert (await client.get("session")).data()["user"]["email"] == USER["email"]
    return client


# --- one line per client error or outage ------------------------------------------------------


def test_an_outage_is_one_line_without_a_traceback(caplog: pytest.LogCaptureFixture) -> None:
    cause = ConnectionRefusedError("connection to the database refused")
    StandardLogger().error(ServiceUnavailable(cause={"err": cause, "method": "get_user"}))
    (record,) = authui_records(caplog)
    assert record.exc_info is None
    message = record.getMessage()
    assert message.startswith("[auth][error] ServiceUnavailable: ")
    assert "connection to the database refused" in message
    assert '"method": "get_user"' in message
    assert "\n" not in caplog.text.strip()


def test_a_bug_keeps_its_traceback(caplog: pytest.LogCaptureFixture) -> None:
    try:
        raise ZeroDivisionError("division by zero")
    except ZeroDivisionError as exc:
        StandardLogger().error(CallbackRouteError(cause={"err": exc, "provider": "github"}))
    (record,) = authui_records(caplog)
    assert record.exc_info is not None
    assert "Traceback (most recent call last)" in caplog.text
    assert '"provider": "github"' in record.getMessage()


async def test_a_throttled_sign_in_logs_no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    def throttled(credentials: dict[str, Any]) -> None:
        raise TooManyAttempts("too many", retry_after=60, cause={"err": RuntimeError("limit")})

    config = make_config(providers=[Credentials(authorize=throttled)])
    response = await AuthClient(config).sign_in_with_credentials(username="ada")
    assert response.status == 429
    records = [r for r in authui_records(caplog) if "[auth][warn][" not in r.getMessage()]
    assert [r.getMessage().split(" ")[0] for r in records] == ["[auth][warning][sign-in-throttled]"]
    assert all(r.exc_info is None for r in records)
    assert "Traceback" not in caplog.text


# --- what happens to users ----------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["jwt", "database"])
async def test_sign_in_and_sign_out_are_logged_with_user_id_and_client(
    caplog: pytest.LogCaptureFixture, strategy: str
) -> None:
    adapter = MemoryAdapter() if strategy == "database" else None
    config = make_config(adapter=adapter, session=SessionOptions(strategy=strategy))  # type: ignore[arg-type]
    client = await signed_in_client(config)
    assert lines(caplog, "[auth][info][sign-in] ") == [
        {"provider": "credentials", "user_id": USER["id"], "client": "203.0.113.7"}
    ]
    session_cookie = next(v for k, v in client.cookies.items() if "session-token" in k)

    await client.post("signout", form={"csrfToken": await client.csrf_token()})
    assert (await client.get("session")).data() is None
    assert lines(caplog, "[auth][info][sign-out] ") == [
        {"provider": None, "user_id": USER["id"], "client": "203.0.113.7"}
    ]
    logged = caplog.text
    for secret in (USER["email"], PASSWORD, session_cookie, ENV["AUTH_SECRET"]):
        assert secret not in logged


async def test_failed_and_throttled_sign_ins_are_warnings(caplog: pytest.LogCaptureFixture) -> None:
    attempts = 0

    async def limited(credentials: dict[str, Any], request: Any) -> dict[str, Any] | None:
        nonlocal attempts
        attempts += 1
        if attempts > 2:
            raise TooManyAttempts("3 attempts in a minute", retry_after=42)
        return await authorize(credentials, request)

    config = make_config(providers=[Credentials(authorize=limited)])
    client = AuthClient(config, client_address="198.51.100.4")
    await client.sign_in_with_credentials(username="ada", password="wrong")
    await client.sign_in_with_credentials(username="locked", password=PASSWORD)
    throttled = await client.sign_in_with_credentials(username="ada", password=PASSWORD)
    assert throttled.status == 429
    client_only = {"provider": "credentials", "client": "198.51.100.4"}
    assert lines(caplog, "[auth][warning][sign-in-failed] ") == [
        {**client_only, "error": "CredentialsSignin", "code": "credentials"},
        {**client_only, "error": "CredentialsSignin", "code": "locked", "reason": "account locked"},
    ]
    assert lines(caplog, "[auth][warning][sign-in-throttled] ") == [
        {**client_only, "retry_after": 42}
    ]
    warnings = [r for r in authui_records(caplog) if "[auth][warning]" in r.getMessage()]
    assert {r.levelno for r in warnings} == {logging.WARNING}
    assert "wrong" not in caplog.text


# --- debug=True ---------------------------------------------------------------------------------


@contextlib.contextmanager
def bare_logging() -> Iterator[logging.Logger]:
    """Python's logging as a script leaves it: no handlers (not even pytest's, which it adds
    as each test phase starts), the ``authui`` logger's level unset."""
    root = logging.getLogger()
    log = logging.getLogger("authui")
    saved = (root.handlers[:], log.handlers[:], log.level)
    root.handlers.clear()
    log.handlers.clear()
    log.setLevel(logging.NOTSET)
    try:
        yield log
    finally:
        root.handlers[:], log.handlers[:] = saved[0], saved[1]
        log.setLevel(saved[2])


async def test_debug_shows_debug_lines_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    with bare_logging() as log:
        await signed_in_client(make_config(debug=True))
        assert log.level == logging.DEBUG
        assert len(log.handlers) == 1
    stderr = capsys.readouterr().err
    assert "[auth][warn][debug-enabled]" in stderr
    assert "[auth][debug]: request" in stderr
    assert '[auth][info][sign-in] {"provider": "credentials"' in stderr


class Recording(logging.Handler):
    """A handler of the app's own."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


async def test_debug_keeps_the_apps_handlers(capsys: pytest.CaptureFixture[str]) -> None:
    handler = Recording()
    with bare_logging() as log:
        logging.getLogger().addHandler(handler)
        await signed_in_client(make_config(debug=True))
        assert log.handlers == []
    assert any(r.getMessage().startswith("[auth][debug]: request") for r in handler.records)
    assert capsys.readouterr().err == ""


# --- loggers with some levels only ------------------------------------------------------------


class OnlyErrors:
    def __init__(self) -> None:
        self.errors: list[AuthError] = []

    def error(self, error: AuthError) -> None:
        self.errors.append(error)


class OnlyWarnings:
    def __init__(self) -> None:
        self.codes: list[str] = []

    def warn(self, code: str) -> None:
        self.codes.append(code)


async def test_a_logger_with_only_error(caplog: pytest.LogCaptureFixture) -> None:
    logger = OnlyErrors()
    config = make_config(logger=logger, debug=True)
    client = await signed_in_client(config)
    refused = await client.sign_in_with_credentials(username="ada", password="wrong")
    assert refused.status == 302
    assert [e.type for e in logger.errors] == ["CredentialsSignin"]
    # The levels it lacks went to the default logger.
    assert "[auth][warn][debug-enabled]" in caplog.text
    assert "[auth][debug]: request" in caplog.text
    assert len(lines(caplog, "[auth][info][sign-in] ")) == 1


async def test_a_logger_with_only_warn(caplog: pytest.LogCaptureFixture) -> None:
    logger = OnlyWarnings()
    client = AuthClient(make_config(logger=logger, debug=True))
    refused = await client.sign_in_with_credentials(username="ada", password="wrong")
    assert str(refused.header("location")).endswith("error=CredentialsSignin&code=credentials")
    assert "debug-enabled" in logger.codes
    assert "[auth][debug]: request" in caplog.text
    assert "[auth][error]" not in caplog.text  # the refusal is one warning
    assert len(lines(caplog, "[auth][warning][sign-in-failed] ")) == 1


# --- warnings, once per process ---------------------------------------------------------------


def test_each_warning_is_logged_once_however_many_configurations(
    caplog: pytest.LogCaptureFixture,
) -> None:
    configs = [
        set_env_defaults(ENV, AuthConfig(providers=[CREDENTIALS], debug=True)) for _ in range(3)
    ]
    for config in configs:
        resolve(config)
    assert caplog.text.count("[auth][warn][debug-enabled]") == 1


async def test_a_logger_with_only_warn_in_an_app_reading_the_session(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from quart import Quart

    from authui.quart import AuthUI

    app = Quart(__name__)
    auth_ui = AuthUI(app, make_config(logger=OnlyWarnings()))

    @app.get("/")
    async def home() -> str:
        return "signed in" if await auth_ui.auth() else "signed out"

    response = await app.test_client().get("/", headers={"Cookie": "authjs.session-token=forged"})
    assert (response.status_code, await response.get_data(as_text=True)) == (200, "signed out")
    assert "[auth][error] JWTSessionError" in caplog.text
