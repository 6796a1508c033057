"""Azure DevOps: a sign-in against a stand-in of app.vssps.visualstudio.com with recorded
answers, through the provider's rewrite of the token request."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.azure_devops import AssertionExchange, AzureDevOps
from tests.oauth.standin import APP, CLIENT_SECRET, canned, form_of, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
)

DEVOPS = Service(
    id="azure-devops",
    authorization="https://app.vssps.visualstudio.com/oauth2/authorize",
    token="https://app.vssps.visualstudio.com/oauth2/token",
    userinfo="GET https://app.vssps.visualstudio.com/_apis/profile/profiles/me",
    params={"response_type": "Assertion", "scope": "vso.profile"},
    checks=("state",),
)
TOKEN = canned("azure-devops/token.json")
USER = canned("azure-devops/user.json")
AVATAR = USER["coreAttributes"]["Avatar"]["value"]["value"]


def _with_avatar(value: Any) -> dict[str, Any]:
    avatar = USER["coreAttributes"]["Avatar"]
    return {
        **USER,
        "coreAttributes": {"Avatar": {**avatar, "value": {**avatar["value"], "value": value}}},
    }


async def test_sign_in() -> None:
    standin = DEVOPS.standin(TOKEN, USER)
    outcome = await sign_in_through(AzureDevOps(), standin)

    check_authorization(outcome, DEVOPS)  # response_type=Assertion replaces code
    check_signed_in(
        outcome,
        DEVOPS,
        TOKEN,  # expires_in comes as the string "3599"
        account_id="6c2f4a8e-1b3d-4e5f-9a7b-2c4d6e8f0a1b",
        name="Priya Raman",
        email="priya.raman@fabrikam.example",
        image=f"data:image/png;base64,{AVATAR}",
    )  # token_type jwt-bearer is recorded as bearer
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]
    assert outcome.signed_in is not None
    assert AzureDevOps().email_verified(outcome.signed_in["profile"]) is False
    profile = standin.sent("GET", DEVOPS.userinfo.split(" ", 1)[1])
    assert dict(profile.url.params) == {
        "details": "true",
        "coreAttributes": "Avatar",
        "api-version": "6.0",
    }
    assert profile.headers["authorization"] == f"Bearer {TOKEN['access_token']}"


async def test_the_token_request_is_the_jwt_bearer_exchange() -> None:
    standin = DEVOPS.standin(TOKEN, USER)
    await sign_in_through(AzureDevOps(), standin)

    request = standin.sent("POST", DEVOPS.token)
    assert form_of(request) == {
        "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
        "client_assertion": CLIENT_SECRET,
        "grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
        "assertion": "authorization-code-1",
        "redirect_uri": f"{APP}/auth/callback/azure-devops",
    }
    assert request.headers["content-type"] == "application/x-www-form-urlencoded"
    assert "authorization" not in request.headers


def test_the_rewrite_sits_in_front_of_a_given_custom_fetch() -> None:
    async def mine(request: httpx.Request) -> httpx.Response:
        return httpx.Response(204)

    fetch = AzureDevOps(custom_fetch=mine).custom_fetch
    assert isinstance(fetch, AssertionExchange)
    assert fetch.send is mine
    assert isinstance(AzureDevOps().custom_fetch, AssertionExchange)


@pytest.mark.parametrize(
    ("user", "image"),
    [
        pytest.param(
            _with_avatar("/9j/4AAQSkZJRgABAQAAAQABAAD/2w=="),
            "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2w==",
            id="jpeg avatar",
        ),
        pytest.param(_with_avatar(None), None, id="no avatar value"),
        pytest.param(_with_avatar("not base64!"), None, id="avatar that is not base64"),
        pytest.param(
            {k: v for k, v in USER.items() if k != "coreAttributes"}, None, id="no core attributes"
        ),
    ],
)
async def test_avatar(user: dict[str, Any], image: str | None) -> None:
    outcome = await sign_in_through(AzureDevOps(), DEVOPS.standin(TOKEN, user))

    assert outcome.user.get("image") == image
    assert outcome.user["name"] == "Priya Raman"


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("azure-devops/token_error.json"))
    standin = DEVOPS.standin(refused, USER)
    # The {"Error", "ErrorDescription"} answer is logged like a standard OAuth error.
    await check_sign_in_refused(
        AzureDevOps(), standin, caplog, "invalid_request (The authorization code is not valid"
    )
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_replaces_the_scope() -> None:
    provider = AzureDevOps(authorization={"params": {"scope": "vso.profile vso.code"}})

    check_param_override(provider, DEVOPS, scope="vso.profile vso.code")
    assert provider.authorization.params["response_type"] == "Assertion"
    assert provider.client_auth == "client_secret_post"
