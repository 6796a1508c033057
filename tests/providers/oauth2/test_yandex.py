"""Yandex: a sign-in against a stand-in of Yandex ID with recorded answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.yandex import Yandex
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

YANDEX = Service(
    id="yandex",
    authorization="https://oauth.yandex.ru/authorize",
    token="https://oauth.yandex.ru/token",
    userinfo="GET https://login.yandex.ru/info",
    params={"scope": "login:info login:email login:avatar"},
)
TOKEN = canned("yandex/token.json")
USER = canned("yandex/user.json")
AVATAR = (
    "https://avatars.yandex.net/get-yapic/27503/enc-0f9e8d7c6b5a49382716a5b4c3d2e1f0/islands-200"
)


async def test_sign_in() -> None:
    standin = YANDEX.standin(TOKEN, USER)
    outcome = await sign_in_through(Yandex(), standin)

    check_authorization(outcome, YANDEX)
    check_token_request(outcome, standin, YANDEX)
    check_signed_in(
        outcome,
        YANDEX,
        TOKEN,
        account_id="1130000061523947",
        name="Ivan",
        email="ivan.petrov.example@yandex.ru",
        image=AVATAR,
    )
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]
    sent = standin.sent("GET", "https://login.yandex.ru/info")
    assert sent.url.params["format"] == "json"
    assert sent.headers["authorization"] == f"OAuth {TOKEN['access_token']}"
    assert outcome.signed_in is not None
    assert Yandex().email_verified(outcome.signed_in["profile"]) is False


@pytest.mark.parametrize(
    ("changes", "user"),
    [
        pytest.param({"display_name": None}, {"name": "Ivan Petrov",
                     "email": "ivan.petrov.example@yandex.ru", "image": AVATAR},
                     id="no display name: the real name"),
        pytest.param({"display_name": None, "real_name": None, "first_name": None},
                     {"name": "ivan.petrov.example", "email": "ivan.petrov.example@yandex.ru",
                      "image": AVATAR}, id="no names: the login"),
        pytest.param({"default_email": None, "emails": ["ivan@other.example"]},
                     {"name": "Ivan", "email": "ivan@other.example", "image": AVATAR},
                     id="no default email: the first of emails"),
        pytest.param({"default_email": None, "emails": None},
                     {"name": "Ivan", "image": AVATAR}, id="login:email not granted"),
        pytest.param({"is_avatar_empty": True}, {"name": "Ivan",
                     "email": "ivan.petrov.example@yandex.ru"}, id="stub avatar"),
        pytest.param({"default_avatar_id": None, "is_avatar_empty": None}, {"name": "Ivan",
                     "email": "ivan.petrov.example@yandex.ru"}, id="login:avatar not granted"),
    ],
)  # fmt: skip
async def test_profile_mapping(changes: dict[str, Any], user: dict[str, str]) -> None:
    answer = {k: v for k, v in {**USER, **changes}.items() if v is not None}
    outcome = await sign_in_through(Yandex(), YANDEX.standin(TOKEN, answer))

    assert {k: v for k, v in outcome.user.items() if k != "id" and v is not None} == user


@pytest.mark.parametrize(
    ("token", "user", "logged"),
    [
        pytest.param(
            httpx.Response(400, json=canned("yandex/token_error.json")),
            USER,
            "answered 400: invalid_grant",
            id="token endpoint: expired code",
        ),
        pytest.param(
            TOKEN,
            httpx.Response(401, text="invalid token"),
            "401 Unauthorized",
            id="profile: token refused",
        ),
    ],
)
async def test_error_answer_ends_the_sign_in(
    token: Any, user: Any, logged: str, caplog: pytest.LogCaptureFixture
) -> None:
    await check_sign_in_refused(Yandex(), YANDEX.standin(token, user), caplog, logged)


def test_override_merges_params() -> None:
    provider = Yandex(authorization={"params": {"scope": "login:info", "force_confirm": "yes"}})

    check_param_override(provider, YANDEX, scope="login:info", force_confirm="yes")
    assert provider.userinfo == Yandex().userinfo
