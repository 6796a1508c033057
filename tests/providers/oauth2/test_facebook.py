"""Facebook: a sign-in against a stand-in of the Graph API with recorded answers."""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import parse_qsl

from authui.providers.facebook import Facebook
from tests.oauth.standin import CLIENT_SECRET, canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_signed_in,
    check_token_request,
)

FACEBOOK = Service(
    id="facebook",
    authorization="https://www.facebook.com/v19.0/dialog/oauth",
    token="https://graph.facebook.com/oauth/access_token",
    userinfo="GET https://graph.facebook.com/me",
    params={"scope": "email"},
)
TOKEN = canned("facebook/token.json")
USER = canned("facebook/user.json")


async def test_sign_in() -> None:
    standin = FACEBOOK.standin(TOKEN, USER)
    outcome = await sign_in_through(Facebook(), standin)

    check_authorization(outcome, FACEBOOK)
    check_token_request(outcome, standin, FACEBOOK)
    check_signed_in(
        outcome,
        FACEBOOK,
        TOKEN,
        account_id="10224316427652831",
        name="Maria Souza",
        email="maria.souza@example.com",
        image=USER["picture"]["data"]["url"],
    )


async def test_profile_request_asks_for_fields_with_an_appsecret_proof() -> None:
    standin = FACEBOOK.standin(TOKEN, USER)
    await sign_in_through(Facebook(), standin)

    request = standin.sent("GET", "https://graph.facebook.com/me")
    proof = hmac.new(CLIENT_SECRET.encode(), TOKEN["access_token"].encode(), hashlib.sha256)
    assert dict(parse_qsl(request.url.query.decode())) == {
        "fields": "id,name,email,picture",
        "appsecret_proof": proof.hexdigest(),
    }
    assert request.headers["authorization"] == f"Bearer {TOKEN['access_token']}"


async def test_no_email_and_no_picture() -> None:
    user = {"id": "10224316427652831", "name": "Maria Souza"}
    outcome = await sign_in_through(Facebook(), FACEBOOK.standin(TOKEN, user))

    assert outcome.user["email"] is None
    assert "image" not in outcome.user
    assert outcome.signed_in is not None
    assert Facebook().email_verified(outcome.signed_in["profile"]) is False


async def test_other_fields_keep_the_signed_request() -> None:
    url = "https://graph.facebook.com/me?fields=id,name,email,picture.width(400)"
    standin = FACEBOOK.standin(TOKEN, USER)
    await sign_in_through(Facebook(userinfo={"url": url}), standin)

    query = dict(parse_qsl(standin.sent("GET", FACEBOOK.userinfo[4:]).url.query.decode()))
    assert query["fields"] == "id,name,email,picture.width(400)"
    assert "appsecret_proof" in query


def test_override_merges_params() -> None:
    provider = Facebook(authorization={"params": {"scope": "email public_profile"}})

    check_param_override(provider, FACEBOOK, scope="email public_profile")
