"""Cognito: issuer from the user (a user pool) with endpoints on the pool's domain, PKCE,
Basic client auth, ``email_verified`` as a string for a federated user."""

from __future__ import annotations

import pytest

from authui.providers.cognito import Cognito
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

ISSUER = "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf123"
SUB = "a1b2c3d4-5e6f-7081-92a3-b4c5d6e7f809"


async def test_sign_in() -> None:
    provider = Cognito(issuer=ISSUER)
    standin = canned_standin("cognito", ISSUER)
    outcome = await sign_in_through(provider, standin)
    check_authorization(outcome, standin, provider, {"scope": "openid profile email"})
    check_token_request(outcome, standin, provider)
    check_account(outcome, provider, SUB)
    assert mapped(outcome) == {"name": "Katherine Johnson", "email": "katherine@example.com"}
    assert outcome.signed_in is not None
    profile = outcome.signed_in["profile"]
    assert profile["cognito:username"] == "google_104593020345678901234"
    assert profile["email_verified"] == "true"
    assert provider.email_verified(profile)
    assert outcome.authorization_url.startswith(
        "https://acme-auth.auth.eu-west-1.amazoncognito.com/oauth2/authorize?"
    )
    assert standin.unexpected == []


async def test_issuer_from_env() -> None:
    provider = issuer_from_env(Cognito(), ISSUER)
    assert provider.issuer == ISSUER
    outcome = await sign_in_through(provider, canned_standin("cognito", ISSUER))
    assert outcome.account["providerAccountId"] == SUB


async def test_without_issuer_is_a_configuration_error(caplog: pytest.LogCaptureFixture) -> None:
    assert Cognito().issuer is None
    response = await sign_in_without_issuer(Cognito())
    check_configuration_error(response, caplog.text, "cognito")


@pytest.mark.parametrize(
    ("claim", "verified"),
    [(True, True), ("true", True), (False, False), ("false", False), (None, False)],
)
def test_email_verified_as_boolean_or_string(claim: object, verified: bool) -> None:
    profile = {"sub": SUB, "email": "katherine@example.com"}
    if claim is not None:
        profile["email_verified"] = claim  # type: ignore[assignment]
    assert Cognito().email_verified(profile) is verified
