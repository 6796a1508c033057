from __future__ import annotations

import logging
from typing import Any

import pytest

from authui import AuthConfig, Credentials, CredentialsSignin, set_env_defaults
from authui.logger import reset_warnings
from authui.testing import AuthClient

SECRET = "test-secret-that-is-long-enough-for-authui-0123"
ENV = {"AUTH_SECRET": SECRET, "AUTH_TRUST_HOST": "true"}
USER = {"id": "42", "name": "Ada Lovelace", "email": "ada@example.com", "image": "https://x/a.png"}


class LockedAccount(CredentialsSignin):
    code = "locked"


async def authorize(credentials: dict[str, Any], request: Any) -> dict[str, Any] | None:
    """Accept ada/correct horse; refuse 'locked' with its own code; crash on 'boom'."""
    if credentials.get("username") == "locked":
        raise LockedAccount("account locked")
    if credentials.get("username") == "boom":
        raise RuntimeError("database is down")
    if credentials.get("username") == "ada" and credentials.get("password") == "correct horse":
        return dict(USER)
    return None


CREDENTIALS = Credentials(
    credentials={
        "username": {"label": "Username", "autocomplete": "username"},
        "password": {"label": "Password", "type": "password"},
    },
    authorize=authorize,
)


def make_config(**overrides: Any) -> AuthConfig:
    """A valid config with the test credentials provider; keyword arguments override."""
    fields: dict[str, Any] = {"providers": [CREDENTIALS]}
    fields.update(overrides)
    return set_env_defaults(ENV, AuthConfig(**fields))


@pytest.fixture
def config() -> AuthConfig:
    return make_config()


@pytest.fixture
def client(config: AuthConfig) -> AuthClient:
    return AuthClient(config)


@pytest.fixture(autouse=True)
def _capture_authui_logs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="authui")
    reset_warnings()  # each test sees the warnings a fresh process logs
