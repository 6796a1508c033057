"""Concept2: a sign-in against a stand-in of the Concept2 Logbook with recorded answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.concept2 import Concept2
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

CONCEPT2 = Service(
    id="concept2",
    authorization="https://log.concept2.com/oauth/authorize",
    token="https://log.concept2.com/oauth/access_token",
    userinfo="GET https://log.concept2.com/api/users/me",
    params={"scope": "user:read,results:write"},
)
TOKEN = canned("concept2/token.json")
USER = canned("concept2/user.json")
IMAGE = USER["data"]["profile_image"]


def _user(**fields: Any) -> dict[str, Any]:
    """The recorded user with ``fields`` replaced (``None``: left out)."""
    kept = {**USER["data"], **fields}
    return {"data": {k: v for k, v in kept.items() if v is not None}}


async def test_sign_in() -> None:
    standin = CONCEPT2.standin(TOKEN, USER)
    outcome = await sign_in_through(Concept2(), standin)

    check_authorization(outcome, CONCEPT2)
    check_token_request(outcome, standin, CONCEPT2)
    check_signed_in(
        outcome,
        CONCEPT2,
        TOKEN,
        account_id="1376249",
        name="erg_rower_58",
        email="maren.lindqvist@concept2.example",
        image=IMAGE,
    )
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]
    sent = standin.sent("GET", "https://log.concept2.com/api/users/me")
    assert sent.headers["accept"] == "application/vnd.c2logbook.v1+json"
    assert sent.headers["authorization"] == f"Bearer {TOKEN['access_token']}"
    assert outcome.signed_in is not None
    assert Concept2().email_verified(outcome.signed_in["profile"]) is False


@pytest.mark.parametrize(
    ("fields", "user"),
    [
        pytest.param({"username": None}, {"name": "Maren Lindqvist",
                     "email": "maren.lindqvist@concept2.example", "image": IMAGE},
                     id="no username: first and last name"),
        pytest.param({"username": "", "first_name": None, "last_name": ""},
                     {"email": "maren.lindqvist@concept2.example", "image": IMAGE},
                     id="no name at all"),
        pytest.param({"email": None}, {"name": "erg_rower_58", "image": IMAGE},
                     id="no email"),
        pytest.param({"profile_image": ""}, {"name": "erg_rower_58",
                     "email": "maren.lindqvist@concept2.example"}, id="no image"),
    ],
)  # fmt: skip
async def test_profile_mapping(fields: dict[str, Any], user: dict[str, str]) -> None:
    outcome = await sign_in_through(Concept2(), CONCEPT2.standin(TOKEN, _user(**fields)))

    assert {k: v for k, v in outcome.user.items() if k != "id" and v is not None} == user


@pytest.mark.parametrize(
    ("token", "user", "logged"),
    [
        pytest.param(
            httpx.Response(400, json=canned("concept2/token_error.json")),
            USER,
            "answered 400: invalid_request",
            id="token endpoint: bad code",
        ),
        pytest.param(
            TOKEN,
            httpx.Response(401, json={"error": "access_denied"}),
            "401 Unauthorized",
            id="profile: token refused",
        ),
    ],
)
async def test_error_answer_ends_the_sign_in(
    token: Any, user: Any, logged: str, caplog: pytest.LogCaptureFixture
) -> None:
    await check_sign_in_refused(Concept2(), CONCEPT2.standin(token, user), caplog, logged)


async def test_development_server() -> None:
    dev = Service(
        id="concept2",
        authorization="https://log-dev.concept2.com/oauth/authorize",
        token="https://log-dev.concept2.com/oauth/access_token",
        userinfo="GET https://log-dev.concept2.com/api/users/me",
        params={"scope": "user:read,results:write"},
    )
    standin = dev.standin(TOKEN, USER)
    outcome = await sign_in_through(Concept2(server="https://log-dev.concept2.com/"), standin)

    check_authorization(outcome, dev)
    check_token_request(outcome, standin, dev)
    assert outcome.account["providerAccountId"] == "1376249"
    assert standin.unexpected == []


def test_override_merges_params() -> None:
    provider = Concept2(authorization={"params": {"scope": "user:read"}})

    check_param_override(provider, CONCEPT2, scope="user:read")
    assert provider.userinfo == Concept2().userinfo
