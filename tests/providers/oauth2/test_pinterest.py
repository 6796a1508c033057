"""Pinterest: a sign-in against a stand-in of api.pinterest.com with recorded answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.pinterest import Pinterest
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

PINTEREST = Service(
    id="pinterest",
    authorization="https://www.pinterest.com/oauth",
    token="https://api.pinterest.com/v5/oauth/token",
    userinfo="GET https://api.pinterest.com/v5/user_account",
    params={"scope": "user_accounts:read"},
    checks=("state",),
)
TOKEN = canned("pinterest/token.json")
USER = canned("pinterest/user.json")


async def test_sign_in() -> None:
    standin = PINTEREST.standin(TOKEN, USER)
    outcome = await sign_in_through(Pinterest(), standin)

    check_authorization(outcome, PINTEREST)
    check_token_request(outcome, standin, PINTEREST)
    check_signed_in(
        outcome,
        PINTEREST,
        TOKEN,
        account_id="549755885175",
        name="hollyhockgardens",
        email=None,
        image=USER["profile_image"],
    )
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]
    sent = standin.sent("GET", "https://api.pinterest.com/v5/user_account")
    assert sent.headers["authorization"] == f"Bearer {TOKEN['access_token']}"


@pytest.mark.parametrize(
    ("changes", "account_id", "user"),
    [
        pytest.param(
            {"account_type": "BUSINESS", "business_name": "Hollyhock Gardens"},
            "549755885175",
            {"name": "Hollyhock Gardens", "image": USER["profile_image"]},
            id="business account: its business name",
        ),
        pytest.param(
            {"profile_image": None},
            "549755885175",
            {"name": "hollyhockgardens"},
            id="no image",
        ),
        pytest.param(
            {"id": None},
            "hollyhockgardens",
            {"name": "hollyhockgardens", "image": USER["profile_image"]},
            id="no id: the username, as Auth.js",
        ),
    ],
)
async def test_profile_edges(
    changes: dict[str, Any], account_id: str, user: dict[str, str]
) -> None:
    answer = {k: v for k, v in {**USER, **changes}.items() if v is not None}
    outcome = await sign_in_through(Pinterest(), PINTEREST.standin(TOKEN, answer))

    assert outcome.account["providerAccountId"] == account_id
    assert {k: v for k, v in outcome.user.items() if k != "id" and v is not None} == user


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("pinterest/token_error.json"))
    standin = PINTEREST.standin(refused, USER)
    await check_sign_in_refused(Pinterest(), standin, caplog, "answered 400")
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_merges_params() -> None:
    provider = Pinterest(authorization={"params": {"scope": "user_accounts:read,boards:read"}})

    check_param_override(provider, PINTEREST, scope="user_accounts:read,boards:read")
    assert provider.checks == ("state",)
