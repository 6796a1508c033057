"""authentik: issuer from the user (with its trailing slash), PKCE, Basic client auth,
``email_verified`` false by default."""

from __future__ import annotations

import pytest

from authui.providers.authentik import Authentik
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

ISSUER = "https://auth.example.com/application/o/webapp/"
SUB = "3e8f2a1c7b6d5e4f9a0b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f"


async def test_sign_in() -> None:
    provider = Authentik(issuer=ISSUER)
    standin = canned_standin("authentik", ISSUER)
    outcome = await sign_in_through(provider, standin)
    check_authorization(outcome, standin, provider, {"scope": "openid profile email"})
    check_token_request(outcome, standin, provider)
    account = check_account(outcome, provider, SUB)
    assert mapped(outcome) == {"name": "Hedy Lamarr", "email": "hedy@example.com"}
    assert outcome.signed_in is not None
    profile = outcome.signed_in["profile"]
    assert profile["iss"] == ISSUER
    assert not provider.email_verified(profile)
    assert account["expires_in"] == 300
    assert standin.unexpected == []


async def test_issuer_from_env() -> None:
    provider = issuer_from_env(Authentik(), ISSUER)
    assert provider.issuer == ISSUER
    outcome = await sign_in_through(provider, canned_standin("authentik", ISSUER))
    assert outcome.account["providerAccountId"] == SUB


async def test_without_issuer_is_a_configuration_error(caplog: pytest.LogCaptureFixture) -> None:
    assert Authentik().issuer is None
    response = await sign_in_without_issuer(Authentik())
    check_configuration_error(response, caplog.text, "authentik")
