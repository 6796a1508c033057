"""Configuration: defaults, environment variables, assert_config, development mode."""

from __future__ import annotations

import dataclasses
import json
import logging
from dataclasses import dataclass

import pytest

from authui import (
    Auth,
    AuthConfig,
    Credentials,
    Request,
    SessionOptions,
    assert_config,
    is_date,
    set_env_defaults,
)
from authui.errors import (
    InvalidCallbackUrl,
    InvalidProvider,
    MissingAdapter,
    MissingAdapterMethods,
    MissingAuthorize,
    MissingSecret,
    UntrustedHost,
)
from authui.providers.base import Provider
from authui.testing import AuthClient
from tests.conftest import CREDENTIALS, ENV, SECRET


def test_defaults_match_the_specification() -> None:
    config = AuthConfig()
    assert config.session.max_age == 2_592_000
    assert config.session.update_age == 86_400
    assert config.session.strategy is None
    assert config.jwt.max_age is None
    assert config.base_path is None
    assert config.providers == ()
    assert config.debug is False
    assert config.experimental.enable_webauthn is False
    assert config.theme.color_scheme == "auto"


def test_config_is_frozen() -> None:
    config = AuthConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.debug = True  # type: ignore[misc]


def test_set_env_defaults_returns_a_new_config() -> None:
    original = AuthConfig()
    config = set_env_defaults({"AUTH_SECRET": "s"}, original)
    assert config is not original
    assert original.secret is None
    assert config.secret == ["s"]
    assert config.base_path == "/auth"


def test_secret_rotation_order_from_env() -> None:
    env = {"AUTH_SECRET": "0", "AUTH_SECRET_1": "1", "AUTH_SECRET_2": "2", "AUTH_SECRET_3": "3"}
    assert set_env_defaults(env, AuthConfig()).secret == ["3", "2", "1", "0"]
    assert set_env_defaults({"AUTH_SECRET": "0", "AUTH_SECRET_1": "1"}, AuthConfig()).secret == [
        "1",
        "0",
    ]


def test_config_secret_wins_over_env() -> None:
    config = set_env_defaults({"AUTH_SECRET": "env"}, AuthConfig(secret="own"))
    assert config.secret == "own"


def test_auth_url_sets_base_path_url_and_trust() -> None:
    config = set_env_defaults({"AUTH_URL": "https://app.example.com/api/auth"}, AuthConfig())
    assert config.base_path == "/api/auth"
    assert config.url == "https://app.example.com/api/auth"
    assert config.trust_host is True


def test_auth_url_without_path_keeps_default_base_path() -> None:
    config = set_env_defaults({"AUTH_URL": "https://app.example.com"}, AuthConfig())
    assert config.base_path == "/auth"


def test_base_path_and_auth_url_path_warns(caplog: pytest.LogCaptureFixture) -> None:
    config = set_env_defaults(
        {"AUTH_URL": "https://app.example.com/api/auth"}, AuthConfig(base_path="/auth")
    )
    assert config.base_path == "/auth"
    assert "env-url-basepath-redundant" in caplog.text
    caplog.clear()
    set_env_defaults(
        {"AUTH_URL": "https://a.com/x"},
        AuthConfig(base_path="/auth"),
        suppress_base_path_warning=True,
    )
    assert "env-url-basepath-redundant" not in caplog.text


@pytest.mark.parametrize(
    ("value", "trusted"),
    [("true", True), ("1", True), ("yes", True), ("false", False), ("0", False), ("", False)],
)
def test_trust_host_is_read_as_a_boolean_word(value: str, trusted: bool) -> None:
    assert set_env_defaults({"AUTH_TRUST_HOST": value}, AuthConfig()).trust_host is trusted


def test_host_untrusted_by_default_but_trusted_in_development() -> None:
    assert set_env_defaults({}, AuthConfig()).trust_host is False
    assert set_env_defaults({"AUTH_DEVELOPMENT": "true"}, AuthConfig()).trust_host is True
    assert set_env_defaults({}, AuthConfig(trust_host=True)).trust_host is True


def test_redirect_proxy_url_from_env() -> None:
    config = set_env_defaults({"AUTH_REDIRECT_PROXY_URL": "https://proxy/auth"}, AuthConfig())
    assert config.redirect_proxy_url == "https://proxy/auth"


