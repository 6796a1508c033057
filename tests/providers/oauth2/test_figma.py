"""Figma: a sign-in against a stand-in of figma.com with recorded answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.figma import Figma
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

FIGMA = Service(
    id="figma",
    authorization="https://www.figma.com/oauth",
    token="https://api.figma.com/v1/oauth/token",
    userinfo="GET https://api.figma.com/v1/me",
    params={"scope": "current_user:read"},
    checks=("pkce", "state"),
)
TOKEN = canned("figma/token.json")
USER = canned("figma/user.json")


async def test_sign_in() -> None:
    standin = FIGMA.standin(TOKEN, USER)
    outcome = await sign_in_through(Figma(), standin)

    check_authorization(outcome, FIGMA)
    check_token_request(outcome, standin, FIGMA)
    check_signed_in(
        outcome,
        FIGMA,
        TOKEN,
        account_id="1268309472651830291",
        name="Tomás Reyes",
        email="tomas.reyes@figma-user.example",
        image=USER["img_url"],
    )
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]
    me = standin.sent("GET", "https://api.figma.com/v1/me")
    assert me.headers["authorization"] == f"Bearer {TOKEN['access_token']}"
    assert outcome.signed_in is not None
    assert Figma().email_verified(outcome.signed_in["profile"]) is False
    assert standin.unexpected == []


async def test_a_forged_state_is_refused() -> None:
    standin = FIGMA.standin(TOKEN, USER)
    outcome = await sign_in_through(Figma(), standin, callback_params={"state": "forged"})

    assert outcome.signed_in is None
    assert not any(r.url.path == "/v1/oauth/token" for r in standin.requests)


@pytest.mark.parametrize(
    ("changes", "name", "email", "image"),
    [
        pytest.param({"handle": ""}, None, USER["email"], USER["img_url"], id="no handle"),
        pytest.param({"email": None}, USER["handle"], None, USER["img_url"], id="no email"),
        pytest.param({"img_url": ""}, USER["handle"], USER["email"], None, id="no picture"),
    ],
)
async def test_profile_edges(
    changes: dict[str, Any], name: str | None, email: str | None, image: str | None
) -> None:
    outcome = await sign_in_through(Figma(), FIGMA.standin(TOKEN, {**USER, **changes}))

    assert outcome.user.get("name") == name
    assert outcome.user.get("email") == email
    assert outcome.user.get("image") == image


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("figma/token_error.json"))
    standin = FIGMA.standin(refused, USER)
    await check_sign_in_refused(Figma(), standin, caplog, "answered 400")
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_merges_params() -> None:
    scope = "current_user:read file_content:read"
    provider = Figma(authorization={"params": {"scope": scope}})

    check_param_override(provider, FIGMA, scope=scope)
    assert provider.checks == ("pkce", "state")
