"""Wikimedia: a sign-in against a stand-in of meta.wikimedia.org with recorded answers."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from authui.providers.wikimedia import Wikimedia
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_token_request,
)
from tests.providers.oidc.common import mapped

OAUTH = "https://meta.wikimedia.org/w/rest.php/oauth2"
WIKIMEDIA = Service(
    id="wikimedia",
    authorization=f"{OAUTH}/authorize",
    token=f"{OAUTH}/access_token",
    userinfo=f"GET {OAUTH}/resource/profile",
    params={},
)
TOKEN = canned("wikimedia/token.json")
USER = canned("wikimedia/user.json")


async def test_sign_in() -> None:
    standin = WIKIMEDIA.standin(TOKEN, USER)
    outcome = await sign_in_through(Wikimedia(), standin)

    check_authorization(outcome, WIKIMEDIA)
    assert "scope=" not in outcome.authorization_url
    check_token_request(outcome, standin, WIKIMEDIA)
    # Not check_signed_in: it expects ``"image": None`` in the session, where a user
    # without an image has no ``image`` key at all.
    assert mapped(outcome) == {"name": "Quill Ferrer", "email": "quill.ferrer@wiki.example"}
    assert outcome.session["user"] == mapped(outcome)
    account = outcome.account
    assert (account["provider"], account["providerAccountId"]) == ("wikimedia", "51234567")
    assert account["type"] == "oauth"
    assert account["access_token"] == TOKEN["access_token"]
    assert account["refresh_token"] == TOKEN["refresh_token"]
    assert account["token_type"] == "bearer"
    assert account["expires_at"] > time.time() + 14000
    sent = standin.sent("GET", f"{OAUTH}/resource/profile")
    assert sent.headers["authorization"] == f"Bearer {TOKEN['access_token']}"


@pytest.mark.parametrize(
    ("changes", "email", "verified"),
    [
        pytest.param({}, "quill.ferrer@wiki.example", True, id="confirmed email"),
        pytest.param({"confirmed_email": False}, "quill.ferrer@wiki.example", False,
                     id="unconfirmed email"),
        pytest.param({"email": None, "realname": None}, None, False,
                     id="consumer without the private-info grant"),
        pytest.param({"email": ""}, None, False, id="empty email"),
    ],
)  # fmt: skip
async def test_email_and_its_confirmation(
    changes: dict[str, Any], email: str | None, verified: bool
) -> None:
    user = {k: v for k, v in {**USER, **changes}.items() if v is not None}
    outcome = await sign_in_through(Wikimedia(), WIKIMEDIA.standin(TOKEN, user))

    assert outcome.user.get("email") == email
    assert outcome.user["name"] == "Quill Ferrer"
    assert outcome.user.get("image") is None
    assert outcome.signed_in is not None
    assert Wikimedia().email_verified(outcome.signed_in["profile"]) is verified


async def test_sub_as_a_string_is_the_same_account() -> None:
    user = {**USER, "sub": "51234567"}
    outcome = await sign_in_through(Wikimedia(), WIKIMEDIA.standin(TOKEN, user))

    assert outcome.account["providerAccountId"] == "51234567"


def expired_code(request: httpx.Request) -> httpx.Response:
    description = (
        "The provided authorization grant (e.g., authorization code, resource owner "
        "credentials) or refresh token is invalid, expired, revoked, does not match the "
        "redirection URI used in the authorization request, or was issued to another client."
    )
    return httpx.Response(
        400,
        json={
            "error": "invalid_grant",
            "error_description": description,
            "hint": "Authorization code has expired",
            "message": description,
        },
    )


async def test_token_error_ends_the_sign_in(caplog: pytest.LogCaptureFixture) -> None:
    await check_sign_in_refused(
        Wikimedia(), WIKIMEDIA.standin(expired_code, USER), caplog, "invalid_grant"
    )


def test_override_adds_params() -> None:
    provider = Wikimedia(authorization={"params": {"uselang": "de"}})

    check_param_override(provider, WIKIMEDIA, uselang="de")
