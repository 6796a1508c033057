"""Coinbase: a sign-in against a stand-in of login.coinbase.com and api.coinbase.com with
recorded answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.coinbase import Coinbase
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

COINBASE = Service(
    id="coinbase",
    authorization="https://login.coinbase.com/oauth2/auth",
    token="https://login.coinbase.com/oauth2/token",
    userinfo="GET https://api.coinbase.com/v2/user",
    params={"scope": "wallet:user:email wallet:user:read"},
)
TOKEN = canned("coinbase/token.json")
USER = canned("coinbase/user.json")


def _user(**changes: Any) -> dict[str, Any]:
    return {**USER, "data": {**USER["data"], **changes}}


async def test_sign_in() -> None:
    standin = COINBASE.standin(TOKEN, USER)
    outcome = await sign_in_through(Coinbase(), standin)

    check_authorization(outcome, COINBASE)
    check_token_request(outcome, standin, COINBASE, in_form=True)
    check_signed_in(
        outcome,
        COINBASE,
        TOKEN,
        account_id="9da7a204-544e-5fd1-9a12-61176c5d4cd8",
        name="Lena Albrecht",
        email="lena.albrecht@contoso.example",
        image=USER["data"]["avatar_url"],
    )
    assert "refresh_token" not in outcome.account  # only with the offline_access scope
    assert outcome.signed_in is not None
    assert outcome.signed_in["profile"]["data"]["username"] == "lena_albrecht"
    assert Coinbase().email_verified(outcome.signed_in["profile"]) is False


@pytest.mark.parametrize(
    ("changes", "name", "email", "image"),
    [
        pytest.param(
            {"email": None}, "Lena Albrecht", None, USER["data"]["avatar_url"],
            id="no wallet:user:email scope",
        ),
        pytest.param(
            {"name": None}, "lena_albrecht", "lena.albrecht@contoso.example",
            USER["data"]["avatar_url"], id="no name: the username",
        ),
        pytest.param(
            {"avatar_url": None}, "Lena Albrecht", "lena.albrecht@contoso.example", None,
            id="no avatar",
        ),
    ],
)  # fmt: skip
async def test_profile_edges(
    changes: dict[str, Any], name: str, email: str | None, image: str | None
) -> None:
    outcome = await sign_in_through(Coinbase(), COINBASE.standin(TOKEN, _user(**changes)))

    assert outcome.user.get("name") == name
    assert outcome.user.get("email") == email
    assert outcome.user.get("image") == image


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("coinbase/token_error.json"))
    await check_sign_in_refused(
        Coinbase(), COINBASE.standin(refused, USER), caplog, "invalid_grant"
    )


def test_override_replaces_the_scope() -> None:
    provider = Coinbase(authorization={"params": {"scope": "wallet:user:read offline_access"}})

    check_param_override(provider, COINBASE, scope="wallet:user:read offline_access")
    assert provider.client_auth == "client_secret_post"
    assert provider.checks == ("pkce",)
