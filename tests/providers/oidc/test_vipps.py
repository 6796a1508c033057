"""Vipps MobilePay: the profile from userinfo (the id_token holds ``sub`` only), scopes
``openid name email``, PKCE + state + nonce, the test environment (apitest.vipps.no)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from authui.providers.vipps import TEST_ISSUER, Vipps
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

ISSUER = "https://api.vipps.no/access-management-1.0/access/"
SUB = "c06c4afe-d9e1-4c5d-939a-177d752a0944"
ADA = {"name": "Ada Lovelace", "email": "ada.lovelace@example.no"}


def vipps_standin(issuer: str = ISSUER, **userinfo: Any) -> OIDCStandIn:
    """Vipps at ``issuer`` (production or apitest), with the recorded answers."""
    host = issuer.removeprefix("https://").split("/")[0]
    discovery = json.loads(json.dumps(canned("vipps/discovery.json")).replace("api.vipps.no", host))
    answer = {**canned("vipps/userinfo.json"), **userinfo}
    return canned_standin("vipps", issuer, discovery=discovery, userinfo=answer)


async def test_sign_in_with_the_profile_from_userinfo() -> None:
    provider = Vipps()
    standin = vipps_standin()
    outcome = await sign_in_through(provider, standin)
    check_authorization(outcome, standin, provider, {"scope": "openid name email"})
    check_token_request(outcome, standin, provider)
    account = check_account(outcome, provider, SUB)
    assert account["scope"] == "openid name email"
    assert mapped(outcome) == ADA
    userinfo = standin.sent("GET", "https://api.vipps.no/vipps-userinfo-api/userinfo")
    assert (
        userinfo.headers["authorization"] == f"Bearer {canned('vipps/token.json')['access_token']}"
    )
    assert outcome.signed_in is not None
    profile = outcome.signed_in["profile"]
    assert profile["given_name"] == "Ada"
    assert "rat" not in profile  # an id_token claim: the profile is userinfo alone
    assert provider.email_verified(profile)
    assert standin.unexpected == []


async def test_a_user_who_shares_no_email() -> None:
    standin = vipps_standin(email=None, email_verified=None)
    outcome = await sign_in_through(Vipps(), standin)
    assert mapped(outcome) == {"name": "Ada Lovelace", "email": None}


@pytest.mark.parametrize("from_env", [False, True], ids=["issuer=", "AUTH_VIPPS_ISSUER"])
async def test_the_test_environment(from_env: bool) -> None:
    provider = issuer_from_env(Vipps(), TEST_ISSUER) if from_env else Vipps(issuer=TEST_ISSUER)
    standin = vipps_standin(TEST_ISSUER)
    outcome = await sign_in_through(provider, standin)
    assert outcome.authorization_url.startswith(f"{TEST_ISSUER}oauth2/auth?")
    assert mapped(outcome) == ADA
    assert standin.sent("GET", "https://apitest.vipps.no/vipps-userinfo-api/userinfo")
    assert standin.unexpected == []


async def test_a_sales_unit_set_to_client_secret_post() -> None:
    provider = Vipps(client_auth="client_secret_post")
    standin = vipps_standin()
    outcome = await sign_in_through(provider, standin)
    check_token_request(outcome, standin, provider)


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    standin = vipps_standin()
    refused = httpx.Response(400, json=canned("vipps/token_error.json"))
    standin.routes[f"POST {standin.discovery['token_endpoint']}"] = refused
    await check_sign_in_refused(Vipps(), standin, caplog, "invalid_grant")
