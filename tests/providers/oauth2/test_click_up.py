"""ClickUp: a sign-in against a stand-in of app.clickup.com and api.clickup.com with
recorded answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.click_up import ClickUp
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

CLICK_UP = Service(
    id="click-up",
    authorization="https://app.clickup.com/api",
    token="https://api.clickup.com/api/v2/oauth/token",
    userinfo="GET https://api.clickup.com/api/v2/user",
    params={},
    checks=("state",),
)
TOKEN = canned("click-up/token.json")
USER = canned("click-up/user.json")


async def test_sign_in() -> None:
    standin = CLICK_UP.standin(TOKEN, USER)
    outcome = await sign_in_through(ClickUp(), standin)

    check_authorization(outcome, CLICK_UP)
    assert "scope" not in outcome.params
    check_token_request(outcome, standin, CLICK_UP, in_form=True)
    # The token answer has only access_token: bearer is assumed, nothing expires.
    check_signed_in(
        outcome,
        CLICK_UP,
        TOKEN,
        account_id="61681706",
        name="Maren Okafor",
        email="maren.okafor@tailspin.example",
        image=USER["user"]["profilePicture"],
    )
    assert "refresh_token" not in outcome.account
    assert outcome.signed_in is not None
    assert outcome.signed_in["profile"]["user"]["color"] == "#7b68ee"
    assert ClickUp().email_verified(outcome.signed_in["profile"]) is False


@pytest.mark.parametrize(
    ("changes", "name", "image"),
    [
        pytest.param({"profilePicture": None}, "Maren Okafor", None, id="no photo"),
        pytest.param({"username": ""}, None, USER["user"]["profilePicture"], id="no username"),
    ],
)
async def test_profile_edges(changes: dict[str, Any], name: str | None, image: str | None) -> None:
    user = {"user": {**USER["user"], **changes}}
    outcome = await sign_in_through(ClickUp(), CLICK_UP.standin(TOKEN, user))

    assert outcome.user.get("name") == name
    assert outcome.user.get("image") == image
    assert outcome.account["providerAccountId"] == "61681706"


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("click-up/token_error.json"))
    standin = CLICK_UP.standin(refused, USER)
    await check_sign_in_refused(ClickUp(), standin, caplog, "answered 400")
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_adds_params() -> None:
    provider = ClickUp(authorization={"params": {"prompt": "consent"}})

    check_param_override(provider, CLICK_UP, prompt="consent")
    assert provider.checks == ("state",)
