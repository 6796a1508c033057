"""Medium: a sign-in against a stand-in of medium.com and api.medium.com with recorded
answers."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from authui.providers.medium import Medium, conform_token
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

MEDIUM = Service(
    id="medium",
    authorization="https://medium.com/m/oauth/authorize",
    token="https://api.medium.com/v1/tokens",
    userinfo="GET https://api.medium.com/v1/me",
    params={"scope": "basicProfile"},
    checks=("state",),
)
TOKEN = canned("medium/token.json")
USER = canned("medium/user.json")
SIXTY_DAYS = 60 * 24 * 3600


def issued_now() -> dict[str, Any]:
    """The recorded token answer, expiring 60 days from now (Unix milliseconds)."""
    return {**TOKEN, "expires_at": (int(time.time()) + SIXTY_DAYS) * 1000}


async def test_sign_in() -> None:
    standin = MEDIUM.standin(httpx.Response(201, json=issued_now()), USER)
    outcome = await sign_in_through(Medium(), standin)

    check_authorization(outcome, MEDIUM)
    check_token_request(outcome, standin, MEDIUM, in_form=True)
    check_signed_in(
        outcome,
        MEDIUM,
        {**TOKEN, "expires_in": SIXTY_DAYS},  # what expires_at (milliseconds) comes to
        account_id=USER["data"]["id"],
        name="Noor Hassan",
        email=None,
        image=USER["data"]["imageUrl"],
    )
    assert outcome.account["scope"] == "basicProfile"
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]


def test_conform_token() -> None:
    conformed = conform_token({**TOKEN, "scope": ["basicProfile", "publishPost"]})

    assert conformed["scope"] == "basicProfile publishPost"
    assert conformed["expires_at"] == 1_750_000_000
    assert conformed["expires_in"] == 0  # that time has passed
    assert conform_token({"access_token": "a", "expires_at": 1_750_000_000})["expires_at"] == (
        1_750_000_000
    )  # already seconds


@pytest.mark.parametrize(
    ("changes", "name", "image"),
    [
        pytest.param({"name": ""}, "noorhassan", USER["data"]["imageUrl"], id="no name"),
        pytest.param({"imageUrl": ""}, "Noor Hassan", None, id="no image"),
    ],
)
async def test_profile_edges(changes: dict[str, Any], name: str, image: str | None) -> None:
    user = {"data": {**USER["data"], **changes}}
    outcome = await sign_in_through(Medium(), MEDIUM.standin(issued_now(), user))

    assert outcome.user.get("name") == name
    assert outcome.user.get("image") == image
    assert outcome.user.get("email") is None


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("medium/token_error.json"))
    standin = MEDIUM.standin(refused, USER)
    await check_sign_in_refused(Medium(), standin, caplog, "answered 400")
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_merges_params() -> None:
    provider = Medium(authorization={"params": {"scope": "basicProfile,publishPost"}})

    check_param_override(provider, MEDIUM, scope="basicProfile,publishPost")
    assert provider.token.conform is conform_token
