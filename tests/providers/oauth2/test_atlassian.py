"""Atlassian: a sign-in against a stand-in of auth.atlassian.com with recorded answers."""

from __future__ import annotations

from authui.providers.atlassian import Atlassian
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_signed_in,
    check_token_request,
)

ATLASSIAN = Service(
    id="atlassian",
    authorization="https://auth.atlassian.com/authorize",
    token="https://auth.atlassian.com/oauth/token",
    userinfo="GET https://api.atlassian.com/me",
    params={"audience": "api.atlassian.com", "scope": "read:me"},
    checks=("state",),
)
TOKEN = canned("atlassian/token.json")
USER = canned("atlassian/user.json")


async def test_sign_in() -> None:
    standin = ATLASSIAN.standin(TOKEN, USER)
    outcome = await sign_in_through(Atlassian(), standin, query={"prompt": "consent"})

    check_authorization(outcome, ATLASSIAN, prompt="consent")
    check_token_request(outcome, standin, ATLASSIAN)
    check_signed_in(
        outcome,
        ATLASSIAN,
        TOKEN,
        account_id="557058:4f9acfd2-6155-419b-8de5-5b5cf27a59a0",
        name="Mia Krystof",
        email="mia.krystof@example.com",
        image=USER["picture"],
    )
    assert outcome.signed_in is not None
    assert Atlassian().email_verified(outcome.signed_in["profile"]) is False


def test_override_merges_params() -> None:
    provider = Atlassian(authorization={"params": {"scope": "read:me offline_access"}})

    check_param_override(provider, ATLASSIAN, scope="read:me offline_access")
