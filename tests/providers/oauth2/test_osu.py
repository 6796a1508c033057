"""osu!: a sign-in against a stand-in of osu.ppy.sh with recorded answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.osu import Osu
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

OSU = Service(
    id="osu",
    authorization="https://osu.ppy.sh/oauth/authorize",
    token="https://osu.ppy.sh/oauth/token",
    userinfo="GET https://osu.ppy.sh/api/v2/me",
    params={"scope": "identify"},
)
TOKEN = canned("osu/token.json")
USER = canned("osu/user.json")


async def test_sign_in() -> None:
    standin = OSU.standin(TOKEN, USER)
    outcome = await sign_in_through(Osu(), standin)

    check_authorization(outcome, OSU)
    check_token_request(outcome, standin, OSU)
    check_signed_in(
        outcome,
        OSU,
        TOKEN,
        account_id="7182818",
        name="kiwi_circles",
        email=None,
        image="https://a.ppy.sh/7182818?1700412345.png",
    )
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]
    me = standin.sent("GET", "https://osu.ppy.sh/api/v2/me")
    assert me.headers["authorization"] == f"Bearer {TOKEN['access_token']}"
    assert standin.unexpected == []


@pytest.mark.parametrize(
    ("changes", "name", "image"),
    [
        pytest.param(
            {"avatar_url": "https://osu.ppy.sh/images/layout/avatar-guest@2x.png"},
            "kiwi_circles",
            "https://osu.ppy.sh/images/layout/avatar-guest@2x.png",
            id="guest avatar kept",
        ),
        pytest.param({"avatar_url": None}, "kiwi_circles", None, id="no avatar"),
        pytest.param({"username": None}, None, USER["avatar_url"], id="no username"),
        pytest.param(
            {"email": "kiwi@osu.example"},
            "kiwi_circles",
            USER["avatar_url"],
            id="an email in the answer is not used",
        ),
    ],
)
async def test_profile_edges(changes: dict[str, Any], name: str | None, image: str | None) -> None:
    outcome = await sign_in_through(Osu(), OSU.standin(TOKEN, {**USER, **changes}))

    assert outcome.user.get("name") == name
    assert outcome.user.get("image") == image
    assert outcome.user.get("email") is None
    assert outcome.signed_in is not None
    assert Osu().email_verified(outcome.signed_in["profile"]) is False


async def test_a_refused_client_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(401, json=canned("osu/token_error.json"))
    standin = OSU.standin(refused, USER)
    await check_sign_in_refused(Osu(), standin, caplog, "answered 401")
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_merges_params() -> None:
    provider = Osu(authorization={"params": {"scope": "identify public"}})

    check_param_override(provider, OSU, scope="identify public")
    assert provider.name == "osu!"
