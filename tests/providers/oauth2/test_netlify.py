"""Netlify: a sign-in against a stand-in of app.netlify.com with recorded answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.netlify import Netlify
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

NETLIFY = Service(
    id="netlify",
    authorization="https://app.netlify.com/authorize",
    token="https://api.netlify.com/oauth/token",
    userinfo="GET https://api.netlify.com/api/v1/user",
    params={},
)
TOKEN = canned("netlify/token.json")
USER = canned("netlify/user.json")


async def test_sign_in() -> None:
    standin = NETLIFY.standin(TOKEN, USER)
    outcome = await sign_in_through(Netlify(), standin)

    check_authorization(outcome, NETLIFY)
    assert "scope" not in outcome.params
    check_token_request(outcome, standin, NETLIFY)
    check_signed_in(
        outcome,
        NETLIFY,
        TOKEN,
        account_id="5f8a2c41d3e9b70012a4c6e8",
        name="Grace Hopper",
        email="grace.hopper@netlify.example",
        image="https://avatars.githubusercontent.com/u/90210417?v=4",
    )
    assert "refresh_token" not in outcome.account
    sent = standin.sent("GET", "https://api.netlify.com/api/v1/user")
    assert sent.headers["authorization"] == f"Bearer {TOKEN['access_token']}"
    assert outcome.signed_in is not None
    assert Netlify().email_verified(outcome.signed_in["profile"]) is False


@pytest.mark.parametrize(
    ("changes", "user"),
    [
        pytest.param({"full_name": None}, {"email": "grace.hopper@netlify.example",
                     "image": USER["avatar_url"]}, id="no name"),
        pytest.param({"full_name": "", "avatar_url": ""},
                     {"email": "grace.hopper@netlify.example"}, id="empty name and avatar"),
        pytest.param({"email": None}, {"name": "Grace Hopper", "image": USER["avatar_url"]},
                     id="no email"),
    ],
)  # fmt: skip
async def test_profile_mapping(changes: dict[str, Any], user: dict[str, str]) -> None:
    outcome = await sign_in_through(Netlify(), NETLIFY.standin(TOKEN, {**USER, **changes}))

    assert {k: v for k, v in outcome.user.items() if k != "id" and v is not None} == user


@pytest.mark.parametrize(
    ("token", "user", "logged"),
    [
        pytest.param(
            httpx.Response(400, json=canned("netlify/token_error.json")),
            USER,
            "answered 400: invalid_grant",
            id="token endpoint: refused code",
        ),
        pytest.param(
            TOKEN,
            httpx.Response(401, json={"code": 401, "message": "Access Denied"}),
            "/api/v1/user answered 401",
            id="profile: token refused",
        ),
    ],
)
async def test_error_answer_ends_the_sign_in(
    token: Any, user: Any, logged: str, caplog: pytest.LogCaptureFixture
) -> None:
    await check_sign_in_refused(Netlify(), NETLIFY.standin(token, user), caplog, logged)


def test_override_merges_params() -> None:
    provider = Netlify(authorization={"params": {"scope": "public"}})

    check_param_override(provider, NETLIFY, scope="public")
