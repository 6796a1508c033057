"""Twitch: the ``claims`` parameter as JSON, client_secret_post, an array token scope."""

from __future__ import annotations

import json

from authui.providers.twitch import CLAIMS, Twitch, conform_token
from tests.oauth.standin import sign_in_through
from tests.providers.oidc.common import (
    canned_standin,
    check_account,
    check_authorization,
    check_token_request,
    mapped,
)

CLAIMS_JSON = '{"id_token":{"email":null,"picture":null,"preferred_username":null}}'


async def test_sign_in() -> None:
    provider = Twitch()
    standin = canned_standin("twitch", "https://id.twitch.tv/oauth2")
    outcome = await sign_in_through(provider, standin)
    params = {"scope": "openid user:read:email", "claims": CLAIMS_JSON}
    check_authorization(outcome, standin, provider, params)
    assert json.loads(outcome.params["claims"]) == CLAIMS
    check_token_request(outcome, standin, provider)
    account = check_account(outcome, provider, "713936733")
    assert account["scope"] == "openid user:read:email"
    assert mapped(outcome) == {
        "name": "twitchdev_user",
        "email": "dev@twitch.example",
        "image": "https://static-cdn.jtvnw.net/jtv_user_pictures/8a6381c7-profile_image-300x300.png",
    }


def test_conform_leaves_a_string_scope() -> None:
    body = {"access_token": "a", "scope": "openid", "token_type": "bearer"}
    assert conform_token(body) == body
    assert conform_token({"scope": []}) == {"scope": ""}
