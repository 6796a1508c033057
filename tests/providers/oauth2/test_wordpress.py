"""WordPress.com: a sign-in against a stand-in of public-api.wordpress.com with recorded
answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.wordpress import WordPress
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

WORDPRESS = Service(
    id="wordpress",
    authorization="https://public-api.wordpress.com/oauth2/authorize",
    token="https://public-api.wordpress.com/oauth2/token",
    userinfo="GET https://public-api.wordpress.com/rest/v1/me",
    params={"scope": "auth"},
    checks=("state",),
)
TOKEN = canned("wordpress/token.json")
USER = canned("wordpress/user.json")


async def test_sign_in() -> None:
    standin = WORDPRESS.standin(TOKEN, USER)
    outcome = await sign_in_through(WordPress(), standin)

    check_authorization(outcome, WORDPRESS)
    check_token_request(outcome, standin, WORDPRESS, in_form=True)
    check_signed_in(
        outcome,
        WORDPRESS,
        TOKEN,
        account_id="48177322",
        name="Hana Kobayashi",
        email="hana.kobayashi@mailbox.example",
        image=USER["avatar_URL"],
    )
    me = standin.sent("GET", "https://public-api.wordpress.com/rest/v1/me")
    assert me.headers["authorization"] == f"Bearer {TOKEN['access_token']}"
    assert outcome.signed_in is not None
    assert WordPress().email_verified(outcome.signed_in["profile"]) is True


@pytest.mark.parametrize(
    ("changes", "user", "verified"),
    [
        pytest.param(
            {"display_name": ""},
            {"name": "hanakobayashiwrites", "email": "hana.kobayashi@mailbox.example",
             "image": USER["avatar_URL"]},
            True,
            id="no display name: the username",
        ),
        pytest.param(
            {"email_verified": False},
            {"name": "Hana Kobayashi", "email": "hana.kobayashi@mailbox.example",
             "image": USER["avatar_URL"]},
            False,
            id="unverified email",
        ),
        pytest.param(
            {"email": "", "avatar_URL": ""},
            {"name": "Hana Kobayashi"},
            True,
            id="no email, no avatar",
        ),
    ],
)  # fmt: skip
async def test_profile_edges(changes: dict[str, Any], user: dict[str, str], verified: bool) -> None:
    outcome = await sign_in_through(WordPress(), WORDPRESS.standin(TOKEN, {**USER, **changes}))

    assert {k: v for k, v in outcome.user.items() if k != "id" and v is not None} == user
    assert outcome.account["providerAccountId"] == "48177322"
    assert outcome.signed_in is not None
    assert WordPress().email_verified(outcome.signed_in["profile"]) is verified


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("wordpress/token_error.json"))
    standin = WORDPRESS.standin(refused, USER)
    await check_sign_in_refused(WordPress(), standin, caplog, "answered 400: invalid_request")
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_merges_params() -> None:
    provider = WordPress(authorization={"params": {"scope": "auth posts", "blog": "1234"}})

    check_param_override(provider, WORDPRESS, scope="auth posts", blog="1234")
    assert provider.client_auth == "client_secret_post"
    assert provider.name == "WordPress.com"
