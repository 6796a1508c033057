"""Zoom: a sign-in against a stand-in of zoom.us with recorded answers."""

from __future__ import annotations

import pytest

from authui.providers.zoom import Zoom
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_signed_in,
    check_token_request,
)

ZOOM = Service(
    id="zoom",
    authorization="https://zoom.us/oauth/authorize",
    token="https://zoom.us/oauth/token",
    userinfo="GET https://api.zoom.us/v2/users/me",
    params={},  # the app's settings hold the scopes
)
TOKEN = canned("zoom/token.json")
USER = canned("zoom/user.json")


async def test_sign_in() -> None:
    standin = ZOOM.standin(TOKEN, USER)
    outcome = await sign_in_through(Zoom(), standin)

    check_authorization(outcome, ZOOM)
    check_token_request(outcome, standin, ZOOM)
    check_signed_in(
        outcome,
        ZOOM,
        TOKEN,
        account_id="KDcuGIm1QgePTO8WbOqwIQ",
        name="Jill Chill",
        email="jchill@example.com",
        image=USER["pic_url"],
    )


@pytest.mark.parametrize(
    ("changes", "name"),
    [
        ({"last_name": ""}, "Jill"),
        ({"first_name": "", "last_name": "", "display_name": "JC"}, "JC"),
    ],
)
async def test_name(changes: dict[str, str], name: str) -> None:
    outcome = await sign_in_through(Zoom(), ZOOM.standin(TOKEN, {**USER, **changes}))

    assert outcome.user["name"] == name


def test_override_merges_params() -> None:
    provider = Zoom(authorization={"params": {"scope": "user:read:user"}})

    check_param_override(provider, ZOOM, scope="user:read:user")
