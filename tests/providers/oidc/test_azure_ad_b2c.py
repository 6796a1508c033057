"""Azure AD B2C: an id_token without an access token, and its profile's ``emails``."""

from __future__ import annotations

from typing import Any

import pytest

from authui.providers.azure_ad_b2c import AzureADB2C, b2c_profile, conform_b2c_token
from tests.oauth.standin import CLIENT_ID, canned, sign_in_through
from tests.providers.oidc.common import canned_standin, check_account, check_authorization, mapped

ISSUER = canned("azure-ad-b2c/discovery.json")["issuer"]
SUB = "5f8c2a3e-7b1d-4e9f-a6c0-2d4b6e8f0a1c"


async def test_without_an_access_token_the_id_token_stands_in() -> None:
    standin = canned_standin("azure-ad-b2c", ISSUER)
    outcome = await sign_in_through(AzureADB2C(issuer=ISSUER), standin)
    account = check_account(outcome, AzureADB2C(), SUB)
    assert "access_token" not in canned("azure-ad-b2c/token.json")
    assert account["access_token"] == account["id_token"]
    assert account["expires_in"] == 3600  # B2C's string "3600", from id_token_expires_in


async def test_an_access_token_for_the_app_itself_is_kept() -> None:
    scope = f"openid offline_access {CLIENT_ID}"
    provider = AzureADB2C(issuer=ISSUER, authorization={"params": {"scope": scope}})
    token = {
        "access_token": "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.b2c-access",
        "token_type": "Bearer",
        "not_before": "1700000000",
        "expires_in": "3600",
        "expires_on": "1700003600",
        "resource": CLIENT_ID,
        "refresh_token": "eyJraWQiOiJjcGltY29yZV8wOTI1MjAxNSIsInZlciI6IjEuMCJ9.b2c-refresh",
        "refresh_token_expires_in": "1209600",
        "scope": f"{CLIENT_ID} offline_access openid",
    }
    standin = canned_standin("azure-ad-b2c", ISSUER, token_extra=token)
    outcome = await sign_in_through(provider, standin)
    check_authorization(outcome, standin, provider, {"scope": scope})
    account = check_account(outcome, provider, SUB)
    assert account["access_token"] == token["access_token"]
    assert account["refresh_token"] == token["refresh_token"]
    assert mapped(outcome) == {"name": "Grace Hopper", "email": "grace.hopper@example.com"}


@pytest.mark.parametrize(
    ("claims", "name", "email"),
    [
        pytest.param(
            {"name": "Grace", "emails": ["g@example.com", "h@example.com"]},
            "Grace",
            "g@example.com",
            id="first of emails",
        ),
        pytest.param(
            {"preferred_username": "grace", "email": "g@example.com"},
            "grace",
            "g@example.com",
            id="custom policy email",
        ),
        pytest.param({"emails": []}, None, None, id="no email, no name"),
    ],
)
def test_profile(claims: dict[str, Any], name: str | None, email: str | None) -> None:
    user = b2c_profile({"sub": SUB, **claims}, {})
    assert user == {"id": SUB, "name": name, "email": email, "image": None}


@pytest.mark.parametrize(
    "body",
    [
        pytest.param({"access_token": "a", "token_type": "Bearer"}, id="access token"),
        pytest.param(canned("azure-ad-b2c/token_error.json"), id="error"),
    ],
)
def test_conform_leaves_other_answers(body: dict[str, Any]) -> None:
    assert conform_b2c_token(body) == body
