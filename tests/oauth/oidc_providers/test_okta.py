"""Okta: issuer from the user (here a custom authorization server), PKCE and state,
Basic client auth, a thin id_token without ``email_verified``."""

from __future__ import annotations

import pytest

from authui.providers.okta import Okta
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

ISSUER = "https://dev-1234567.okta.com/oauth2/default"
SUB = "00uid4BxXw6I6TV4m0g3"


async def test_sign_in() -> None:
    provider = Okta(issuer=ISSUER)
    standin = canned_standin("okta", ISSUER)
    outcome = await sign_in_through(provider, standin)
    check_authorization(outcome, standin, provider, {"scope": "openid profile email"})
    check_token_request(outcome, standin, provider)
    account = check_account(outcome, provider, SUB)
    assert mapped(outcome) == {"name": "Isaac Brock", "email": "isaac.brock@example.com"}
    assert outcome.signed_in is not None
    profile = outcome.signed_in["profile"]
    assert provider.checks == ("pkce", "state")
    assert not provider.email_verified(profile)  # only userinfo says it
    assert account["scope"] == "openid profile email"
    assert standin.unexpected == []


async def test_issuer_from_env() -> None:
    provider = issuer_from_env(Okta(), ISSUER)
    assert provider.issuer == ISSUER
    outcome = await sign_in_through(provider, canned_standin("okta", ISSUER))
    assert outcome.account["providerAccountId"] == SUB


async def test_without_issuer_is_a_configuration_error(caplog: pytest.LogCaptureFixture) -> None:
    assert Okta().issuer is None
    response = await sign_in_without_issuer(Okta())
    check_configuration_error(response, caplog.text, "okta")
