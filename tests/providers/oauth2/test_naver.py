"""Naver: a sign-in against a stand-in of nid.naver.com and openapi.naver.com with recorded
answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.naver import Naver
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

NAVER = Service(
    id="naver",
    authorization="https://nid.naver.com/oauth2.0/authorize",
    token="https://nid.naver.com/oauth2.0/token",
    userinfo="GET https://openapi.naver.com/v1/nid/me",
    params={},
    checks=("state",),
)
TOKEN = canned("naver/token.json")
USER = canned("naver/user.json")
MEMBER = USER["response"]


async def test_sign_in() -> None:
    standin = NAVER.standin(TOKEN, USER)
    outcome = await sign_in_through(Naver(), standin)

    check_authorization(outcome, NAVER)
    check_token_request(outcome, standin, NAVER, in_form=True)
    check_signed_in(
        outcome,
        NAVER,
        TOKEN,  # expires_in is the string "3600"
        account_id=MEMBER["id"],
        name="하늘바람",
        email="seoyeon.kim@naver.example",
        image=MEMBER["profile_image"],
    )
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]
    assert outcome.signed_in is not None
    assert Naver().email_verified(outcome.signed_in["profile"]) is False


@pytest.mark.parametrize(
    ("changes", "user"),
    [
        pytest.param({"nickname": None}, {"name": "김서연", "email": "seoyeon.kim@naver.example",
                     "image": MEMBER["profile_image"]}, id="no nickname: the real name"),
        pytest.param({"email": None, "profile_image": None}, {"name": "하늘바람"},
                     id="email and photo not consented"),
        pytest.param({"nickname": None, "name": None}, {"email": "seoyeon.kim@naver.example",
                     "image": MEMBER["profile_image"]}, id="no name at all"),
    ],
)  # fmt: skip
async def test_nested_profile(changes: dict[str, Any], user: dict[str, str]) -> None:
    member = {k: v for k, v in {**MEMBER, **changes}.items() if v is not None}
    outcome = await sign_in_through(Naver(), NAVER.standin(TOKEN, {**USER, "response": member}))

    assert {k: v for k, v in outcome.user.items() if k != "id" and v is not None} == user


async def test_a_refused_code_answered_with_200_ends_on_the_error_page(
    caplog: pytest.LogCaptureFixture,
) -> None:
    standin = NAVER.standin(canned("naver/token_error.json"), USER)
    await check_sign_in_refused(Naver(), standin, caplog, "invalid_request")
    assert not any(r.method == "GET" for r in standin.requests)


async def test_a_refused_token_at_the_profile_ends_on_the_error_page(
    caplog: pytest.LogCaptureFixture,
) -> None:
    failed = {"resultcode": "024", "message": "Authentication failed / 인증에 실패했습니다."}
    standin = NAVER.standin(TOKEN, httpx.Response(401, json=failed))
    await check_sign_in_refused(Naver(), standin, caplog, "answered 401")


def test_override_merges_params() -> None:
    provider = Naver(authorization={"params": {"auth_type": "reprompt"}})

    check_param_override(provider, NAVER, auth_type="reprompt")
    assert provider.client_auth == "client_secret_post"
