"""ZITADEL: issuer from the user, PKCE, Basic client auth, an id_token whose ``aud`` also
names the project (``azp`` is the client)."""

from __future__ import annotations

import pytest

from authui.providers.zitadel import Zitadel
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

ISSUER = "https://acme-x1y2z3.zitadel.cloud"
SUB = "263914985938370565"


async def test_sign_in() -> None:
    provider = Zitadel(issuer=ISSUER)
    standin = canned_standin("zitadel", ISSUER)
    outcome = await sign_in_through(provider, standin)
    check_authorization(outcome, standin, provider, {"scope": "openid profile email"})
    check_token_request(outcome, standin, provider)
    account = check_account(outcome, provider, SUB)
    assert mapped(outcome) == {"name": "Alan Turing", "email": "alan.turing@example.com"}
    assert outcome.signed_in is not None
    profile = outcome.signed_in["profile"]
    assert len(profile["aud"]) == 2
    assert provider.email_verified(profile)
    assert "refresh_token" not in account  # no offline_access asked for
    assert standin.unexpected == []


async def test_issuer_from_env() -> None:
    provider = issuer_from_env(Zitadel(), ISSUER)
    assert provider.issuer == ISSUER
    outcome = await sign_in_through(provider, canned_standin("zitadel", ISSUER))
    assert outcome.account["providerAccountId"] == SUB


async def test_without_issuer_is_a_configuration_error(caplog: pytest.LogCaptureFixture) -> None:
    assert Zitadel().issuer is None
    response = await sign_in_without_issuer(Zitadel())
    check_configuration_error(response, caplog.text, "zitadel")
