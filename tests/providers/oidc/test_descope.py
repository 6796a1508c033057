"""Descope: the issuer derived from the client id (the project id), or an application's
issuer from AUTH_DESCOPE_ISSUER; PKCE and state; Basic client auth."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui import AuthConfig, set_env_defaults
from authui.providers.descope import Descope, descope_issuer
from authui.providers.oauth import OAuthProvider
from tests.oauth.standin import CLIENT_ID, OIDCStandIn, canned, sign_in_through
from tests.providers.oauth2.plain_oauth import check_sign_in_refused
from tests.providers.oidc.common import (
    canned_standin,
    check_account,
    check_authorization,
    check_token_request,
    issuer_from_env,
    mapped,
)

PROJECT = "P2pKq7XbLrT9w1Yc3Zf6HnJ8sDvA"
SUB = "U2pKr8YcMsU0x2Zd4Ag7IoK9tEwB"
MARY = {
    "name": "Mary Jackson",
    "email": "mary.jackson@example.com",
    "image": "https://static.descope.com/pictures/U2pKr8YcMsU0x2Zd4Ag7IoK9tEwB.png",
}


def descope_standin(issuer: str, **kwargs: Any) -> OIDCStandIn:
    """The recorded project, answering as the project (or application) at ``issuer``."""
    discovery = {
        **canned("descope/discovery.json"),
        "issuer": issuer,
        "jwks_uri": f"{issuer}/.well-known/jwks.json",
    }
    return canned_standin("descope", issuer, discovery=discovery, **kwargs)


def test_the_project_id_makes_the_issuer() -> None:
    provider = Descope(client_id=PROJECT)
    assert provider.issuer == f"https://api.descope.com/{PROJECT}"
    assert provider.issuer == canned("descope/discovery.json")["issuer"]
    assert provider.default_issuer  # AUTH_DESCOPE_ISSUER may replace it


async def test_sign_in_at_the_issuer_of_the_client_id() -> None:
    provider = Descope(client_id=CLIENT_ID)
    standin = descope_standin(descope_issuer(CLIENT_ID))
    outcome = await sign_in_through(provider, standin)
    check_authorization(outcome, standin, provider, {"scope": "openid profile email"})
    assert provider.checks == ("pkce", "state")
    check_token_request(outcome, standin, provider)
    account = check_account(outcome, provider, SUB)
    assert account["refresh_token"] == canned("descope/token.json")["refresh_token"]
    assert mapped(outcome) == MARY
    assert outcome.signed_in is not None
    profile = outcome.signed_in["profile"]
    assert provider.email_verified(profile)
    assert profile["phone_number_verified"] is False
    assert standin.unexpected == []


async def test_an_application_issuer_from_the_environment_replaces_the_derived_one() -> None:
    application = f"https://api.descope.com/v1/apps/{PROJECT}"
    provider = issuer_from_env(Descope(client_id=CLIENT_ID), application)
    assert provider.issuer == application
    outcome = await sign_in_through(provider, descope_standin(application))
    assert outcome.account["providerAccountId"] == SUB


@pytest.mark.parametrize(
    "provider",
    [
        Descope(issuer="https://auth.example.com/P2x"),
        Descope(client_id=PROJECT, issuer="https://auth.example.com/P2x"),
    ],
    ids=["issuer only", "client id and issuer"],
)
def test_a_given_issuer_wins(provider: OAuthProvider) -> None:
    assert provider.issuer == "https://auth.example.com/P2x"
    assert not provider.default_issuer


def test_a_client_id_from_the_environment_makes_the_issuer_too() -> None:
    """``AUTH_DESCOPE_ID``, read after the provider was made, still names the project."""
    assert Descope().issuer is None
    config = set_env_defaults(
        {"AUTH_DESCOPE_ID": PROJECT, "AUTH_DESCOPE_SECRET": "key"},
        AuthConfig(providers=[Descope()]),
    )
    (provider,) = config.providers
    assert isinstance(provider, OAuthProvider)
    assert provider.issuer == descope_issuer(PROJECT)
    assert provider.default_issuer  # AUTH_DESCOPE_ISSUER may still replace it


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    standin = descope_standin(descope_issuer(CLIENT_ID))
    refused = httpx.Response(400, json=canned("descope/token_error.json"))
    standin.routes[f"POST {standin.discovery['token_endpoint']}"] = refused
    provider = Descope(client_id=CLIENT_ID)
    await check_sign_in_refused(provider, standin, caplog, "Invalid authorization code")
