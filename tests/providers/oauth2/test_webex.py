"""Webex: a sign-in against a stand-in of webexapis.com with recorded answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.webex import Webex
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

WEBEX = Service(
    id="webex",
    authorization="https://webexapis.com/v1/authorize",
    token="https://webexapis.com/v1/access_token",
    userinfo="GET https://webexapis.com/v1/people/me",
    params={"scope": "spark:kms spark:people_read"},
)
TOKEN = canned("webex/token.json")
USER = canned("webex/user.json")


async def test_sign_in() -> None:
    standin = WEBEX.standin(TOKEN, USER)
    outcome = await sign_in_through(Webex(), standin)

    check_authorization(outcome, WEBEX)
    check_token_request(outcome, standin, WEBEX, in_form=True)
    check_signed_in(
        outcome,
        WEBEX,
        TOKEN,
        account_id=USER["id"],
        name="Tomasz Wolski",
        email="tomasz.wolski@contoso.example",
        image=USER["avatar"],
    )
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]
    me = standin.sent("GET", "https://webexapis.com/v1/people/me")
    assert me.headers["authorization"] == f"Bearer {TOKEN['access_token']}"


@pytest.mark.parametrize(
    ("changes", "user"),
    [
        pytest.param(
            {"emails": ["First@Contoso.example", "second@contoso.example"]},
            {"name": "Tomasz Wolski", "email": "first@contoso.example", "image": USER["avatar"]},
            id="several emails: the first, lower-cased",
        ),
        pytest.param(
            {"avatar": None, "displayName": None},
            {"email": "tomasz.wolski@contoso.example"},
            id="no avatar, no display name",
        ),
        pytest.param({"emails": []}, {"name": "Tomasz Wolski", "image": USER["avatar"]},
                     id="no email"),
    ],
)  # fmt: skip
async def test_profile_edges(changes: dict[str, Any], user: dict[str, str]) -> None:
    profile = {k: v for k, v in {**USER, **changes}.items() if v is not None}
    outcome = await sign_in_through(Webex(), WEBEX.standin(TOKEN, profile))

    assert {k: v for k, v in outcome.user.items() if k != "id" and v is not None} == user


async def test_another_api_site() -> None:
    base = "https://api-usgov.webex.com/v1"
    usgov = Service(
        id="webex",
        authorization=f"{base}/authorize",
        token=f"{base}/access_token",
        userinfo=f"GET {base}/people/me",
        params={"scope": "spark:kms spark:people_read"},
    )
    provider = Webex(api_base_url=f"{base}/")
    standin = usgov.standin(TOKEN, USER)
    outcome = await sign_in_through(provider, standin)

    check_authorization(outcome, usgov)
    check_token_request(outcome, standin, usgov, in_form=True)
    assert outcome.account["providerAccountId"] == USER["id"]
    assert provider.options == {"api_base_url": base}
    assert Webex(options={"api_base_url": base}).token == provider.token
    assert standin.unexpected == []


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("webex/token_error.json"))
    standin = WEBEX.standin(refused, USER)
    await check_sign_in_refused(
        Webex(), standin, caplog, "answered 400: invalid_grant (Invalid authorization code.)"
    )
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_merges_params() -> None:
    scope = "spark:kms spark:people_read spark:rooms_read"
    provider = Webex(authorization={"params": {"scope": scope}})

    check_param_override(provider, WEBEX, scope=scope)
    assert provider.checks == ("pkce",)
