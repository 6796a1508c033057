"""Mail.ru: a sign-in against a stand-in of oauth.mail.ru with recorded answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.mailru import Mailru
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

MAILRU = Service(
    id="mailru",
    authorization="https://oauth.mail.ru/login",
    token="https://oauth.mail.ru/token",
    userinfo="GET https://oauth.mail.ru/userinfo",
    params={"scope": "userinfo"},
    checks=("pkce", "state"),
)
TOKEN = canned("mailru/token.json")
USER = canned("mailru/user.json")


async def test_sign_in() -> None:
    standin = MAILRU.standin(TOKEN, USER)
    outcome = await sign_in_through(Mailru(), standin)

    check_authorization(outcome, MAILRU)
    check_token_request(outcome, standin, MAILRU)
    check_signed_in(
        outcome,
        MAILRU,
        TOKEN,
        account_id="6214782903517736412",
        name="Анна Смирнова",
        email="anna.smirnova@mail.example",
        image=USER["image"],
    )
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]
    sent = standin.sent("GET", "https://oauth.mail.ru/userinfo")
    assert sent.url.params["access_token"] == TOKEN["access_token"]
    assert sent.headers["authorization"] == f"Bearer {TOKEN['access_token']}"
    assert outcome.signed_in is not None
    assert Mailru().email_verified(outcome.signed_in["profile"]) is False


@pytest.mark.parametrize(
    ("changes", "name", "email", "image"),
    [
        pytest.param({"name": ""}, "Анна Смирнова", "anna.smirnova@mail.example",
                     USER["image"], id="no name: first and last name"),
        pytest.param({"name": None, "first_name": "", "last_name": None}, "anna.smirnova",
                     "anna.smirnova@mail.example", USER["image"], id="no names: nickname"),
        pytest.param({"email": None}, "Анна Смирнова", None, USER["image"], id="no email"),
        pytest.param({"image": ""}, "Анна Смирнова", "anna.smirnova@mail.example", None,
                     id="no image"),
    ],
)  # fmt: skip
async def test_profile_mapping(
    changes: dict[str, Any], name: str, email: str | None, image: str | None
) -> None:
    user = {k: v for k, v in {**USER, **changes}.items() if v is not None}
    outcome = await sign_in_through(Mailru(), MAILRU.standin(TOKEN, user))

    assert outcome.user.get("name") == name
    assert outcome.user.get("email") == email
    assert outcome.user.get("image") == image


def bad_code(request: httpx.Request) -> httpx.Response:
    return httpx.Response(
        400, json={"error": "invalid_grant", "error_code": 7, "error_description": "invalid code"}
    )


@pytest.mark.parametrize(
    ("token", "user", "logged"),
    [
        pytest.param(bad_code, USER, "invalid_grant", id="token endpoint: 400"),
        pytest.param(
            TOKEN,
            {"error": "invalid_token", "error_code": 6, "error_description": "token not found"},
            "token not found",
            id="userinfo: error in a 200 answer",
        ),
    ],
)
async def test_error_answer_ends_the_sign_in(
    token: Any, user: Any, logged: str, caplog: pytest.LogCaptureFixture
) -> None:
    await check_sign_in_refused(Mailru(), MAILRU.standin(token, user), caplog, logged)


def test_override_merges_params() -> None:
    provider = Mailru(authorization={"params": {"scope": "userinfo mail.imap"}})

    check_param_override(provider, MAILRU, scope="userinfo mail.imap")
