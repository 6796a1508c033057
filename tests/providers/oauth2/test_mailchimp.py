"""Mailchimp: a sign-in against a stand-in of login.mailchimp.com with recorded answers."""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest

from authui.providers.mailchimp import Mailchimp
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

MAILCHIMP = Service(
    id="mailchimp",
    authorization="https://login.mailchimp.com/oauth2/authorize",
    token="https://login.mailchimp.com/oauth2/token",
    userinfo="GET https://login.mailchimp.com/oauth2/metadata",
    params={},
    checks=("state",),
)
TOKEN = canned("mailchimp/token.json")
METADATA = canned("mailchimp/metadata.json")


async def test_sign_in() -> None:
    standin = MAILCHIMP.standin(TOKEN, METADATA)
    outcome = await sign_in_through(Mailchimp(), standin)

    check_authorization(outcome, MAILCHIMP)
    check_token_request(outcome, standin, MAILCHIMP, in_form=True)
    never_expires = {k: v for k, v in TOKEN.items() if k != "expires_in"}  # "0" is dropped
    check_signed_in(
        outcome,
        MAILCHIMP,
        never_expires,
        account_id="152880934",
        name="Fernwood Bakery",
        email="ines.carvalho@fernwood.example",
        image=METADATA["login"]["avatar"],
    )
    assert "scope" not in outcome.account  # Mailchimp sends null
    metadata = standin.sent("GET", "https://login.mailchimp.com/oauth2/metadata")
    assert metadata.headers["authorization"] == f"OAuth {TOKEN['access_token']}"
    assert outcome.signed_in is not None
    assert outcome.signed_in["profile"]["api_endpoint"] == "https://us21.api.mailchimp.com"
    assert Mailchimp().email_verified(outcome.signed_in["profile"]) is False


def metadata_with(**login: Any) -> dict[str, Any]:
    changed: dict[str, Any] = copy.deepcopy(METADATA)
    changed["login"].update(login)
    return changed


@pytest.mark.parametrize(
    ("metadata", "name", "email", "image"),
    [
        pytest.param(metadata_with(avatar=None), "Fernwood Bakery",
                     "ines.carvalho@fernwood.example", None, id="no avatar"),
        pytest.param(metadata_with(avatar="/images/default.png"), "Fernwood Bakery",
                     "ines.carvalho@fernwood.example", None, id="avatar not a URL"),
        pytest.param({**METADATA, "accountname": ""}, "ines_fernwood",
                     "ines.carvalho@fernwood.example", METADATA["login"]["avatar"],
                     id="no account name: the login name"),
        pytest.param(metadata_with(email=None), "Fernwood Bakery",
                     "ines.carvalho@fernwood.example", METADATA["login"]["avatar"],
                     id="no email: the login email"),
    ],
)  # fmt: skip
async def test_profile_edges(
    metadata: dict[str, Any], name: str, email: str, image: str | None
) -> None:
    outcome = await sign_in_through(Mailchimp(), MAILCHIMP.standin(TOKEN, metadata))

    assert outcome.user.get("name") == name
    assert outcome.user.get("email") == email
    assert outcome.user.get("image") == image


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("mailchimp/token_error.json"))
    standin = MAILCHIMP.standin(refused, METADATA)
    await check_sign_in_refused(Mailchimp(), standin, caplog, "answered 400: invalid_grant")
    assert not any(r.method == "GET" for r in standin.requests)


async def test_an_invalid_token_answered_with_200_ends_on_the_error_page(
    caplog: pytest.LogCaptureFixture,
) -> None:
    standin = MAILCHIMP.standin(TOKEN, canned("mailchimp/metadata_error.json"))
    await check_sign_in_refused(Mailchimp(), standin, caplog, "invalid_token")


def test_override_keeps_the_metadata_request() -> None:
    provider = Mailchimp(authorization={"params": {"prompt": "login"}})

    check_param_override(provider, MAILCHIMP, prompt="login")
    assert provider.userinfo.request is Mailchimp().userinfo.request
    assert provider.client_auth == "client_secret_post"
