"""Strava: a sign-in against a stand-in of www.strava.com with recorded answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.strava import Strava
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

STRAVA = Service(
    id="strava",
    authorization="https://www.strava.com/api/v3/oauth/authorize",
    token="https://www.strava.com/api/v3/oauth/token",
    userinfo="GET https://www.strava.com/api/v3/athlete",
    params={"scope": "read", "approval_prompt": "auto"},
    checks=("state",),
)
TOKEN = canned("strava/token.json")
USER = canned("strava/user.json")


async def test_sign_in() -> None:
    standin = STRAVA.standin(TOKEN, USER)
    outcome = await sign_in_through(Strava(), standin, callback_params={"scope": "read"})

    check_authorization(outcome, STRAVA)
    check_token_request(outcome, standin, STRAVA, in_form=True)
    check_signed_in(
        outcome,
        STRAVA,
        TOKEN,
        account_id="134815",
        name="Riley Okafor",
        email=None,
        image=USER["profile"],
    )
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]
    athlete = standin.sent("GET", "https://www.strava.com/api/v3/athlete")
    assert athlete.headers["authorization"] == f"Bearer {TOKEN['access_token']}"


@pytest.mark.parametrize(
    ("changes", "name", "image"),
    [
        pytest.param({"lastname": ""}, "Riley", USER["profile"], id="no last name"),
        pytest.param({"firstname": None, "lastname": None}, None, USER["profile"], id="no name"),
        pytest.param(
            {"profile": "avatar/athlete/large.png"}, "Riley Okafor", None, id="placeholder photo"
        ),
        pytest.param({"profile": None}, "Riley Okafor", None, id="no photo"),
    ],
)
async def test_profile_edges(changes: dict[str, Any], name: str | None, image: str | None) -> None:
    outcome = await sign_in_through(Strava(), STRAVA.standin(TOKEN, {**USER, **changes}))

    assert outcome.user.get("name") == name
    assert outcome.user.get("image") == image
    assert outcome.user.get("email") is None


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("strava/token_error.json"))
    standin = STRAVA.standin(refused, USER)
    await check_sign_in_refused(Strava(), standin, caplog, "answered 400")
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_merges_params() -> None:
    provider = Strava(authorization={"params": {"scope": "read,activity:read"}})

    check_param_override(provider, STRAVA, scope="read,activity:read")
    assert provider.authorization.params["approval_prompt"] == "auto"
    assert provider.client_auth == "client_secret_post"
