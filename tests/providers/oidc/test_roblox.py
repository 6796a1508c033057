"""Roblox: an issuer ending with a slash, ``openid profile`` without email, PKCE and
state, the avatar from userinfo."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.roblox import Roblox
from tests.oauth.standin import OIDCStandIn, canned, sign_in_through
from tests.providers.oauth2.plain_oauth import check_sign_in_refused
from tests.providers.oidc.common import (
    canned_standin,
    check_account,
    check_authorization,
    check_token_request,
    location,
    mapped,
)

ISSUER = "https://apis.roblox.com/oauth/"
USERINFO = "https://apis.roblox.com/oauth/v1/userinfo"
SUB = "2847561930"


def roblox_standin(**userinfo: Any) -> OIDCStandIn:
    return canned_standin("roblox", ISSUER, userinfo={**canned("roblox/userinfo.json"), **userinfo})


async def test_sign_in() -> None:
    provider = Roblox()
    standin = roblox_standin()
    outcome = await sign_in_through(provider, standin)
    check_authorization(outcome, standin, provider, {"scope": "openid profile"})
    check_token_request(outcome, standin, provider)
    account = check_account(outcome, provider, SUB)
    assert account["refresh_token"] == canned("roblox/token.json")["refresh_token"]
    assert mapped(outcome) == {
        "name": "Brick Builder",
        "email": None,
        "image": canned("roblox/userinfo.json")["picture"],
    }
    userinfo = standin.sent("GET", USERINFO)  # the id_token has no email, nor the avatar
    assert (
        userinfo.headers["authorization"] == f"Bearer {canned('roblox/token.json')['access_token']}"
    )
    assert outcome.signed_in is not None
    profile = outcome.signed_in["profile"]
    assert profile["preferred_username"] == "brickbuilder_42"
    assert profile["iss"] == ISSUER
    assert not provider.email_verified(profile)
    assert standin.unexpected == []


async def test_an_avatar_not_yet_made_gives_no_image() -> None:
    outcome = await sign_in_through(Roblox(), roblox_standin(picture=None))
    assert mapped(outcome) == {"name": "Brick Builder", "email": None}


async def test_an_id_token_whose_issuer_lacks_the_slash_is_refused(
    caplog: pytest.LogCaptureFixture,
) -> None:
    claims = {**canned("roblox/id_token.json"), "iss": ISSUER.rstrip("/")}
    standin = canned_standin("roblox", ISSUER, claims=claims)
    outcome = await sign_in_through(Roblox(), standin)
    assert outcome.signed_in is None
    assert "error=" in location(outcome.callback)
    assert "Invalid claim: 'iss'" in caplog.text


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    standin = roblox_standin()
    refused = httpx.Response(400, json=canned("roblox/token_error.json"))
    standin.routes[f"POST {standin.discovery['token_endpoint']}"] = refused
    await check_sign_in_refused(Roblox(), standin, caplog, "invalid or has expired")
    assert not any(str(r.url) == USERINFO for r in standin.requests)
