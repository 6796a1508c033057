"""BoxyHQ SAML: a sign-in against a stand-in of a SAML Jackson deployment with recorded
answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui import AuthConfig, set_env_defaults
from authui.checks import oauth_provider_errors
from authui.providers.boxyhq_saml import BoxyHQSAML
from authui.providers.oauth import OAuthProvider
from tests.conftest import SECRET
from tests.oauth.standin import CLIENT_ID, CLIENT_SECRET, canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

ISSUER = "https://jackson.example.com"
JACKSON = Service(
    id="boxyhq-saml",
    authorization=f"{ISSUER}/api/oauth/authorize",
    token=f"{ISSUER}/api/oauth/token",
    userinfo=f"GET {ISSUER}/api/oauth/userinfo",
    params={"provider": "saml", "scope": "openid profile email"},
)
TOKEN = canned("boxyhq-saml/token.json")
USER = canned("boxyhq-saml/user.json")
TENANT = {"tenant": "acme-industries.example", "product": "ledger"}


async def test_sign_in_with_tenant_and_product() -> None:
    standin = JACKSON.standin(TOKEN, USER)
    outcome = await sign_in_through(BoxyHQSAML(issuer=ISSUER), standin, query=TENANT)

    check_authorization(outcome, JACKSON, **TENANT)
    check_token_request(outcome, standin, JACKSON, in_form=True)
    check_signed_in(
        outcome,
        JACKSON,
        TOKEN,
        account_id="8d1a3c5e7f9b2d4f6a8c0e1b3d5f7a9c",
        name="Tomas Lindqvist",
        email="tomas.lindqvist@acme-industries.example",
        image=None,  # Jackson never gives one
    )
    assert outcome.signed_in is not None
    profile = outcome.signed_in["profile"]
    assert profile["groups"] == ["Everyone", "Platform"]
    assert BoxyHQSAML(issuer=ISSUER).email_verified(profile) is False


async def test_the_issuer_from_the_environment_builds_the_endpoints() -> None:
    env = {
        "AUTH_SECRET": SECRET,
        "AUTH_BOXYHQ_SAML_ISSUER": f"{ISSUER}/",
        "AUTH_BOXYHQ_SAML_ID": CLIENT_ID,
        "AUTH_BOXYHQ_SAML_SECRET": CLIENT_SECRET,
    }
    (provider,) = set_env_defaults(env, AuthConfig(providers=[BoxyHQSAML()])).providers
    assert isinstance(provider, OAuthProvider)
    standin = JACKSON.standin(TOKEN, USER)
    outcome = await sign_in_through(provider, standin)

    check_authorization(outcome, JACKSON)
    check_token_request(outcome, standin, JACKSON, in_form=True)
    check_signed_in(
        outcome,
        JACKSON,
        TOKEN,
        account_id="8d1a3c5e7f9b2d4f6a8c0e1b3d5f7a9c",
        name="Tomas Lindqvist",
        email="tomas.lindqvist@acme-industries.example",
        image=None,  # Jackson never gives one
    )
    assert standin.unexpected == []


def test_without_an_issuer_the_configuration_says_which_variable_to_set() -> None:
    provider = BoxyHQSAML(client_id=CLIENT_ID, client_secret=CLIENT_SECRET)

    assert provider.authorization.url is None
    (error,) = oauth_provider_errors(provider)
    assert "AUTH_BOXYHQ_SAML_ISSUER" in str(error)


@pytest.mark.parametrize(
    ("changes", "name"),
    [
        pytest.param({"lastName": ""}, "Tomas", id="no last name"),
        pytest.param({"firstName": None, "lastName": None}, None, id="no name"),
    ],
)
async def test_profile_edges(changes: dict[str, Any], name: str | None) -> None:
    standin = JACKSON.standin(TOKEN, {**USER, **changes})
    outcome = await sign_in_through(BoxyHQSAML(issuer=ISSUER), standin)

    assert outcome.user.get("name") == name
    assert outcome.user["email"] == USER["email"]
    assert "image" not in {k for k, v in outcome.user.items() if v is not None}


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    # Jackson answers token errors with the message as plain text.
    refused = httpx.Response(403, text=canned("boxyhq-saml/token_error.json"))
    standin = JACKSON.standin(refused, USER)
    await check_sign_in_refused(BoxyHQSAML(issuer=ISSUER), standin, caplog, "answered 403")
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_asks_for_plain_oauth() -> None:
    provider = BoxyHQSAML(issuer=ISSUER, authorization={"params": {"scope": ""}})

    check_param_override(provider, JACKSON, scope="")
    assert provider.client_auth == "client_secret_post"
