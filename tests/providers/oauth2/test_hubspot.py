"""HubSpot: a sign-in against a stand-in of app.hubspot.com and api.hubapi.com with
recorded answers."""

from __future__ import annotations

import dataclasses
from typing import Any

import httpx
import pytest

from authui.providers.hubspot import HubSpot
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

TOKEN = canned("hubspot/token.json")
TOKEN_INFO = canned("hubspot/token_info.json")
HUBSPOT = Service(
    id="hubspot",
    authorization="https://app.hubspot.com/oauth/authorize",
    token="https://api.hubapi.com/oauth/v1/token",
    userinfo=f"GET https://api.hubapi.com/oauth/v1/access-tokens/{TOKEN['access_token']}",
    params={"scope": "oauth"},
    checks=("state",),
)


async def test_sign_in() -> None:
    standin = HUBSPOT.standin(TOKEN, TOKEN_INFO)
    outcome = await sign_in_through(HubSpot(), standin)

    check_authorization(outcome, HUBSPOT)
    check_token_request(outcome, standin, HUBSPOT, in_form=True)
    email = "dana.whitfield@hubspot.example"
    assert outcome.session["user"] == {"name": email, "email": email}  # no image: no key
    check_signed_in(
        outcome,
        HUBSPOT,
        TOKEN,
        account_id="61938442",
        name=email,
        email=email,
        image=None,
    )
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]
    assert outcome.signed_in is not None
    assert outcome.signed_in["profile"]["hub_id"] == 44721368
    assert HubSpot().email_verified(outcome.signed_in["profile"]) is False


async def test_the_token_info_request_carries_the_token_in_its_path_only() -> None:
    standin = HUBSPOT.standin(TOKEN, TOKEN_INFO)
    await sign_in_through(HubSpot(), standin)

    sent = standin.sent("GET", "https://api.hubapi.com/oauth/v1/access-tokens/")
    assert sent.url.path.rsplit("/", 1)[1] == TOKEN["access_token"]
    assert "authorization" not in sent.headers
    assert standin.unexpected == []


async def test_a_token_info_without_the_user_signs_in_without_email() -> None:
    info: dict[str, Any] = {k: v for k, v in TOKEN_INFO.items() if k != "user"}
    outcome = await sign_in_through(HubSpot(), HUBSPOT.standin(TOKEN, info))

    assert outcome.account["providerAccountId"] == "61938442"
    assert outcome.user.get("name") is None
    assert outcome.user.get("email") is None


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("hubspot/token_error.json"))
    standin = HUBSPOT.standin(refused, TOKEN_INFO)
    await check_sign_in_refused(HubSpot(), standin, caplog, "answered 400")
    assert not any(r.method == "GET" for r in standin.requests)


async def test_an_unknown_token_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    unknown = httpx.Response(404, json={"status": "error", "message": "Token not found"})
    standin = HUBSPOT.standin(TOKEN, unknown)
    await check_sign_in_refused(HubSpot(), standin, caplog, "404 Not Found")


def test_override_merges_params() -> None:
    provider = HubSpot(authorization={"params": {"scope": "oauth crm.objects.contacts.read"}})
    token_info = "GET https://api.hubapi.com/oauth/v1/access-tokens"  # + /<token>

    check_param_override(
        provider,
        dataclasses.replace(HUBSPOT, userinfo=token_info),
        scope="oauth crm.objects.contacts.read",
    )
    assert provider.client_auth == "client_secret_post"
    assert provider.checks == ("state",)