@dataclass(frozen=True, slots=True, kw_only=True)
class FakeOAuth(Provider):
    """A provider with the OAuth credential fields, to check env inference."""

    client_id: str | None = None
    client_secret: str | None = None
    issuer: str | None = None


def test_provider_credentials_from_env() -> None:
    env = {
        "AUTH_MICROSOFT_ENTRA_ID_ID": "cid",
        "AUTH_MICROSOFT_ENTRA_ID_SECRET": "csecret",
        "AUTH_MICROSOFT_ENTRA_ID_ISSUER": "https://login.example/v2.0",
        "AUTH_GITHUB_ID": "gh",
    }
    entra = FakeOAuth(id="microsoft-entra-id", name="Entra", type="oidc")
    github = FakeOAuth(id="github", name="GitHub", type="oauth", client_id="own")
    config = set_env_defaults(env, AuthConfig(providers=[entra, github]))
    resolved = {p.id: p for p in config.providers}
    assert resolved["microsoft-entra-id"] == FakeOAuth(
        id="microsoft-entra-id",
        name="Entra",
        type="oidc",
        client_id="cid",
        client_secret="csecret",
        issuer="https://login.example/v2.0",
    )
    assert resolved["github"] == FakeOAuth(
        id="github", name="GitHub", type="oauth", client_id="own"
    )


# -- assert_config -----------------------------------------------------------------------


def ok_config(**fields: object) -> AuthConfig:
    base = AuthConfig(secret=SECRET, trust_host=True, providers=[CREDENTIALS])
    return dataclasses.replace(base, **fields)  # type: ignore[arg-type]


def error_types(config: AuthConfig, request: Request | None = None) -> list[type]:
    return [type(e) for e in assert_config(config, request).errors]


def test_valid_config_has_no_errors() -> None:
    check = assert_config(ok_config(trusted_hosts=["app.example.com"]))
    assert check.errors == []
    assert check.warnings == []


def test_missing_secret() -> None:
    assert error_types(ok_config(secret=None)) == [MissingSecret]
    assert error_types(ok_config(secret=[])) == [MissingSecret]


def test_missing_secret_is_fine_in_development() -> None:
    assert error_types(ok_config(secret=None, development=True)) == []


def test_untrusted_host_needs_a_request() -> None:
    config = ok_config(trust_host=False)
    assert error_types(config) == []
    request = Request.build("GET", "https://app.example.com/auth/session")
    assert error_types(config, request) == [UntrustedHost]
    fixed = ok_config(trust_host=False, url="https://app.example.com/auth")
    assert error_types(fixed, request) == []


def test_order_of_errors_follows_auth_js() -> None:
    config = ok_config(trust_host=False, secret=None)
    request = Request.build(
        "GET",
        "https://app.example.com/auth/signin?callbackUrl=ftp%3A%2F%2Fx",
        headers={"cookie": "authjs.callback-url=mailto%3Ax"},
    )
    check = assert_config(config, request, callback_url_cookie_name="authjs.callback-url")
    assert [type(e) for e in check.errors] == [
        UntrustedHost,
        MissingSecret,
        InvalidCallbackUrl,
        InvalidCallbackUrl,
    ]


@pytest.mark.parametrize("value", ["/dashboard", "https://app.example.com/x", "http://other.com"])
def test_valid_callback_urls(value: str) -> None:
    request = Request.build("GET", f"https://app.example.com/auth/signin?callbackUrl={value}")
    assert error_types(ok_config(), request) == []


def test_credentials_only_with_database_strategy_is_supported() -> None:
    """Auth.js refuses it (UnsupportedStrategy); authui stores credentials users."""
    from authui.adapters import MemoryAdapter

    config = ok_config(session=SessionOptions(strategy="database"), adapter=MemoryAdapter())
    assert error_types(config) == []
    incomplete = ok_config(session=SessionOptions(strategy="database"), adapter=object())
    assert error_types(incomplete) == [MissingAdapterMethods, MissingAdapterMethods]


def test_credentials_without_authorize() -> None:
    assert error_types(ok_config(providers=[Credentials()])) == [MissingAuthorize]


def test_duplicate_provider_ids() -> None:
    assert error_types(ok_config(providers=[CREDENTIALS, CREDENTIALS])) == [InvalidProvider]


