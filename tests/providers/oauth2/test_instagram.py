"""Instagram: a sign-in against a stand-in of api.instagram.com and graph.instagram.com
with recorded answers (Instagram API with Instagram Login)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.instagram import Instagram, conform_token
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

INSTAGRAM = Service(
    id="instagram",
    authorization="https://api.instagram.com/oauth/authorize",
    token="https://api.instagram.com/oauth/access_token",
    userinfo="GET https://graph.instagram.com/me",
    params={"scope": "instagram_business_basic"},
    checks=("state",),
)
TOKEN = canned("instagram/token.json")
USER = canned("instagram/user.json")


async def test_sign_in() -> None:
    standin = INSTAGRAM.standin(TOKEN, USER)
    outcome = await sign_in_through(Instagram(), standin)

    check_authorization(outcome, INSTAGRAM)
    check_token_request(outcome, standin, INSTAGRAM, in_form=True)
    check_signed_in(
        outcome,
        INSTAGRAM,
        TOKEN,
        account_id="8174290566102837",
        name="harbourlight.studio",
        email=None,
        image=USER["profile_picture_url"],
    )
    assert outcome.account["scope"] == "instagram_business_basic"
    me = standin.sent("GET", "https://graph.instagram.com/me")
    assert me.url.params["fields"] == "id,username,account_type,name,profile_picture_url"
    assert me.headers["authorization"] == f"Bearer {TOKEN['access_token']}"


MESSAGES = "instagram_business_manage_messages"


@pytest.mark.parametrize(
    ("answer", "scope"),
    [
        pytest.param(TOKEN, "instagram_business_basic", id="flat, permissions a list"),
        pytest.param(
            {"data": [{**TOKEN, "permissions": f"instagram_business_basic,{MESSAGES}"}]},
            f"instagram_business_basic {MESSAGES}",
            id="wrapped in data, permissions a string",
        ),
    ],
)
async def test_token_answer_shapes(answer: dict[str, Any], scope: str) -> None:
    outcome = await sign_in_through(Instagram(), INSTAGRAM.standin(answer, USER))

    assert outcome.account["access_token"] == TOKEN["access_token"]
    assert outcome.account["token_type"] == "bearer"  # Instagram sends none
    assert outcome.account["scope"] == scope


def test_conform_keeps_a_scope_instagram_gives() -> None:
    assert conform_token({"access_token": "a", "scope": "x"}) == {"access_token": "a", "scope": "x"}


@pytest.mark.parametrize(
    ("changes", "name", "image"),
    [
        pytest.param({"profile_picture_url": None}, "harbourlight.studio", None, id="no picture"),
        pytest.param({"username": None}, None, USER["profile_picture_url"], id="no username"),
    ],
)
async def test_profile_edges(changes: dict[str, Any], name: str | None, image: str | None) -> None:
    user = {k: v for k, v in {**USER, **changes}.items() if v is not None}
    outcome = await sign_in_through(Instagram(), INSTAGRAM.standin(TOKEN, user))

    assert outcome.user.get("name") == name
    assert outcome.user.get("image") == image
    assert outcome.user.get("email") is None


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("instagram/token_error.json"))
    standin = INSTAGRAM.standin(refused, USER)
    await check_sign_in_refused(Instagram(), standin, caplog, "answered 400")
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_merges_params() -> None:
    scope = "instagram_business_basic,instagram_business_content_publish"
    provider = Instagram(authorization={"params": {"scope": scope}})

    check_param_override(provider, INSTAGRAM, scope=scope)
    assert provider.token.conform is conform_token
