"""LINE: a web app's id_token signed with HS256 by the channel secret, state only, no
``email_verified`` (never linked by email), userinfo for a channel without the email
permission."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from joserfc import jwt
from joserfc.jwk import OctKey
from joserfc.jws import extract_compact

from authui.providers.line import LINE
from tests.oauth.standin import CLIENT_ID, CLIENT_SECRET, OIDCStandIn, canned, sign_in_through
from tests.providers.oauth2.plain_oauth import check_sign_in_refused
from tests.providers.oidc.common import (
    canned_standin,
    check_account,
    check_authorization,
    check_token_request,
    location,
    mapped,
)

ISSUER = "https://access.line.me"
TOKEN = "https://api.line.me/oauth2/v2.1/token"
USERINFO = "https://api.line.me/oauth2/v2.1/userinfo"
SUB = "U4af4980629aa6f0b37e8d35e2cd1b2c5"
PICTURE = "https://profile.line-scdn.net/0hK8Yb3pQeFmBwLz5mJ1dpNyxrGA0HARBoCE4O"


def line_standin(secret: str = CLIENT_SECRET, **kwargs: Any) -> OIDCStandIn:
    """LINE answering the code with an id_token signed (HS256) with ``secret``, as it does
    for a web app."""
    standin = canned_standin("line", ISSUER, **kwargs)

    def token(request: httpx.Request) -> dict[str, Any]:
        now = int(time.time())
        claims = {"iss": ISSUER, "aud": CLIENT_ID, "iat": now, "exp": now + 3600, **standin.claims}
        signed = jwt.encode({"alg": "HS256", "typ": "JWT"}, claims, OctKey.import_key(secret))
        return {**canned("line/token.json"), "id_token": signed}

    standin.routes[f"POST {TOKEN}"] = token
    return standin


async def test_sign_in_with_an_id_token_signed_by_the_channel_secret() -> None:
    provider = LINE()
    standin = line_standin()
    outcome = await sign_in_through(provider, standin)
    check_authorization(outcome, standin, provider, {"scope": "openid profile email"})
    check_token_request(outcome, standin, provider)
    account = check_account(outcome, provider, SUB)
    assert extract_compact(account["id_token"].encode()).headers()["alg"] == "HS256"
    assert account["scope"] == "profile openid email"
    assert mapped(outcome) == {
        "name": "Taro Yamada",
        "email": "taro.yamada@example.jp",
        "image": PICTURE,
    }
    assert outcome.signed_in is not None
    profile = outcome.signed_in["profile"]
    assert profile["amr"] == ["linesso"]
    assert not provider.email_verified(profile)  # LINE sends no email_verified
    assert not any(str(r.url) == USERINFO for r in standin.requests)
    assert standin.unexpected == []


async def test_an_id_token_signed_with_another_secret_is_refused(
    caplog: pytest.LogCaptureFixture,
) -> None:
    standin = line_standin(secret="the secret of another channel")
    outcome = await sign_in_through(LINE(), standin)
    assert outcome.signed_in is None
    assert "error=" in location(outcome.callback)
    assert "signature does not verify" in caplog.text


async def test_a_native_app_id_token_signed_with_a_published_key() -> None:
    outcome = await sign_in_through(LINE(), canned_standin("line", ISSUER))
    assert outcome.account["providerAccountId"] == SUB


async def test_without_the_email_permission_the_profile_is_completed_from_userinfo() -> None:
    claims = {k: v for k, v in canned("line/id_token.json").items() if k != "email"}
    standin = line_standin(claims=claims, userinfo=canned("line/userinfo.json"))
    outcome = await sign_in_through(LINE(), standin)
    assert mapped(outcome) == {"name": "Taro Yamada", "email": None, "image": PICTURE}
    userinfo = standin.sent("GET", USERINFO)
    assert userinfo.headers["authorization"].startswith("Bearer ")


async def test_a_user_without_a_picture_has_no_image() -> None:
    claims = {k: v for k, v in canned("line/id_token.json").items() if k != "picture"}
    outcome = await sign_in_through(LINE(), line_standin(claims=claims))
    assert "image" not in mapped(outcome)


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    standin = line_standin()
    standin.routes[f"POST {TOKEN}"] = httpx.Response(400, json=canned("line/token_error.json"))
    await check_sign_in_refused(LINE(), standin, caplog, "invalid authorization code")
