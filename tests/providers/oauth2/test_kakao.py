"""Kakao: a sign-in against a stand-in of kauth.kakao.com and kapi.kakao.com with recorded
answers."""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest

from authui.providers.kakao import Kakao
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

KAKAO = Service(
    id="kakao",
    authorization="https://kauth.kakao.com/oauth/authorize",
    token="https://kauth.kakao.com/oauth/token",
    userinfo="GET https://kapi.kakao.com/v2/user/me",
    params={},
    checks=("pkce", "state"),
)
TOKEN = canned("kakao/token.json")
USER = canned("kakao/user.json")
PHOTO = USER["kakao_account"]["profile"]["profile_image_url"]


def account_with(**changes: Any) -> dict[str, Any]:
    """The recorded user, with ``changes`` to ``kakao_account`` (``None`` removes a key;
    a ``profile`` mapping changes the nested profile the same way)."""
    user: dict[str, Any] = copy.deepcopy(USER)
    account = user["kakao_account"]
    for key, value in changes.items():
        if key == "profile" and isinstance(value, dict):
            account["profile"].update(value)
            account["profile"] = {k: v for k, v in account["profile"].items() if v is not None}
        elif value is None:
            account.pop(key, None)
        else:
            account[key] = value
    return user


async def test_sign_in() -> None:
    standin = KAKAO.standin(TOKEN, USER)
    outcome = await sign_in_through(Kakao(), standin)

    check_authorization(outcome, KAKAO)
    check_token_request(outcome, standin, KAKAO, in_form=True)
    check_signed_in(
        outcome,
        KAKAO,
        TOKEN,
        account_id="3401827756",
        name="민지",
        email="minji.park@kakao.example",
        image=PHOTO,
    )
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]
    assert outcome.signed_in is not None
    assert Kakao().email_verified(outcome.signed_in["profile"]) is True


@pytest.mark.parametrize(
    ("user", "name", "email", "image"),
    [
        pytest.param(account_with(profile={"is_default_image": True}), "민지",
                     "minji.park@kakao.example", None, id="Kakao's default image"),
        pytest.param(account_with(email=None, has_email=False, is_email_valid=None,
                                  is_email_verified=None, email_needs_agreement=True),
                     "민지", None, PHOTO, id="email not consented"),
        pytest.param(account_with(profile=None), "민지", "minji.park@kakao.example", None,
                     id="profile not consented: the legacy nickname"),
        pytest.param({**account_with(profile=None), "properties": {}}, None,
                     "minji.park@kakao.example", None, id="no nickname at all"),
    ],
)  # fmt: skip
async def test_nested_profile(
    user: dict[str, Any], name: str | None, email: str | None, image: str | None
) -> None:
    outcome = await sign_in_through(Kakao(), KAKAO.standin(TOKEN, user))

    assert outcome.user.get("name") == name
    assert outcome.user.get("email") == email
    assert outcome.user.get("image") == image


@pytest.mark.parametrize(
    ("changes", "verified"),
    [
        ({"is_email_verified": False}, False),
        ({"is_email_valid": False}, False),
        ({"email": None}, False),
    ],
    ids=["unverified", "no longer valid", "no email"],
)
def test_email_verification(changes: dict[str, Any], verified: bool) -> None:
    assert Kakao().email_verified(account_with(**changes)) is verified


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("kakao/token_error.json"))
    standin = KAKAO.standin(refused, USER)
    await check_sign_in_refused(Kakao(), standin, caplog, "answered 400: invalid_grant")
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_merges_params() -> None:
    provider = Kakao(authorization={"params": {"scope": "account_email"}})

    check_param_override(provider, KAKAO, scope="account_email")
    assert provider.client_auth == "client_secret_post"
