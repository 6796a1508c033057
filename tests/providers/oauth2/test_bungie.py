"""Bungie: a sign-in against a stand-in of www.bungie.net with recorded answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui import AuthConfig, set_env_defaults
from authui.providers.bungie import Bungie, BungieProvider
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

BUNGIE = Service(
    id="bungie",
    authorization="https://www.bungie.net/en/OAuth/Authorize",
    token="https://www.bungie.net/platform/app/oauth/token/",
    userinfo="GET https://www.bungie.net/Platform/User/GetMembershipsForCurrentUser/",
    params={"reauth": "true"},
    checks=("state",),
)
API_KEY = "6f2a9c1e4b7d4e0a8c3f5b1d9e7a2c4f"
TOKEN = canned("bungie/token.json")
USER = canned("bungie/user.json")
AVATAR = "https://www.bungie.net/img/profile/avatars/HaloRingcopy.gif"


def _user(**changes: Any) -> dict[str, Any]:
    user = {**USER["Response"]["bungieNetUser"], **changes}
    return {**USER, "Response": {**USER["Response"], "bungieNetUser": user}}


async def test_sign_in() -> None:
    standin = BUNGIE.standin(TOKEN, USER)
    outcome = await sign_in_through(Bungie(api_key=API_KEY), standin)

    check_authorization(outcome, BUNGIE)
    assert "scope" not in outcome.params
    check_token_request(outcome, standin, BUNGIE)  # HTTP Basic, no PKCE
    check_signed_in(
        outcome,
        BUNGIE,
        TOKEN,
        account_id="14920202",
        name="Cayde",
        email=None,
        image=AVATAR,
    )
    assert outcome.account["providerAccountId"] == TOKEN["membership_id"]
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]
    sent = standin.sent("GET", BUNGIE.userinfo.split(" ", 1)[1])
    assert sent.headers["x-api-key"] == API_KEY
    assert sent.headers["authorization"] == f"Bearer {TOKEN['access_token']}"


def test_the_api_key_may_come_as_an_option_or_from_the_environment() -> None:
    assert Bungie(options={"api_key": API_KEY}).api_key == API_KEY
    assert Bungie(api_key=API_KEY).api_key == API_KEY
    assert Bungie().api_key is None
    config = set_env_defaults(
        {"AUTH_BUNGIE_ID": "id", "AUTH_BUNGIE_SECRET": "s", "AUTH_BUNGIE_KEY": API_KEY},
        AuthConfig(providers=[Bungie()]),
    )
    (provider,) = config.providers
    assert isinstance(provider, BungieProvider)
    assert (provider.client_id, provider.api_key) == ("id", API_KEY)


@pytest.mark.parametrize(
    ("changes", "name", "image"),
    [
        pytest.param({"profilePicturePath": "img/profile/avatars/HaloRingcopy.gif"}, "Cayde",
                     AVATAR, id="path without a leading slash"),
        pytest.param({"profilePicturePath": None}, "Cayde", None, id="no picture"),
        pytest.param({"displayName": ""}, "Cayde#6214", AVATAR, id="no display name"),
    ],
)  # fmt: skip
async def test_profile_edges(changes: dict[str, Any], name: str, image: str | None) -> None:
    outcome = await sign_in_through(
        Bungie(api_key=API_KEY), BUNGIE.standin(TOKEN, _user(**changes))
    )

    assert outcome.user["name"] == name
    assert outcome.user.get("image") == image


async def test_without_an_api_key_the_sign_in_fails(caplog: pytest.LogCaptureFixture) -> None:
    standin = BUNGIE.standin(TOKEN, USER)
    await check_sign_in_refused(Bungie(), standin, caplog, "API key")
    assert not any(r.method == "GET" for r in standin.requests)


async def test_a_platform_error_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    standin = BUNGIE.standin(TOKEN, canned("bungie/api_error.json"))
    await check_sign_in_refused(
        Bungie(api_key="revoked"), standin, caplog, "ApiInvalidOrExpiredKey"
    )


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("bungie/token_error.json"))
    standin = BUNGIE.standin(refused, USER)
    await check_sign_in_refused(Bungie(api_key=API_KEY), standin, caplog, "invalid_grant")


def test_override_adds_params() -> None:
    provider = Bungie(api_key=API_KEY, authorization={"params": {"reauth": "false"}})

    check_param_override(provider, BUNGIE, reauth="false")
    assert provider.api_key == API_KEY
