"""Patreon: a sign-in against a stand-in of www.patreon.com with recorded answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.patreon import Patreon
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

PATREON = Service(
    id="patreon",
    authorization="https://www.patreon.com/oauth2/authorize",
    token="https://www.patreon.com/api/oauth2/token",
    userinfo="GET https://www.patreon.com/api/oauth2/v2/identity",
    params={"scope": "identity identity[email]"},
    checks=("state",),
)
TOKEN = canned("patreon/token.json")
USER = canned("patreon/user.json")


def _user(**attributes: Any) -> dict[str, Any]:
    """The recorded identity with ``attributes`` replaced (``None``: left out)."""
    kept = {**USER["data"]["attributes"], **attributes}
    data = {**USER["data"], "attributes": {k: v for k, v in kept.items() if v is not None}}
    return {**USER, "data": data}


async def test_sign_in() -> None:
    standin = PATREON.standin(TOKEN, USER)
    outcome = await sign_in_through(Patreon(), standin)

    check_authorization(outcome, PATREON)
    check_token_request(outcome, standin, PATREON, in_form=True)
    check_signed_in(
        outcome,
        PATREON,
        TOKEN,
        account_id="84613750",
        name="Corey Maker",
        email="corey.maker@patreon.example",
        image="https://c8.patreon.com/3/200/84613750",
    )
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]
    identity = standin.sent("GET", PATREON.userinfo.split(" ", 1)[1])
    assert identity.url.params["fields[user]"].split(",") == [
        "email",
        "first_name",
        "full_name",
        "image_url",
        "is_email_verified",
        "vanity",
    ]
    assert identity.headers["authorization"] == f"Bearer {TOKEN['access_token']}"
    assert Patreon().email_verified(outcome.signed_in["profile"] if outcome.signed_in else {})


@pytest.mark.parametrize(
    ("attributes", "user", "verified"),
    [
        pytest.param(
            {"full_name": None},
            {
                "name": "coreymakes",
                "email": "corey.maker@patreon.example",
                "image": "https://c8.patreon.com/3/200/84613750",
            },
            True,
            id="no full name: the vanity name",
        ),
        pytest.param(
            {"full_name": "", "vanity": None, "image_url": None},
            {"email": "corey.maker@patreon.example"},
            True,
            id="no name, no image",
        ),
        pytest.param(
            {"email": None, "is_email_verified": None},
            {"name": "Corey Maker", "image": "https://c8.patreon.com/3/200/84613750"},
            False,
            id="identity[email] not granted",
        ),
        pytest.param(
            {"is_email_verified": False},
            {
                "name": "Corey Maker",
                "email": "corey.maker@patreon.example",
                "image": "https://c8.patreon.com/3/200/84613750",
            },
            False,
            id="unverified email",
        ),
    ],
)
async def test_profile_edges(
    attributes: dict[str, Any], user: dict[str, str], verified: bool
) -> None:
    outcome = await sign_in_through(Patreon(), PATREON.standin(TOKEN, _user(**attributes)))

    assert {k: v for k, v in outcome.user.items() if k != "id" and v is not None} == user
    assert outcome.signed_in is not None
    assert Patreon().email_verified(outcome.signed_in["profile"]) is verified


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(401, json=canned("patreon/token_error.json"))
    standin = PATREON.standin(refused, USER)
    await check_sign_in_refused(Patreon(), standin, caplog, "answered 401: invalid_grant")
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_merges_params() -> None:
    provider = Patreon(
        authorization={"params": {"scope": "identity identity[email] identity.memberships"}}
    )

    check_param_override(provider, PATREON, scope="identity identity[email] identity.memberships")
    assert provider.checks == ("state",)
    assert provider.client_auth == "client_secret_post"