def test_database_strategy_needs_adapter_and_methods() -> None:
    other = FakeOAuth(id="github", name="GitHub", type="oauth")
    database = SessionOptions(strategy="database")
    assert error_types(ok_config(providers=[other], session=database)) == [MissingAdapter]

    class HalfAdapter:
        async def create_user(self) -> None: ...

    errors = assert_config(ok_config(providers=[other], adapter=HalfAdapter())).errors
    assert [type(e) for e in errors] == [MissingAdapterMethods]
    assert "get_session_and_user" in errors[0].detail


def test_warnings() -> None:
    from authui import Experimental, skip_csrf_check

    config = ok_config(
        secret="short",
        debug=True,
        skip_csrf_check=skip_csrf_check,
        experimental=Experimental(enable_webauthn=True),
    )
    assert assert_config(config).warnings == [
        "weak-secret",
        "debug-enabled",
        "csrf-disabled",
        "experimental-webauthn",
        "any-host-trusted",
    ]


# -- development mode ---------------------------------------------------------------------


async def test_development_mode_makes_up_a_secret_loudly(caplog: pytest.LogCaptureFixture) -> None:
    config = AuthConfig(providers=[CREDENTIALS], development=True, trust_host=True)
    client = AuthClient(config)
    response = await client.sign_in_with_credentials(username="ada", password="correct horse")
    assert response.status == 302
    assert (await client.get("session")).data()["user"]["name"] == "Ada Lovelace"
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert any("dev-secret-generated" in r.getMessage() for r in warnings)
    assert any("DEVELOPMENT MODE" in r.getMessage() for r in warnings)


async def test_missing_secret_outside_development_is_an_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    config = AuthConfig(providers=[CREDENTIALS], trust_host=True)
    response = await Auth(Request.build("GET", "http://localhost/auth/session"), config)
    assert response.status == 500
    assert "MissingSecret" in caplog.text


async def test_static_config_errors_are_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    config = AuthConfig(providers=[CREDENTIALS], trust_host=True)
    for _ in range(3):
        await Auth(Request.build("GET", "http://localhost/auth/session"), config)
    assert caplog.text.count("MissingSecret") == 1


# -- is_date -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-12-21T12:57:46.596Z", True),
        ("2026-12-21", True),
        ("2026-12-21T12:57:46+02:00", True),
        ("2026-02-30", False),
        ("yesterday", False),
        ("", False),
        (20261221, False),
        (None, False),
    ],
)
def test_is_date(value: object, expected: bool) -> None:
    assert is_date(value) is expected


def test_validate_config_raises_missing_secret_at_start_up() -> None:
    from authui import validate_config

    with pytest.raises(MissingSecret):
        validate_config(AuthConfig(providers=[CREDENTIALS], trust_host=True))


def test_validate_config_accepts_development_mode(caplog: pytest.LogCaptureFixture) -> None:
    from authui import validate_config

    validate_config(AuthConfig(providers=[CREDENTIALS], development=True))
    assert "dev-secret-generated" in caplog.text
    validate_config(set_env_defaults(ENV, AuthConfig(providers=[CREDENTIALS])))


def test_validate_config_refuses_an_untrusted_host_at_start_up() -> None:
    from authui import validate_config

    with pytest.raises(UntrustedHost):
        validate_config(
            set_env_defaults({"AUTH_SECRET": SECRET}, AuthConfig(providers=[CREDENTIALS]))
        )


async def test_the_core_completes_a_configuration_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``Auth(request, config)`` alone reads ``AUTH_SECRET`` and ``AUTH_URL``, as every
    integration does: no ``set_env_defaults`` call is needed, and what it resolves to is
    kept on the configuration object."""
    monkeypatch.setenv("AUTH_SECRET", SECRET)
    monkeypatch.setenv("AUTH_URL", "https://app.example.com/account/auth")
    config = AuthConfig(providers=[CREDENTIALS])
    client = AuthClient(config, origin="https://app.example.com", base_path="/account/auth")
    providers = await client.get("providers")
    assert providers.status == 200
    assert json.loads(providers.body)["credentials"]["signinUrl"] == (
        "https://app.example.com/account/auth/signin/credentials"
    )
    assert config.resolved is not None
    assert config.resolved.config.secret == [SECRET]
