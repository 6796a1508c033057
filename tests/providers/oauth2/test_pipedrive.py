"""Pipedrive: a sign-in against a stand-in of oauth.pipedrive.com and a company's API
domain with recorded answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.pipedrive import Pipedrive
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

PIPEDRIVE = Service(
    id="pipedrive",
    authorization="https://oauth.pipedrive.com/oauth/authorize",
    token="https://oauth.pipedrive.com/oauth/token",
    userinfo="GET https://api.pipedrive.com/v1/users/me",
    params={},
    checks=("state",),
)
COMPANY_ME = "https://northwind-7.pipedrive.com/api/v1/users/me"
TOKEN = canned("pipedrive/token.json")
USER = canned("pipedrive/user.json")


def _user(**data: Any) -> dict[str, Any]:
    """The recorded profile with ``data`` fields replaced."""
    return {**USER, "data": {**USER["data"], **data}}


async def test_sign_in_reads_the_profile_at_the_company_domain() -> None:
    standin = PIPEDRIVE.standin(TOKEN, {}, **{f"GET {COMPANY_ME}": USER})
    outcome = await sign_in_through(Pipedrive(), standin)

    check_authorization(outcome, PIPEDRIVE)
    check_token_request(outcome, standin, PIPEDRIVE)
    check_signed_in(
        outcome,
        PIPEDRIVE,
        TOKEN,
        account_id="15732092",
        name="Marta Kask",
        email="marta.kask@northwind.example",
        image=USER["data"]["icon_url"],
    )
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]
    assert outcome.account["api_domain"] == "https://northwind-7.pipedrive.com"
    me = standin.sent("GET", COMPANY_ME)
    assert me.headers["authorization"] == f"Bearer {TOKEN['access_token']}"
    assert not any(str(r.url).startswith("https://api.pipedrive.com") for r in standin.requests)


@pytest.mark.parametrize(
    "api_domain",
    [None, "http://northwind-7.pipedrive.com", "https://pipedrive.com.evil.example"],
    ids=["no api_domain", "not https", "not a Pipedrive host"],
)
async def test_without_a_usable_api_domain_the_profile_is_read_at_api_pipedrive_com(
    api_domain: str | None,
) -> None:
    token = {k: v for k, v in {**TOKEN, "api_domain": api_domain}.items() if v is not None}
    standin = PIPEDRIVE.standin(token, USER)
    outcome = await sign_in_through(Pipedrive(), standin)

    assert outcome.account["providerAccountId"] == "15732092"
    assert [r.url.host for r in standin.requests if r.method == "GET"] == ["api.pipedrive.com"]


@pytest.mark.parametrize(
    ("data", "user"),
    [
        pytest.param({"icon_url": None}, {"name": "Marta Kask",
                                           "email": "marta.kask@northwind.example"},
                     id="no picture"),
        pytest.param({"name": "", "email": "Marta.Kask@Northwind.example"},
                     {"email": "marta.kask@northwind.example", "image": USER["data"]["icon_url"]},
                     id="no name; email lower-cased"),
    ],
)  # fmt: skip
async def test_profile_edges(data: dict[str, Any], user: dict[str, str]) -> None:
    standin = PIPEDRIVE.standin(TOKEN, {}, **{f"GET {COMPANY_ME}": _user(**data)})
    outcome = await sign_in_through(Pipedrive(), standin)

    assert {k: v for k, v in outcome.user.items() if k != "id" and v is not None} == user
    assert outcome.account["providerAccountId"] == "15732092"


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("pipedrive/token_error.json"))
    standin = PIPEDRIVE.standin(refused, USER)
    await check_sign_in_refused(Pipedrive(), standin, caplog, "answered 400: invalid_grant")
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_merges_params() -> None:
    provider = Pipedrive(authorization={"params": {"prompt": "consent"}})

    check_param_override(provider, PIPEDRIVE, prompt="consent")
    assert provider.checks == ("state",)
    assert provider.client_auth == "client_secret_basic"
