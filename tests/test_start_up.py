"""Starting an app: every configuration problem reported at once; development mode without
a secret keeps one secret for the whole process."""

from __future__ import annotations

import pytest
from quart import Quart

from authui import AuthConfig, Theme, validate_config
from authui.errors import AuthError, InvalidProvider, MissingSecret
from authui.providers.github import GitHub
from authui.quart import AuthUI
from tests.conftest import CREDENTIALS

MISSING_SECRET = "Please define a `secret` (AUTH_SECRET)"
NO_CLIENT_ID = "Provider 'github' has no client_id: set AUTH_GITHUB_ID"
NO_THEME_PACK = "Theme pack 'no-such-pack' is not installed"


def broken_config() -> AuthConfig:
    """No secret, an OAuth provider without its client id, a theme pack nobody installed."""
    github = GitHub(client_secret="github-secret")
    return AuthConfig(
        providers=[CREDENTIALS, github], theme=Theme(pack="no-such-pack"), trust_host=True
    )


def assert_names_every_problem(error: AuthError) -> None:
    assert isinstance(error, MissingSecret)
    message = str(error)
    for problem in (MISSING_SECRET, NO_CLIENT_ID, NO_THEME_PACK):
        assert problem in message
    assert [type(e) for e in error.errors] == [MissingSecret, InvalidProvider, AuthError]


def test_validate_config_reports_every_problem_at_once() -> None:
    with pytest.raises(MissingSecret) as raised:
        validate_config(broken_config())
    assert_names_every_problem(raised.value)


def test_an_app_stops_at_start_up_naming_every_problem() -> None:
    with pytest.raises(MissingSecret) as raised:
        AuthUI(Quart(__name__), broken_config())
    assert_names_every_problem(raised.value)


def test_one_problem_is_raised_as_it_is() -> None:
    with pytest.raises(MissingSecret) as raised:
        validate_config(AuthConfig(providers=[CREDENTIALS], trust_host=True))
    assert str(raised.value).startswith(MISSING_SECRET)
    assert [type(e) for e in raised.value.errors] == [MissingSecret]


async def test_a_lazy_config_in_development_mode_keeps_one_secret() -> None:
    """A configuration made for each request, in development mode without a secret: the
    CSRF token of one request is good in the next (one secret for the process)."""
    app = Quart(__name__)

    def config_for(request: object) -> AuthConfig:
        return AuthConfig(providers=[CREDENTIALS], development=True)

    AuthUI(app, config_for)
    client = app.test_client()
    token = (await (await client.get("/auth/csrf")).get_json())["csrfToken"]
    response = await client.post(
        "/auth/callback/credentials",
        form={"csrfToken": token, "username": "ada", "password": "correct horse"},
    )
    assert (response.status_code, response.headers["Location"]) == (302, "http://localhost")
    session = await (await client.get("/auth/session")).get_json()
    assert session["user"]["name"] == "Ada Lovelace"
