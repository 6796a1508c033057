"""Salesforce: the profile from userinfo (its sub the id_token's identity URL), PKCE +
state + nonce, a token answer without expiry, a sandbox through AUTH_SALESFORCE_ISSUER."""

from __future__ import annotations

import json

import httpx
import pytest

from authui.providers.salesforce import SANDBOX_ISSUER, Salesforce
from tests.oauth.standin import OIDCStandIn, canned, sign_in_through
from tests.providers.oauth2.plain_oauth import check_sign_in_refused
from tests.providers.oidc.common import (
    canned_standin,
    check_account,
    check_authorization,
    check_token_request,
    issuer_from_env,
    mapped,
)

ISSUER = "https://login.salesforce.com"
USERINFO = "https://login.salesforce.com/services/oauth2/userinfo"
SUB = "https://login.salesforce.com/id/00D5g000008ABCDEAZ/0055g00000DEFGHQA5"
DOROTHY = {
    "name": "Dorothy Vaughan",
    "email": "dorothy.vaughan@acme.example.com",
    "image": "https://acme.file.force.com/profilephoto/7295g000000AbCd/F",
}


def salesforce_standin(issuer: str = ISSUER) -> OIDCStandIn:
    """Salesforce at ``issuer`` (login or a sandbox), with the recorded answers."""
    host = issuer.removeprefix("https://")
    discovery = json.loads(
        json.dumps(canned("salesforce/discovery.json")).replace("login.salesforce.com", host)
    )
    claims = {
        **canned("salesforce/id_token.json"),
        "sub": SUB.replace("login.salesforce.com", host),
    }
    userinfo = {**canned("salesforce/userinfo.json"), "sub": claims["sub"]}
    return canned_standin(
        "salesforce", issuer, discovery=discovery, claims=claims, userinfo=userinfo
    )


async def test_sign_in_with_the_profile_from_userinfo() -> None:
    provider = Salesforce()
    standin = salesforce_standin()
    outcome = await sign_in_through(provider, standin)
    check_authorization(outcome, standin, provider, {"scope": "openid profile email"})
    check_token_request(outcome, standin, provider)
    account = check_account(outcome, provider, SUB)
    assert "expires_at" not in account  # Salesforce sends no expires_in
    assert account["instance_url"] == "https://acme.my.salesforce.com"
    assert mapped(outcome) == DOROTHY
    userinfo = standin.sent("GET", USERINFO)
    assert (
        userinfo.headers["authorization"]
        == f"Bearer {canned('salesforce/token.json')['access_token']}"
    )
    assert outcome.signed_in is not None
    profile = outcome.signed_in["profile"]
    assert profile["user_id"] == "0055g00000DEFGHQA5"  # userinfo's, not in the id_token
    assert "at_hash" not in profile  # the profile is userinfo alone
    assert provider.email_verified(profile)
    assert standin.unexpected == []


async def test_a_sandbox_from_the_environment() -> None:
    provider = issuer_from_env(Salesforce(), SANDBOX_ISSUER)
    assert provider.issuer == SANDBOX_ISSUER
    standin = salesforce_standin(SANDBOX_ISSUER)
    outcome = await sign_in_through(provider, standin)
    assert outcome.account["providerAccountId"].startswith("https://test.salesforce.com/id/")
    assert outcome.authorization_url.startswith(f"{SANDBOX_ISSUER}/services/oauth2/authorize?")
    assert standin.unexpected == []


async def test_userinfo_of_another_user_is_refused(caplog: pytest.LogCaptureFixture) -> None:
    standin = salesforce_standin()
    other = {
        **canned("salesforce/userinfo.json"),
        "sub": f"{ISSUER}/id/00D5g000008ABCDEAZ/0055g0000OTHER",
    }
    standin.routes[f"GET {USERINFO}"] = other
    await check_sign_in_refused(Salesforce(), standin, caplog, "sub is not the id_token's")


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    standin = salesforce_standin()
    refused = httpx.Response(400, json=canned("salesforce/token_error.json"))
    standin.routes[f"POST {standin.discovery['token_endpoint']}"] = refused
    await check_sign_in_refused(Salesforce(), standin, caplog, "expired authorization code")
    assert not any(str(r.url) == USERINFO for r in standin.requests)
