"""Zoho: a sign-in against a stand-in of accounts.zoho.com with recorded answers."""

from __future__ import annotations

import time
from typing import Any

import pytest

from authui.providers.zoho import Zoho
from tests.oauth.standin import APP, CLIENT_ID, CLIENT_SECRET, canned, form_of, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
)
from tests.providers.oidc.common import mapped


def zoho_service(server: str) -> Service:
    return Service(
        id="zoho",
        authorization=f"{server}/oauth/v2/auth",
        token=f"{server}/oauth/v2/token",
        userinfo=f"GET {server}/oauth/user/info",
        params={"scope": "AaaServer.profile.Read"},
    )


ZOHO = zoho_service("https://accounts.zoho.com")
TOKEN = canned("zoho/token.json")
USER = canned("zoho/user.json")


async def test_sign_in() -> None:
    standin = ZOHO.standin(TOKEN, USER)
    outcome = await sign_in_through(Zoho(), standin)

    check_authorization(outcome, ZOHO)
    request = standin.sent("POST", ZOHO.token)
    form = form_of(request)
    assert form.pop("code_verifier")
    assert form == {
        "grant_type": "authorization_code",
        "code": "authorization-code-1",
        "redirect_uri": f"{APP}/auth/callback/zoho",
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
    }
    assert "authorization" not in request.headers
    # Not check_signed_in: it expects ``"image": None`` in the session, where a user
    # without an image has no ``image`` key at all.
    assert mapped(outcome) == {"name": "Priya Raman", "email": "priya.raman@zylker.example"}
    assert outcome.session["user"] == mapped(outcome)
    account = outcome.account
    assert (account["provider"], account["providerAccountId"]) == ("zoho", "749281736")
    assert account["type"] == "oauth"
    assert account["access_token"] == TOKEN["access_token"]
    assert account["token_type"] == "bearer"
    assert 3590 < account["expires_at"] - time.time() <= 3600
    assert "refresh_token" not in account
    sent = standin.sent("GET", "https://accounts.zoho.com/oauth/user/info")
    assert sent.headers["authorization"] == f"Bearer {TOKEN['access_token']}"
    assert standin.unexpected == []


@pytest.mark.parametrize(
    ("changes", "name", "email"),
    [
        pytest.param({"Last_Name": ""}, "Priya", "priya.raman@zylker.example",
                     id="no last name"),
        pytest.param({"First_Name": None}, "Raman", "priya.raman@zylker.example",
                     id="no first name"),
        pytest.param({"First_Name": "", "Last_Name": None}, "priya.raman",
                     "priya.raman@zylker.example", id="no names: the display name"),
        pytest.param({"First_Name": None, "Last_Name": None, "Display_Name": None,
                      "Email": None}, None, None, id="nothing but the ZUID"),
    ],
)  # fmt: skip
async def test_profile_mapping(
    changes: dict[str, Any], name: str | None, email: str | None
) -> None:
    user = {k: v for k, v in {**USER, **changes}.items() if v is not None}
    outcome = await sign_in_through(Zoho(), ZOHO.standin(TOKEN, user))

    assert outcome.user.get("name") == name
    assert outcome.user.get("email") == email
    assert "image" not in outcome.user
    assert outcome.account["providerAccountId"] == "749281736"


async def test_another_data_centre() -> None:
    eu = zoho_service("https://accounts.zoho.eu")
    provider = Zoho(accounts_server="https://accounts.zoho.eu/")
    standin = eu.standin({**TOKEN, "api_domain": "https://www.zohoapis.eu"}, USER)
    outcome = await sign_in_through(provider, standin)

    assert provider.options == {"accounts_server": "https://accounts.zoho.eu"}
    assert Zoho(options={"accounts_server": "https://accounts.zoho.eu"}).token == provider.token
    check_authorization(outcome, eu)
    assert outcome.account["providerAccountId"] == "749281736"
    assert standin.unexpected == []


async def test_invalid_code_with_status_200_ends_the_sign_in(
    caplog: pytest.LogCaptureFixture,
) -> None:
    await check_sign_in_refused(
        Zoho(), ZOHO.standin({"error": "invalid_code"}, USER), caplog, "invalid_code"
    )


def test_override_merges_params() -> None:
    provider = Zoho(authorization={"params": {"access_type": "offline", "prompt": "consent"}})

    check_param_override(provider, ZOHO, access_type="offline", prompt="consent")
