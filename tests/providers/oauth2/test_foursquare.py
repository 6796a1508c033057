"""Foursquare: a sign-in against a stand-in of foursquare.com and api.foursquare.com with
recorded answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.foursquare import API_VERSION, Foursquare
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

FOURSQUARE = Service(
    id="foursquare",
    authorization="https://foursquare.com/oauth2/authenticate",
    token="https://foursquare.com/oauth2/access_token",
    userinfo="GET https://api.foursquare.com/v2/users/self",
    params={},
)
SELF = "https://api.foursquare.com/v2/users/self"
TOKEN = canned("foursquare/token.json")
USER = canned("foursquare/user.json")
PHOTO = "https://fastly.4sqi.net/img/user/original/4815162342-QXJ2V5PLN1KOIZAT.jpg"


def _user(**changes: Any) -> dict[str, Any]:
    return {**USER, "response": {"user": {**USER["response"]["user"], **changes}}}


async def test_sign_in() -> None:
    standin = FOURSQUARE.standin(TOKEN, USER)
    outcome = await sign_in_through(Foursquare(), standin)

    check_authorization(outcome, FOURSQUARE)
    assert "scope" not in outcome.params
    check_token_request(outcome, standin, FOURSQUARE, in_form=True)
    check_signed_in(
        outcome,
        FOURSQUARE,
        TOKEN,
        account_id="4815162342",
        name="Nadia Haddad",
        email="nadia.haddad@adatum.example",
        image=PHOTO,
    )
    assert outcome.signed_in is not None
    assert Foursquare().email_verified(outcome.signed_in["profile"]) is False


async def test_the_profile_request_carries_the_token_and_version_in_the_query() -> None:
    standin = FOURSQUARE.standin(TOKEN, USER)
    await sign_in_through(Foursquare(), standin)

    sent = standin.sent("GET", SELF)
    assert dict(sent.url.params) == {"v": API_VERSION, "oauth_token": TOKEN["access_token"]}
    assert "authorization" not in sent.headers


@pytest.mark.parametrize(
    "provider",
    [Foursquare(api_version="20240115"), Foursquare(options={"api_version": "20240115"})],
    ids=["keyword", "options"],
)
async def test_api_version(provider: Any) -> None:
    standin = FOURSQUARE.standin(TOKEN, USER)
    await sign_in_through(provider, standin)

    assert provider.options == {"api_version": "20240115"}
    assert standin.sent("GET", SELF).url.params["v"] == "20240115"


@pytest.mark.parametrize(
    ("changes", "name", "email", "image"),
    [
        pytest.param({"photo": None}, "Nadia Haddad", "nadia.haddad@adatum.example", None,
                     id="no photo"),
        pytest.param({"photo": "https://is0.4sqi.net/userpix_thumbs/BYKIT01VN4T4BISN.jpg"},
                     "Nadia Haddad", "nadia.haddad@adatum.example",
                     "https://is0.4sqi.net/userpix_thumbs/BYKIT01VN4T4BISN.jpg",
                     id="photo as an older URL"),
        pytest.param({"lastName": None}, "Nadia", "nadia.haddad@adatum.example", PHOTO,
                     id="no last name"),
        pytest.param({"contact": {}}, "Nadia Haddad", None, PHOTO, id="no email"),
    ],
)  # fmt: skip
async def test_profile_edges(
    changes: dict[str, Any], name: str, email: str | None, image: str | None
) -> None:
    outcome = await sign_in_through(Foursquare(), FOURSQUARE.standin(TOKEN, _user(**changes)))

    assert outcome.user["name"] == name
    assert outcome.user.get("email") == email
    assert outcome.user.get("image") == image


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("foursquare/token_error.json"))
    standin = FOURSQUARE.standin(refused, USER)
    await check_sign_in_refused(Foursquare(), standin, caplog, "invalid_grant")


async def test_a_refused_profile_request_ends_on_the_error_page(
    caplog: pytest.LogCaptureFixture,
) -> None:
    expired = httpx.Response(
        401,
        json={
            "meta": {
                "code": 401,
                "errorType": "invalid_auth",
                "errorDetail": "OAuth token invalid or revoked.",
            },
            "response": {},
        },
    )
    await check_sign_in_refused(Foursquare(), FOURSQUARE.standin(TOKEN, expired), caplog, "401")


def test_override_adds_params() -> None:
    provider = Foursquare(authorization={"params": {"display": "touch"}})

    check_param_override(provider, FOURSQUARE, display="touch")
    assert provider.userinfo.request is not None
