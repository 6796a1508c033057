"""Bitbucket: a sign-in against a stand-in of Bitbucket Cloud with recorded answers."""

from __future__ import annotations

from authui.providers.bitbucket import Bitbucket
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_signed_in,
    check_token_request,
)

BITBUCKET = Service(
    id="bitbucket",
    authorization="https://bitbucket.org/site/oauth2/authorize",
    token="https://bitbucket.org/site/oauth2/access_token",
    userinfo="GET https://api.bitbucket.org/2.0/user",
    params={"scope": "account"},
)
TOKEN = canned("bitbucket/token.json")
USER = canned("bitbucket/user.json")


async def test_sign_in() -> None:
    standin = BITBUCKET.standin(TOKEN, USER)
    outcome = await sign_in_through(Bitbucket(), standin)

    check_authorization(outcome, BITBUCKET)
    check_token_request(outcome, standin, BITBUCKET)
    check_signed_in(
        outcome,
        BITBUCKET,
        TOKEN,
        account_id="557058:2f9a6c1e-8b4d-4e7f-a3c2-5d1b9e0f7a64",
        name="Ana Ruiz",
        email=None,
        image=USER["links"]["avatar"]["href"],
    )


async def test_name_falls_back_to_the_username() -> None:
    user = {**USER, "display_name": None, "links": {}}
    outcome = await sign_in_through(Bitbucket(), BITBUCKET.standin(TOKEN, user))

    assert outcome.user["name"] == "anaruiz"
    assert "image" not in outcome.user


def test_override_merges_params() -> None:
    provider = Bitbucket(authorization={"params": {"scope": "account email"}})

    check_param_override(provider, BITBUCKET, scope="account email")
