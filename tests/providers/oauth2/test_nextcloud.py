"""Nextcloud: a sign-in against a stand-in of a Nextcloud server with recorded answers."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import httpx
import pytest

from authui.providers.nextcloud import Nextcloud
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

SERVER = "https://cloud.example.com/nextcloud"
NEXTCLOUD = Service(
    id="nextcloud",
    authorization=f"{SERVER}/apps/oauth2/authorize",
    token=f"{SERVER}/apps/oauth2/api/v1/token",
    userinfo=f"GET {SERVER}/ocs/v1.php/cloud/users/elena",
    params={},
    checks=("state",),
)
TOKEN = canned("nextcloud/token.json")
USER = canned("nextcloud/user.json")


def user_with(**changes: Any) -> dict[str, Any]:
    """The recorded answer with ``changes`` to the user's data (``None`` removes a key)."""
    answer: dict[str, Any] = copy.deepcopy(USER)
    data = answer["ocs"]["data"]
    data.update(changes)
    answer["ocs"]["data"] = {k: v for k, v in data.items() if v is not None}
    return answer


async def test_sign_in() -> None:
    standin = NEXTCLOUD.standin(TOKEN, USER)
    outcome = await sign_in_through(Nextcloud(issuer=SERVER), standin)

    check_authorization(outcome, NEXTCLOUD)
    check_token_request(outcome, standin, NEXTCLOUD)
    check_signed_in(
        outcome,
        NEXTCLOUD,
        TOKEN,
        account_id="elena",
        name="Elena Sokolova",
        email="elena.sokolova@cloud.example",
        image=f"{SERVER}/avatar/elena/512",
    )
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]
    profile = standin.sent("GET", f"{SERVER}/ocs/v1.php/cloud/users/elena")
    assert profile.headers["ocs-apirequest"] == "true"
    assert profile.headers["accept"] == "application/json"
    assert profile.headers["authorization"] == f"Bearer {TOKEN['access_token']}"
    assert outcome.signed_in is not None
    assert Nextcloud().email_verified(outcome.signed_in["profile"]) is False


async def test_a_user_id_is_escaped_in_the_paths() -> None:
    user_id = "ana maria@example.org"
    route = f"GET {SERVER}/ocs/v1.php/cloud/users/ana%20maria%40example.org"
    standin = NEXTCLOUD.standin({**TOKEN, "user_id": user_id}, {}, **{route: user_with(id=user_id)})
    outcome = await sign_in_through(Nextcloud(issuer=SERVER), standin)

    assert outcome.account["providerAccountId"] == "ana maria@example.org"
    assert outcome.user["image"] == f"{SERVER}/avatar/ana%20maria%40example.org/512"


@pytest.mark.parametrize(
    ("answer", "name", "email"),
    [
        pytest.param(user_with(displayname=None), "Elena Sokolova", "elena.sokolova@cloud.example",
                     id="only the newer display-name"),
        pytest.param(user_with(displayname="", **{"display-name": ""}), None,
                     "elena.sokolova@cloud.example", id="no display name"),
        pytest.param(user_with(email=None), "Elena Sokolova", None, id="no email"),
    ],
)  # fmt: skip
async def test_profile_edges(answer: dict[str, Any], name: str | None, email: str | None) -> None:
    outcome = await sign_in_through(Nextcloud(issuer=SERVER), NEXTCLOUD.standin(TOKEN, answer))

    assert outcome.user.get("name") == name
    assert outcome.user.get("email") == email


@pytest.mark.parametrize(
    ("token", "answer", "logged"),
    [
        pytest.param(TOKEN, {"ocs": {"meta": {"status": "failure", "statuscode": 998},
                                     "data": []}}, "status 998", id="OCS failure"),
        pytest.param({k: v for k, v in TOKEN.items() if k != "user_id"}, USER, "no user_id",
                     id="token answer without user_id"),
    ],
)  # fmt: skip
async def test_a_profile_nextcloud_does_not_give_ends_on_the_error_page(
    token: dict[str, Any], answer: dict[str, Any], logged: str, caplog: pytest.LogCaptureFixture
) -> None:
    standin = NEXTCLOUD.standin(token, answer)
    await check_sign_in_refused(Nextcloud(issuer=SERVER), standin, caplog, logged)


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("nextcloud/token_error.json"))
    standin = NEXTCLOUD.standin(refused, USER)
    await check_sign_in_refused(
        Nextcloud(issuer=SERVER), standin, caplog, "answered 400: invalid_request"
    )
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_keeps_the_provisioning_request() -> None:
    provider = Nextcloud(issuer=SERVER, authorization={"params": {"prompt": "login"}})
    base = NEXTCLOUD.userinfo.rsplit("/", 1)[0]  # the user's id follows

    check_param_override(provider, dataclasses.replace(NEXTCLOUD, userinfo=base), prompt="login")
    assert provider.userinfo.request is Nextcloud().userinfo.request
