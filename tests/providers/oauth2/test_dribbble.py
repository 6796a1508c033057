"""Dribbble: a sign-in against a stand-in of dribbble.com with recorded answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.dribbble import Dribbble
from tests.oauth.standin import APP, CLIENT_ID, CLIENT_SECRET, canned, form_of, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
)

DRIBBBLE = Service(
    id="dribbble",
    authorization="https://dribbble.com/oauth/authorize",
    token="https://dribbble.com/oauth/token",
    userinfo="GET https://api.dribbble.com/v2/user",
    params={"scope": "public"},
)
TOKEN = canned("dribbble/token.json")
USER = canned("dribbble/user.json")


async def test_sign_in() -> None:
    standin = DRIBBBLE.standin(TOKEN, USER)
    outcome = await sign_in_through(Dribbble(), standin)

    check_authorization(outcome, DRIBBBLE)
    sent = standin.sent("POST", DRIBBBLE.token)
    form = form_of(sent)
    assert form.pop("code_verifier")
    assert form == {
        "grant_type": "authorization_code",
        "code": "authorization-code-1",
        "redirect_uri": f"{APP}/auth/callback/dribbble",
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
    }
    assert "authorization" not in sent.headers
    check_signed_in(
        outcome,
        DRIBBBLE,
        TOKEN,
        account_id="4815162",
        name="Ines Kowalczyk",
        email=None,
        image=USER["avatar_url"],
    )
    assert "refresh_token" not in outcome.account
    user = standin.sent("GET", "https://api.dribbble.com/v2/user")
    assert user.headers["authorization"] == f"Bearer {TOKEN['access_token']}"
    assert standin.unexpected == []


@pytest.mark.parametrize(
    ("changes", "name", "email", "image"),
    [
        pytest.param({"name": ""}, "ineskdesign", None, USER["avatar_url"], id="no name: login"),
        pytest.param({"avatar_url": None}, "Ines Kowalczyk", None, None, id="no avatar"),
        pytest.param(
            {"email": "ines@dribbble.example"},
            "Ines Kowalczyk",
            "ines@dribbble.example",
            USER["avatar_url"],
            id="an email, if ever sent",
        ),
    ],
)
async def test_profile_edges(
    changes: dict[str, Any], name: str, email: str | None, image: str | None
) -> None:
    outcome = await sign_in_through(Dribbble(), DRIBBBLE.standin(TOKEN, {**USER, **changes}))

    assert outcome.user.get("name") == name
    assert outcome.user.get("email") == email
    assert outcome.user.get("image") == image
    assert outcome.signed_in is not None
    assert Dribbble().email_verified(outcome.signed_in["profile"]) is False


async def test_a_refused_client_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(401, json=canned("dribbble/token_error.json"))
    standin = DRIBBBLE.standin(refused, USER)
    await check_sign_in_refused(Dribbble(), standin, caplog, "answered 401")
    assert not any(r.method == "GET" for r in standin.requests)


def test_scope_option_and_override() -> None:
    check_param_override(Dribbble(scope="public upload"), DRIBBBLE, scope="public upload")
    provider = Dribbble(authorization={"params": {"scope": "public upload"}})

    check_param_override(provider, DRIBBBLE, scope="public upload")
    assert provider.client_auth == "client_secret_post"
