"""Hugging Face: state and PKCE, Basic client auth, a complete id_token (no userinfo
request), and an app without the ``email`` scope."""

from __future__ import annotations

import httpx
import pytest

from authui.providers.huggingface import HuggingFace
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import check_sign_in_refused
from tests.providers.oidc.common import (
    canned_standin,
    check_account,
    check_authorization,
    check_token_request,
    mapped,
)

ISSUER = "https://huggingface.co"
USERINFO = "https://huggingface.co/oauth/userinfo"
SUB = "6578e3f2a1b4c5d6e7f80912"
AVATAR = (
    "https://cdn-avatars.huggingface.co/v1/production/uploads/"
    "6578e3f2a1b4c5d6e7f80912/Xk2pQ9vL7mN4rT1w.png"
)


async def test_sign_in() -> None:
    provider = HuggingFace()
    standin = canned_standin("huggingface", ISSUER)
    outcome = await sign_in_through(provider, standin)
    check_authorization(outcome, standin, provider, {"scope": "openid profile email"})
    assert provider.checks == ("state", "pkce")
    check_token_request(outcome, standin, provider)
    account = check_account(outcome, provider, SUB)
    assert account["scope"] == "openid profile email"
    assert mapped(outcome) == {
        "name": "Grace Hopper",
        "email": "grace.hopper@example.org",
        "image": AVATAR,
    }
    assert outcome.signed_in is not None
    profile = outcome.signed_in["profile"]
    assert profile["preferred_username"] == "ghopper"
    assert profile["orgs"][0]["preferred_username"] == "compiler-club"
    assert provider.email_verified(profile)
    assert not any(str(r.url) == USERINFO for r in standin.requests)  # the id_token sufficed
    assert standin.unexpected == []


async def test_an_app_without_the_email_scope() -> None:
    """Only ``openid profile``: no email; a user without a full name is named by username."""
    provider = HuggingFace(authorization={"params": {"scope": "openid profile"}})
    drop = {"email", "email_verified", "name"}
    claims = {k: v for k, v in canned("huggingface/id_token.json").items() if k not in drop}
    standin = canned_standin("huggingface", ISSUER, claims=claims)
    outcome = await sign_in_through(provider, standin)
    check_authorization(outcome, standin, provider, {"scope": "openid profile"})
    assert mapped(outcome) == {"name": "ghopper", "email": None, "image": AVATAR}
    assert standin.sent("GET", USERINFO)  # asked for what the id_token lacks
    assert outcome.signed_in is not None
    assert not provider.email_verified(outcome.signed_in["profile"])


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    standin = canned_standin("huggingface", ISSUER)
    refused = httpx.Response(400, json=canned("huggingface/token_error.json"))
    standin.routes[f"POST {standin.discovery['token_endpoint']}"] = refused
    await check_sign_in_refused(HuggingFace(), standin, caplog, "invalid_grant")
