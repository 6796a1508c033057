"""42 School: a sign-in against a stand-in of api.intra.42.fr with recorded answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.school42 import School42
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

SCHOOL42 = Service(
    id="42-school",
    authorization="https://api.intra.42.fr/oauth/authorize",
    token="https://api.intra.42.fr/oauth/token",
    userinfo="GET https://api.intra.42.fr/v2/me",
    params={"scope": "public"},
)
TOKEN = canned("42-school/token.json")
USER = canned("42-school/user.json")
PHOTO = USER["image"]["link"]


async def test_sign_in() -> None:
    standin = SCHOOL42.standin(TOKEN, USER)
    outcome = await sign_in_through(School42(), standin)

    check_authorization(outcome, SCHOOL42)
    check_token_request(outcome, standin, SCHOOL42)
    check_signed_in(
        outcome,
        SCHOOL42,
        TOKEN,
        account_id="131072",
        name="Margaux Lefevre",
        email="mlefevre@student.42.example",
        image=PHOTO,
    )
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]
    me = standin.sent("GET", "https://api.intra.42.fr/v2/me")
    assert me.headers["authorization"] == f"Bearer {TOKEN['access_token']}"
    assert outcome.signed_in is not None
    assert School42().email_verified(outcome.signed_in["profile"]) is False
    assert standin.unexpected == []


@pytest.mark.parametrize(
    ("changes", "name", "email", "image"),
    [
        pytest.param(
            {"usual_full_name": None},
            "Margaux Lefevre",
            "mlefevre@student.42.example",
            PHOTO,
            id="no usual name: the display name",
        ),
        pytest.param(
            {"usual_full_name": None, "displayname": ""},
            "mlefevre",
            "mlefevre@student.42.example",
            PHOTO,
            id="no names at all: the login",
        ),
        pytest.param(
            {"image": None, "image_url": "https://cdn.intra.42.fr/users/mlefevre.jpg"},
            "Margaux Lefevre",
            "mlefevre@student.42.example",
            "https://cdn.intra.42.fr/users/mlefevre.jpg",
            id="older answer: image_url",
        ),
        pytest.param(
            {"image": {"link": None, "versions": {}}, "email": ""},
            "Margaux Lefevre",
            None,
            None,
            id="no photo, no email",
        ),
    ],
)
async def test_profile_edges(
    changes: dict[str, Any], name: str, email: str | None, image: str | None
) -> None:
    outcome = await sign_in_through(School42(), SCHOOL42.standin(TOKEN, {**USER, **changes}))

    assert outcome.user.get("name") == name
    assert outcome.user.get("email") == email
    assert outcome.user.get("image") == image
    assert outcome.account["providerAccountId"] == "131072"


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("42-school/token_error.json"))
    standin = SCHOOL42.standin(refused, USER)
    await check_sign_in_refused(School42(), standin, caplog, "answered 400")
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_merges_params() -> None:
    provider = School42(authorization={"params": {"scope": "public projects"}})

    check_param_override(provider, SCHOOL42, scope="public projects")
    assert provider.style == School42().style
