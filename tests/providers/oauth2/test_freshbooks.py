"""FreshBooks: a sign-in against a stand-in of FreshBooks with recorded answers."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from authui.providers.freshbooks import FreshBooks
from tests.oauth.standin import APP, CLIENT_ID, CLIENT_SECRET, canned, form_of, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
)

FRESHBOOKS = Service(
    id="freshbooks",
    authorization="https://auth.freshbooks.com/oauth/authorize",
    token="https://api.freshbooks.com/auth/oauth/token",
    userinfo="GET https://api.freshbooks.com/auth/api/v1/users/me",
    params={"scope": "user:profile:read"},
)
TOKEN = canned("freshbooks/token.json")
USER = canned("freshbooks/user.json")


def _user(**fields: Any) -> dict[str, Any]:
    """The recorded identity with ``fields`` replaced (``None``: left out)."""
    kept = {**USER["response"], **fields}
    return {"response": {k: v for k, v in kept.items() if v is not None}}


async def test_sign_in() -> None:
    standin = FRESHBOOKS.standin(TOKEN, USER)
    outcome = await sign_in_through(FreshBooks(), standin)

    check_authorization(outcome, FRESHBOOKS)
    sent = standin.sent("POST", FRESHBOOKS.token)
    form = form_of(sent)
    assert form.pop("code_verifier")
    assert form == {
        "grant_type": "authorization_code",
        "code": "authorization-code-1",
        "redirect_uri": f"{APP}/auth/callback/freshbooks",
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
    }
    assert "authorization" not in sent.headers
    # No picture at all: check_signed_in expects the session to carry ``image``.
    user = {"name": "Leafy Green", "email": "leafy.green@freshbooks.example"}
    assert {k: v for k, v in outcome.user.items() if k != "id"} == user
    assert outcome.session["user"] == user
    account = outcome.account
    assert account["providerAccountId"] == "2192788"
    assert (account["provider"], account["type"]) == ("freshbooks", "oauth")
    assert account["access_token"] == TOKEN["access_token"]
    assert account["refresh_token"] == TOKEN["refresh_token"]
    assert account["token_type"] == "bearer"
    assert account["expires_at"] >= int(time.time()) + TOKEN["expires_in"] - 5
    me = standin.sent("GET", "https://api.freshbooks.com/auth/api/v1/users/me")
    assert me.headers["authorization"] == f"Bearer {TOKEN['access_token']}"
    assert outcome.signed_in is not None
    assert FreshBooks().email_verified(outcome.signed_in["profile"]) is True


@pytest.mark.parametrize(
    ("fields", "user", "verified"),
    [
        pytest.param({"last_name": None}, {"name": "Leafy",
                     "email": "leafy.green@freshbooks.example"}, True, id="no last name"),
        pytest.param({"first_name": "", "last_name": None},
                     {"email": "leafy.green@freshbooks.example"}, True, id="no name"),
        pytest.param({"confirmed_at": None}, {"name": "Leafy Green",
                     "email": "leafy.green@freshbooks.example"}, False, id="unconfirmed email"),
        pytest.param({"email": None}, {"name": "Leafy Green"}, False, id="no email"),
    ],
)  # fmt: skip
async def test_profile_mapping(
    fields: dict[str, Any], user: dict[str, str], verified: bool
) -> None:
    outcome = await sign_in_through(FreshBooks(), FRESHBOOKS.standin(TOKEN, _user(**fields)))

    assert {k: v for k, v in outcome.user.items() if k != "id" and v is not None} == user
    assert outcome.signed_in is not None
    assert FreshBooks().email_verified(outcome.signed_in["profile"]) is verified


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(401, json=canned("freshbooks/token_error.json"))
    standin = FRESHBOOKS.standin(refused, USER)
    await check_sign_in_refused(FreshBooks(), standin, caplog, "answered 401: invalid_grant")
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_merges_params() -> None:
    provider = FreshBooks(
        authorization={"params": {"scope": "user:profile:read user:clients:read"}}
    )

    check_param_override(provider, FRESHBOOKS, scope="user:profile:read user:clients:read")
    assert provider.client_auth == "client_secret_post"
