"""GitLab: a sign-in against a stand-in of gitlab.com (or a self-managed instance)."""

from __future__ import annotations

import pytest

from authui.providers.gitlab import GitLab
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_signed_in,
    check_token_request,
)

GITLAB = Service(
    id="gitlab",
    authorization="https://gitlab.com/oauth/authorize",
    token="https://gitlab.com/oauth/token",
    userinfo="GET https://gitlab.com/api/v4/user",
    params={"scope": "read_user"},
)
TOKEN = canned("gitlab/token.json")
USER = canned("gitlab/user.json")


async def test_sign_in() -> None:
    standin = GITLAB.standin(TOKEN, USER)
    outcome = await sign_in_through(GitLab(), standin)

    check_authorization(outcome, GITLAB)
    check_token_request(outcome, standin, GITLAB)
    check_signed_in(
        outcome,
        GITLAB,
        TOKEN,
        account_id="1387245",
        name="Jane Doe",
        email="jane.doe@example.com",
        image="https://gitlab.com/uploads/-/system/user/avatar/1387245/avatar.png",
    )
    assert outcome.signed_in is not None
    assert GitLab().email_verified(outcome.signed_in["profile"]) is False


@pytest.mark.parametrize("base", ["https://gitlab.example.com", "https://gitlab.example.com/"])
async def test_self_managed_instance(base: str) -> None:
    own = Service(
        id="gitlab",
        authorization="https://gitlab.example.com/oauth/authorize",
        token="https://gitlab.example.com/oauth/token",
        userinfo="GET https://gitlab.example.com/api/v4/user",
        params={"scope": "read_user"},
    )
    standin = own.standin(TOKEN, USER)
    outcome = await sign_in_through(GitLab(base_url=base), standin)

    check_authorization(outcome, own)
    check_token_request(outcome, standin, own)
    assert outcome.account["providerAccountId"] == "1387245"
    assert GitLab(options={"base_url": base}).userinfo.url == own.userinfo.split(" ")[1]


async def test_name_falls_back_to_the_username() -> None:
    outcome = await sign_in_through(GitLab(), GITLAB.standin(TOKEN, {**USER, "name": ""}))

    assert outcome.user["name"] == "jdoe"


def test_override_merges_params() -> None:
    provider = GitLab(authorization={"params": {"scope": "read_user openid"}})

    check_param_override(provider, GITLAB, scope="read_user openid")
