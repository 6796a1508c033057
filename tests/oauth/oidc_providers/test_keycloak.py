"""Keycloak: issuer from the user (a realm), PKCE, Basic client auth, ``session_state``
kept with the account."""

from __future__ import annotations

import pytest

from authui.providers.keycloak import Keycloak
from tests.oauth.oidc_providers.common import (
    canned_standin,
    check_account,
    check_authorization,
    check_configuration_error,
    check_token_request,
    issuer_from_env,
    mapped,
    sign_in_without_issuer,
)
from tests.oauth.standin import sign_in_through

ISSUER = "https://sso.example.com/realms/acme"
SUB = "f4b2a6c8-1d3e-4f5a-8b7c-9d0e1f2a3b4c"


async def test_sign_in() -> None:
    provider = Keycloak(issuer=ISSUER)
    standin = canned_standin("keycloak", ISSUER)
    outcome = await sign_in_through(provider, standin)
    check_authorization(outcome, standin, provider, {"scope": "openid profile email"})
    check_token_request(outcome, standin, provider)
    account = check_account(outcome, provider, SUB)
    assert mapped(outcome) == {"name": "Rosalind Franklin", "email": "rosalind@example.com"}
    assert outcome.signed_in is not None
    profile = outcome.signed_in["profile"]
    assert provider.email_verified(profile)
    assert account["session_state"] == "3a9d7f5e-2b1c-4e8d-a6f0-7c5b3d1e9f2a"
    assert account["refresh_token"].endswith("kc-refresh")
    assert standin.unexpected == []


async def test_issuer_from_env() -> None:
    provider = issuer_from_env(Keycloak(), ISSUER)
    assert provider.issuer == ISSUER
    outcome = await sign_in_through(provider, canned_standin("keycloak", ISSUER))
    assert outcome.account["providerAccountId"] == SUB


async def test_without_issuer_is_a_configuration_error(caplog: pytest.LogCaptureFixture) -> None:
    assert Keycloak().issuer is None
    response = await sign_in_without_issuer(Keycloak())
    check_configuration_error(response, caplog.text, "keycloak")
