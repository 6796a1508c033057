"""SimpleLogin: state and nonce besides the PKCE it ignores, ``avatar_url`` as the image,
an alias as the email, a plain-text token error, a self-hosted server's issuer."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.simplelogin import SimpleLogin
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import check_sign_in_refused
from tests.providers.oidc.common import (
    canned_standin,
    check_account,
    check_authorization,
    check_token_request,
    issuer_from_env,
    mapped,
)

ISSUER = "https://app.simplelogin.io"
CLAIMS = canned("simplelogin/id_token.json")


async def test_sign_in() -> None:
    provider = SimpleLogin()
    standin = canned_standin("simplelogin", ISSUER)
    outcome = await sign_in_through(provider, standin)
    check_authorization(outcome, standin, provider, {"scope": "openid profile email"})
    assert provider.checks == ("pkce", "state", "nonce")
    check_token_request(outcome, standin, provider)
    account = check_account(outcome, provider, "48213")
    assert account["user"]["email"] == CLAIMS["email"]  # the token answer repeats the user
    assert mapped(outcome) == {
        "name": "Hedy Kiesler",
        "email": "acme_notes.quiet_fox418@aleeas.com",
        "image": CLAIMS["avatar_url"],
    }
    assert outcome.signed_in is not None
    profile = outcome.signed_in["profile"]
    assert (profile["id"], profile["client"]) == (48213, "Acme Notes")
    assert provider.email_verified(profile)
    assert standin.unexpected == []


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        pytest.param({"avatar_url": None}, {"name": "Hedy Kiesler"}, id="no avatar"),
        pytest.param({"name": ""}, {"image": CLAIMS["avatar_url"]}, id="empty name"),
    ],
)
async def test_profile_edges(changes: dict[str, Any], expected: dict[str, Any]) -> None:
    standin = canned_standin("simplelogin", ISSUER, claims={**CLAIMS, **changes})
    outcome = await sign_in_through(SimpleLogin(), standin)
    assert mapped(outcome) == {"email": CLAIMS["email"], **expected}


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    standin = canned_standin("simplelogin", ISSUER)
    refused = httpx.Response(400, json=canned("simplelogin/token_error.json"))
    standin.routes[f"POST {standin.discovery['token_endpoint']}"] = refused
    await check_sign_in_refused(SimpleLogin(), standin, caplog, "no such authorization code")


async def test_a_self_hosted_server_from_the_environment() -> None:
    issuer = "https://sl.example.org"
    provider = issuer_from_env(SimpleLogin(), issuer)
    assert provider.issuer == issuer
    endpoints = {
        key: url.replace(ISSUER, issuer)
        for key, url in canned("simplelogin/discovery.json").items()
        if isinstance(url, str)
    }
    outcome = await sign_in_through(
        provider, canned_standin("simplelogin", issuer, discovery=endpoints)
    )
    assert outcome.authorization_url.startswith(f"{issuer}/oauth2/authorize?")
    assert outcome.account["providerAccountId"] == "48213"
