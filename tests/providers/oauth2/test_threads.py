"""Threads: a sign-in against a stand-in of graph.threads.net with recorded answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.threads import Threads
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

THREADS = Service(
    id="threads",
    authorization="https://threads.net/oauth/authorize",
    token="https://graph.threads.net/oauth/access_token",
    userinfo="GET https://graph.threads.net/v1.0/me",
    params={"scope": "threads_basic"},
    checks=("state",),
)
TOKEN = canned("threads/token.json")
USER = canned("threads/user.json")


async def test_sign_in() -> None:
    standin = THREADS.standin(TOKEN, USER)
    outcome = await sign_in_through(Threads(), standin)

    check_authorization(outcome, THREADS)
    check_token_request(outcome, standin, THREADS, in_form=True)
    check_signed_in(
        outcome,
        THREADS,
        TOKEN,
        account_id="26487331590931125",
        name="Lena Mossgiel",
        email=None,
        image=USER["threads_profile_picture_url"],
    )
    me = standin.sent("GET", "https://graph.threads.net/v1.0/me")
    assert me.url.params["fields"] == "id,username,name,threads_profile_picture_url"
    assert me.headers["authorization"] == f"Bearer {TOKEN['access_token']}"
    assert outcome.account["user_id"] == TOKEN["user_id"]


@pytest.mark.parametrize(
    ("changes", "name", "image"),
    [
        pytest.param({"name": ""}, "lena.mossgiel", USER["threads_profile_picture_url"],
                     id="no display name: the username"),
        pytest.param({"name": None, "username": None}, None, USER["threads_profile_picture_url"],
                     id="no name at all"),
        pytest.param({"threads_profile_picture_url": None}, "Lena Mossgiel", None,
                     id="no picture"),
    ],
)  # fmt: skip
async def test_profile_edges(changes: dict[str, Any], name: str | None, image: str | None) -> None:
    user = {k: v for k, v in {**USER, **changes}.items() if v is not None}
    outcome = await sign_in_through(Threads(), THREADS.standin(TOKEN, user))

    assert outcome.user.get("name") == name
    assert outcome.user.get("image") == image
    assert outcome.user.get("email") is None
    assert outcome.account["providerAccountId"] == "26487331590931125"


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("threads/token_error.json"))
    standin = THREADS.standin(refused, USER)
    await check_sign_in_refused(Threads(), standin, caplog, "answered 400")
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_merges_params() -> None:
    provider = Threads(authorization={"params": {"scope": "threads_basic,threads_read_replies"}})

    check_param_override(provider, THREADS, scope="threads_basic,threads_read_replies")
    assert provider.checks == ("state",)
    assert provider.client_auth == "client_secret_post"
