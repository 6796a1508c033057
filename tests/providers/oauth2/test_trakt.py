"""Trakt: a sign-in against a stand-in of trakt.tv with recorded answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.trakt import Trakt
from tests.oauth.standin import APP, CLIENT_ID, CLIENT_SECRET, canned, form_of, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
)

TRAKT = Service(
    id="trakt",
    authorization="https://trakt.tv/oauth/authorize",
    token="https://api.trakt.tv/oauth/token",
    userinfo="GET https://api.trakt.tv/users/me",
    params={},
)
TOKEN = canned("trakt/token.json")
USER = canned("trakt/user.json")
AVATAR = USER["images"]["avatar"]["full"]


async def test_sign_in() -> None:
    standin = TRAKT.standin(TOKEN, USER)
    outcome = await sign_in_through(Trakt(), standin)

    check_authorization(outcome, TRAKT)
    assert "scope" not in outcome.params
    check_signed_in(
        outcome,
        TRAKT,
        TOKEN,
        account_id="3f6a2b1c-8d4e-4f5a-9b7c-2e1d0c9b8a76",
        name="Rita Moreau",
        email=None,
        image=AVATAR,
    )
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]
    assert standin.unexpected == []


async def test_token_request_sends_the_client_credentials_in_the_body() -> None:
    standin = TRAKT.standin(TOKEN, USER)
    outcome = await sign_in_through(Trakt(), standin)

    request = standin.sent("POST", TRAKT.token)
    form = form_of(request)
    assert form.pop("code_verifier")
    assert form == {
        "grant_type": "authorization_code",
        "code": "authorization-code-1",
        "redirect_uri": f"{APP}/auth/callback/trakt",
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
    }
    assert "authorization" not in request.headers
    assert outcome.signed_in is not None


async def test_profile_request_carries_the_trakt_headers() -> None:
    standin = TRAKT.standin(TOKEN, USER)
    await sign_in_through(Trakt(), standin)

    sent = standin.sent("GET", "https://api.trakt.tv/users/me")
    assert sent.url.params["extended"] == "full"
    assert sent.headers["authorization"] == f"Bearer {TOKEN['access_token']}"
    assert sent.headers["trakt-api-version"] == "2"
    assert sent.headers["trakt-api-key"] == CLIENT_ID
    assert sent.headers["user-agent"] == "authui"


@pytest.mark.parametrize(
    ("changes", "account_id", "name", "image"),
    [
        pytest.param(
            {"ids": {"slug": "reel_rita"}}, "reel_rita", "Rita Moreau", AVATAR, id="no uuid"
        ),
        pytest.param({"name": ""}, None, "reel_rita", AVATAR, id="no name: the username"),
        pytest.param({"name": None}, None, "reel_rita", AVATAR, id="null name"),
        pytest.param({"images": {"avatar": {"full": None}}}, None, "Rita Moreau", None,
                     id="no avatar"),
        pytest.param({"images": None}, None, "Rita Moreau", None, id="no images"),
    ],
)  # fmt: skip
async def test_profile_mapping(
    changes: dict[str, Any], account_id: str | None, name: str, image: str | None
) -> None:
    outcome = await sign_in_through(Trakt(), TRAKT.standin(TOKEN, {**USER, **changes}))

    assert outcome.user.get("name") == name
    assert outcome.user.get("email") is None
    assert outcome.user.get("image") == image
    expected_id = account_id or USER["ids"]["uuid"]
    assert outcome.account["providerAccountId"] == expected_id


def invalid_grant(request: httpx.Request) -> httpx.Response:
    return httpx.Response(
        401,
        json={
            "error": "invalid_grant",
            "error_description": "The provided authorization grant is invalid, expired, "
            "revoked, does not match the redirection URI used in the authorization "
            "request, or was issued to another client.",
        },
    )


async def test_token_error_ends_the_sign_in(caplog: pytest.LogCaptureFixture) -> None:
    standin = TRAKT.standin(invalid_grant, USER)
    await check_sign_in_refused(Trakt(), standin, caplog, "invalid_grant")


async def test_profile_error_ends_the_sign_in(caplog: pytest.LogCaptureFixture) -> None:
    standin = TRAKT.standin(TOKEN, httpx.Response(403, json={"error": "forbidden"}))
    await check_sign_in_refused(Trakt(), standin, caplog, "403 Forbidden")


def test_override_adds_params() -> None:
    provider = Trakt(authorization={"params": {"prompt": "login"}})

    check_param_override(provider, TRAKT, prompt="login")
    assert provider.client_auth == "client_secret_post"
