"""FACEIT: a sign-in against a stand-in of accounts.faceit.com and api.faceit.com with
recorded answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.faceit import FACEIT
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

SERVICE = Service(
    id="faceit",
    authorization="https://accounts.faceit.com/accounts",
    token="https://api.faceit.com/auth/v1/oauth/token",
    userinfo="GET https://api.faceit.com/auth/v1/resources/userinfo",
    params={"redirect_popup": "true", "scope": "openid profile email"},
)
TOKEN = canned("faceit/token.json")
USER = canned("faceit/user.json")


async def test_sign_in() -> None:
    standin = SERVICE.standin(TOKEN, USER)
    outcome = await sign_in_through(FACEIT(), standin)

    check_authorization(outcome, SERVICE)
    check_token_request(outcome, standin, SERVICE)  # HTTP Basic, with the PKCE verifier
    check_signed_in(
        outcome,
        SERVICE,
        TOKEN,
        account_id="b2c4d6e8-f0a2-4c4e-86a8-0b2d4f6a8c0e",
        name="s0lstice",
        email="rafael.mendes@lamna.example",
        image=USER["picture"],
    )
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]
    assert outcome.signed_in is not None
    assert FACEIT().email_verified(outcome.signed_in["profile"]) is True


@pytest.mark.parametrize(
    ("changes", "name", "image", "verified"),
    [
        pytest.param({"name": "Rafael Mendes"}, "Rafael Mendes", USER["picture"], True,
                     id="a name wins over the nickname"),
        pytest.param({"picture": ""}, "s0lstice", None, True, id="no picture"),
        pytest.param({"email_verified": False}, "s0lstice", USER["picture"], False,
                     id="unverified email"),
        pytest.param({"email_verified": None}, "s0lstice", USER["picture"], False,
                     id="no email_verified claim"),
    ],
)  # fmt: skip
async def test_profile_edges(
    changes: dict[str, Any], name: str, image: str | None, verified: bool
) -> None:
    outcome = await sign_in_through(FACEIT(), SERVICE.standin(TOKEN, {**USER, **changes}))

    assert outcome.user["name"] == name
    assert outcome.user.get("image") == image
    assert outcome.signed_in is not None
    assert FACEIT().email_verified(outcome.signed_in["profile"]) is verified


async def test_the_account_id_falls_back_to_sub() -> None:
    user = {k: v for k, v in USER.items() if k != "guid"} | {"sub": USER["guid"]}
    outcome = await sign_in_through(FACEIT(), SERVICE.standin(TOKEN, user))

    assert outcome.account["providerAccountId"] == USER["guid"]


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("faceit/token_error.json"))
    await check_sign_in_refused(FACEIT(), SERVICE.standin(refused, USER), caplog, "invalid_grant")


def test_override_replaces_the_scope() -> None:
    provider = FACEIT(authorization={"params": {"scope": "openid profile email membership"}})

    check_param_override(provider, SERVICE, scope="openid profile email membership")
    assert provider.authorization.params["redirect_popup"] == "true"
    assert provider.client_auth == "client_secret_basic"
