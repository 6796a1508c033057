"""Reddit: a sign-in against a stand-in of reddit.com with recorded answers."""

from __future__ import annotations

from authui.providers.reddit import Reddit
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_signed_in,
    check_token_request,
)

REDDIT = Service(
    id="reddit",
    authorization="https://www.reddit.com/api/v1/authorize",
    token="https://www.reddit.com/api/v1/access_token",
    userinfo="GET https://oauth.reddit.com/api/v1/me",
    params={"scope": "identity"},
    checks=("state",),
)
TOKEN = canned("reddit/token.json")
USER = canned("reddit/user.json")


async def test_sign_in() -> None:
    standin = REDDIT.standin(TOKEN, USER)
    outcome = await sign_in_through(Reddit(), standin)

    check_authorization(outcome, REDDIT)
    check_token_request(outcome, standin, REDDIT)
    check_signed_in(
        outcome,
        REDDIT,
        TOKEN,
        account_id="1w72",
        name="spez_fan_42",
        email=None,
        image="https://styles.redditmedia.com/t5_2x1gq8/styles/profileIcon_snoo1a2b3c4d.png"
        "?width=256&height=256&crop=256:256,smart&s=0a1b2c3d4e5f",
    )


async def test_no_icon() -> None:
    outcome = await sign_in_through(Reddit(), REDDIT.standin(TOKEN, {**USER, "icon_img": ""}))

    assert "image" not in outcome.user


def test_override_merges_params() -> None:
    provider = Reddit(authorization={"params": {"duration": "permanent"}})

    check_param_override(provider, REDDIT, duration="permanent")
