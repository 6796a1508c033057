"""Osso: a sign-in against a stand-in of an Osso server with recorded answers."""

from __future__ import annotations

import httpx
import pytest

from authui import AuthConfig, set_env_defaults, validate_config
from authui.errors import InvalidEndpoints
from authui.providers.oauth import OAuthProvider
from authui.providers.osso import Osso
from tests.conftest import make_config
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_token_request,
)

ISSUER = "https://sso.acme-widgets.example/"
OSSO = Service(
    id="osso",
    authorization="https://sso.acme-widgets.example/oauth/authorize",
    token="https://sso.acme-widgets.example/oauth/token",
    userinfo="GET https://sso.acme-widgets.example/oauth/me",
    params={},
    checks=("state",),
)
TOKEN = canned("osso/token.json")
USER = canned("osso/user.json")


async def test_sign_in() -> None:
    standin = OSSO.standin(TOKEN, USER)
    query = {"domain": "acme-widgets.example"}
    outcome = await sign_in_through(Osso(issuer=ISSUER), standin, query=query)

    check_authorization(outcome, OSSO, **query)
    check_token_request(outcome, standin, OSSO)
    # Osso gives no name and no picture: the user and the session have neither.
    assert {k: v for k, v in outcome.user.items() if k != "id"} == {"email": USER["email"]}
    assert outcome.session["user"] == {"email": USER["email"]}
    assert outcome.account["providerAccountId"] == USER["id"]
    assert outcome.account["token_type"] == "bearer"
    me = standin.sent("GET", "https://sso.acme-widgets.example/oauth/me")
    assert me.headers["authorization"] == f"Bearer {TOKEN['access_token']}"
    assert outcome.signed_in is not None
    assert outcome.signed_in["profile"]["idp"] == "Okta"
    assert Osso().email_verified(outcome.signed_in["profile"]) is False


@pytest.mark.parametrize("issuer", ["https://sso.acme-widgets.example", ISSUER])
def test_the_endpoints_follow_an_issuer_from_the_environment(issuer: str) -> None:
    env = {"AUTH_OSSO_ID": "id", "AUTH_OSSO_SECRET": "s", "AUTH_OSSO_ISSUER": issuer}
    [provider] = set_env_defaults(env, AuthConfig(providers=[Osso()])).providers

    assert isinstance(provider, OAuthProvider)
    assert provider.issuer == issuer
    check_param_override(provider, OSSO)
    assert provider.userinfo.url == "https://sso.acme-widgets.example/oauth/me"


def test_without_an_issuer_the_configuration_names_the_variable() -> None:
    provider = Osso(client_id="id", client_secret="s")

    assert provider.authorization.url is None
    with pytest.raises(InvalidEndpoints, match="AUTH_OSSO_ISSUER"):
        validate_config(make_config(providers=[provider]))


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("osso/token_error.json"))
    standin = OSSO.standin(refused, USER)
    await check_sign_in_refused(Osso(issuer=ISSUER), standin, caplog, "answered 400: invalid_grant")
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_merges_params_and_keeps_given_urls() -> None:
    provider = Osso(
        issuer=ISSUER,
        authorization={"params": {"domain": "acme-widgets.example"}},
        userinfo="https://profiles.acme-widgets.example/me",
    )

    assert dict(provider.authorization.params) == {"domain": "acme-widgets.example"}
    assert provider.authorization.url == OSSO.authorization
    assert provider.userinfo.url == "https://profiles.acme-widgets.example/me"
    assert provider.checks == ("state",)
