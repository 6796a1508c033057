"""Box: a sign-in against a stand-in of account.box.com and api.box.com with recorded
answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.box import Box
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

BOX = Service(
    id="box",
    authorization="https://account.box.com/api/oauth2/authorize",
    token="https://api.box.com/oauth2/token",
    userinfo="GET https://api.box.com/2.0/users/me",
    params={},
    checks=("state",),
)
TOKEN = canned("box/token.json")
USER = canned("box/user.json")


async def test_sign_in() -> None:
    standin = BOX.standin(TOKEN, USER)
    outcome = await sign_in_through(Box(), standin)

    check_authorization(outcome, BOX)
    assert "scope" not in outcome.params  # Box grants the scopes configured for the app
    check_token_request(outcome, standin, BOX, in_form=True)
    check_signed_in(
        outcome,
        BOX,
        TOKEN,
        account_id="20718451",
        name="Imogen Vasquez",
        email="imogen.vasquez@northwind.example",
        image="https://app.box.com/api/avatar/large/20718451",
    )
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]
    assert outcome.signed_in is not None
    assert Box().email_verified(outcome.signed_in["profile"]) is False
    profile = standin.sent("GET", "https://api.box.com/2.0/users/me")
    assert profile.headers["authorization"] == f"Bearer {TOKEN['access_token']}"


@pytest.mark.parametrize(
    ("changes", "name", "email", "image"),
    [
        pytest.param({"name": ""}, None, USER["login"], USER["avatar_url"], id="no name"),
        pytest.param({"avatar_url": None}, USER["name"], USER["login"], None, id="no avatar"),
        pytest.param(
            {"login": "Imogen.Vasquez@Northwind.example"},
            USER["name"],
            "imogen.vasquez@northwind.example",
            USER["avatar_url"],
            id="login in mixed case",
        ),
    ],
)
async def test_profile_edges(
    changes: dict[str, Any], name: str | None, email: str, image: str | None
) -> None:
    outcome = await sign_in_through(Box(), BOX.standin(TOKEN, {**USER, **changes}))

    assert outcome.user.get("name") == name
    assert outcome.user["email"] == email
    assert outcome.user.get("image") == image
    assert outcome.account["providerAccountId"] == "20718451"


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("box/token_error.json"))
    standin = BOX.standin(refused, USER)
    await check_sign_in_refused(Box(), standin, caplog, "invalid_grant")
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_adds_a_scope() -> None:
    provider = Box(authorization={"params": {"scope": "root_readonly"}})

    check_param_override(provider, BOX, scope="root_readonly")
    assert provider.client_auth == "client_secret_post"
    assert provider.checks == ("state",)
