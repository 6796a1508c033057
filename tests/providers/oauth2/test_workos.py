"""WorkOS: a sign-in against a stand-in of api.workos.com with recorded answers."""

from __future__ import annotations

import dataclasses
from typing import Any

import httpx
import pytest

from authui.providers.workos import WorkOS
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

WORKOS = Service(
    id="workos",
    authorization="https://api.workos.com/sso/authorize",
    token="https://api.workos.com/sso/token",
    userinfo="GET https://api.workos.com/sso/profile",
    params={"connection": "conn_01HZBC9H4PN2ZSX6V8QK1M5T7D"},
)
TOKEN = canned("workos/token.json")
PROFILE = TOKEN["profile"]
CONNECTION = "conn_01HZBC9H4PN2ZSX6V8QK1M5T7D"


def _token(**profile: Any) -> dict[str, Any]:
    """The recorded token answer with profile fields changed (``None``: left out)."""
    changed = {k: v for k, v in {**PROFILE, **profile}.items() if v is not None}
    return {**TOKEN, "profile": changed}


async def test_sign_in_takes_the_profile_from_the_token_answer() -> None:
    standin = WORKOS.standin(TOKEN, {})
    outcome = await sign_in_through(WorkOS(connection=CONNECTION), standin)

    check_authorization(outcome, WORKOS)
    check_token_request(outcome, standin, WORKOS, in_form=True)
    check_signed_in(
        outcome,
        WORKOS,
        TOKEN,
        account_id="prof_01JKX3SZ2M7Q4W8E1R5T9Y3U6I",
        name="Dana Whitfield",
        email="dana.whitfield@initech.example",
        image=PROFILE["raw_attributes"]["picture"],
    )
    assert [r.method for r in standin.requests] == ["POST"]
    assert outcome.signed_in is not None
    assert outcome.signed_in["profile"]["organization_id"] == PROFILE["organization_id"]


async def test_the_profile_endpoint_when_the_token_answer_has_none() -> None:
    token = {k: v for k, v in TOKEN.items() if k != "profile"}
    standin = WORKOS.standin(token, PROFILE)
    outcome = await sign_in_through(WorkOS(connection=CONNECTION), standin)

    assert outcome.account["providerAccountId"] == "prof_01JKX3SZ2M7Q4W8E1R5T9Y3U6I"
    sent = standin.sent("GET", "https://api.workos.com/sso/profile")
    assert sent.headers["authorization"] == f"Bearer {TOKEN['access_token']}"


async def test_the_connection_can_be_chosen_per_sign_in() -> None:
    standin = WORKOS.standin(TOKEN, {})
    query = {"organization": "org_01HZBC6N1EB1ZY7KG32XAS7R3A", "login_hint": "dana@initech.example"}
    outcome = await sign_in_through(WorkOS(), standin, query=query)

    check_authorization(outcome, dataclasses.replace(WORKOS, params={}), **query)


@pytest.mark.parametrize(
    ("profile", "user"),
    [
        pytest.param({"last_name": None}, {"name": "Dana", "email": PROFILE["email"],
                                           "image": PROFILE["raw_attributes"]["picture"]},
                     id="no last name"),
        pytest.param({"first_name": "", "last_name": "", "raw_attributes": {}},
                     {"email": PROFILE["email"]}, id="no name, no picture"),
    ],
)  # fmt: skip
async def test_profile_edges(profile: dict[str, Any], user: dict[str, str]) -> None:
    outcome = await sign_in_through(WorkOS(), WORKOS.standin(_token(**profile), {}))

    assert {k: v for k, v in outcome.user.items() if k != "id" and v is not None} == user


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("workos/token_error.json"))
    standin = WORKOS.standin(refused, PROFILE)
    await check_sign_in_refused(WorkOS(), standin, caplog, "answered 400: invalid_grant")
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_merges_params() -> None:
    provider = WorkOS(connection=CONNECTION, authorization={"params": {"domain_hint": "x.io"}})

    check_param_override(provider, WORKOS, domain_hint="x.io")
    assert provider.options == {"connection": CONNECTION}
    by_organization = WorkOS(options={"organization": "org_1"})
    assert dict(by_organization.authorization.params) == {"organization": "org_1"}
    own_domain = WorkOS(issuer="https://sso.initech.example/")
    assert own_domain.token.url == "https://sso.initech.example/sso/token"
