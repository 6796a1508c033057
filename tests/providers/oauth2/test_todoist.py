"""Todoist: a sign-in against a stand-in of todoist.com and api.todoist.com with recorded
answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.checks import oauth_provider_errors
from authui.providers.todoist import Todoist
from tests.oauth.standin import CLIENT_ID, CLIENT_SECRET, canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

TODOIST = Service(
    id="todoist",
    authorization="https://todoist.com/oauth/authorize",
    token="https://todoist.com/oauth/access_token",
    userinfo="GET https://api.todoist.com/api/v1/user",
    params={"scope": "data:read"},
    checks=("state",),
)
TOKEN = canned("todoist/token.json")
USER = canned("todoist/user.json")


async def test_sign_in() -> None:
    standin = TODOIST.standin(TOKEN, USER)
    outcome = await sign_in_through(Todoist(), standin)

    check_authorization(outcome, TODOIST)
    check_token_request(outcome, standin, TODOIST, in_form=True)
    check_signed_in(
        outcome,
        TODOIST,
        TOKEN,
        account_id="2671355",
        name="Jordan Ellis",
        email="jordan.ellis@todoist.example",
        image=USER["avatar_big"],
    )
    assert "refresh_token" not in outcome.account
    user = standin.sent("GET", "https://api.todoist.com/api/v1/user")
    assert user.headers["authorization"] == f"Bearer {TOKEN['access_token']}"
    assert outcome.signed_in is not None
    assert Todoist().email_verified(outcome.signed_in["profile"]) is False


def test_passes_the_configuration_check() -> None:
    provider = Todoist(client_id=CLIENT_ID, client_secret=CLIENT_SECRET)

    assert oauth_provider_errors(provider) == []


@pytest.mark.parametrize(
    ("changes", "user"),
    [
        pytest.param(
            {"avatar_big": None, "image_id": None},
            {"name": "Jordan Ellis", "email": "jordan.ellis@todoist.example"},
            id="no photo",
        ),
        pytest.param(
            {"full_name": ""},
            {"email": "jordan.ellis@todoist.example", "image": USER["avatar_big"]},
            id="no name",
        ),
        pytest.param(
            {"email": None},
            {"name": "Jordan Ellis", "image": USER["avatar_big"]},
            id="no email",
        ),
    ],
)
async def test_profile_edges(changes: dict[str, Any], user: dict[str, str]) -> None:
    answer = {k: v for k, v in {**USER, **changes}.items() if v is not None}
    outcome = await sign_in_through(Todoist(), TODOIST.standin(TOKEN, answer))

    assert {k: v for k, v in outcome.user.items() if k != "id" and v is not None} == user


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("todoist/token_error.json"))
    standin = TODOIST.standin(refused, USER)
    await check_sign_in_refused(Todoist(), standin, caplog, "answered 400: bad_authorization_code")
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_merges_params() -> None:
    provider = Todoist(authorization={"params": {"scope": "data:read,task:add"}})

    check_param_override(provider, TODOIST, scope="data:read,task:add")
    assert provider.client_auth == "client_secret_post"
