"""Mattermost: a sign-in against a stand-in of a Mattermost server with recorded answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.mattermost import Mattermost
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

SERVER = "https://chat.example.com"
MATTERMOST = Service(
    id="mattermost",
    authorization=f"{SERVER}/oauth/authorize",
    token=f"{SERVER}/oauth/access_token",
    userinfo=f"GET {SERVER}/api/v4/users/me",
    params={},
    checks=("state",),
)
TOKEN = canned("mattermost/token.json")
USER = canned("mattermost/user.json")


async def test_sign_in() -> None:
    standin = MATTERMOST.standin(TOKEN, USER)
    outcome = await sign_in_through(Mattermost(issuer=f"{SERVER}/"), standin)

    check_authorization(outcome, MATTERMOST)
    check_token_request(outcome, standin, MATTERMOST, in_form=True)
    user = {"name": "priya.raman", "email": "priya.raman@chat.example"}
    assert outcome.session["user"] == user  # no image: no key
    check_signed_in(
        outcome,
        MATTERMOST,
        TOKEN,
        account_id="w7k3n9qzjfgd5x1mbe4uct8ohy",
        image=None,
        **user,
    )
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]
    assert outcome.signed_in is not None
    assert Mattermost().email_verified(outcome.signed_in["profile"]) is True


@pytest.mark.parametrize(
    ("changes", "name", "verified"),
    [
        pytest.param({"username": ""}, "Priya Raman", True, id="no username: full name"),
        pytest.param({"username": "", "first_name": "", "last_name": ""}, None, True,
                     id="no names"),
        pytest.param({"email_verified": None}, "priya.raman", False,
                     id="unverified (Mattermost leaves the false flag out)"),
    ],
)  # fmt: skip
async def test_profile_edges(changes: dict[str, Any], name: str | None, verified: bool) -> None:
    user = {k: v for k, v in {**USER, **changes}.items() if v is not None}
    outcome = await sign_in_through(Mattermost(issuer=SERVER), MATTERMOST.standin(TOKEN, user))

    assert outcome.user.get("name") == name
    assert outcome.signed_in is not None
    assert Mattermost().email_verified(outcome.signed_in["profile"]) is verified


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("mattermost/token_error.json"))
    standin = MATTERMOST.standin(refused, USER)
    await check_sign_in_refused(Mattermost(issuer=SERVER), standin, caplog, "answered 400")
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_merges_params() -> None:
    provider = Mattermost(issuer=SERVER, authorization={"params": {"scope": "user"}})

    check_param_override(provider, MATTERMOST, scope="user")
    assert provider.client_auth == "client_secret_post"
    assert Mattermost().authorization.url is None  # no server URL yet
