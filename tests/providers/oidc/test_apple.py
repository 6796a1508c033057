"""Apple: form_post callback (a POST), nonce and state, client_secret_post, the name from
the ``user`` form field on first consent only."""

from __future__ import annotations

import json

import pytest
from joserfc import jwt
from joserfc.jwk import ECKey

from authui.providers.apple import Apple, apple_client_secret
from authui.testing import AuthClient
from tests.conftest import make_config
from tests.oauth.standin import APP, OIDCStandIn, canned, sign_in_through
from tests.providers.oidc.common import (
    canned_standin,
    check_account,
    check_authorization,
    check_token_request,
    mapped,
)

ISSUER = "https://appleid.apple.com"
SUB = "001234.5f1e2d3c4b5a69788796a5b4c3d2e1f0.1234"
RELAY = "x7kq2mz9vw@privaterelay.appleid.com"


def apple_standin() -> OIDCStandIn:
    discovery = {**canned("apple/discovery.json"), "userinfo_endpoint": None}  # Apple has none
    return canned_standin("apple", ISSUER, discovery=discovery)


async def test_first_sign_in_posts_the_name() -> None:
    provider = Apple()
    standin = apple_standin()
    user_field = json.dumps(canned("apple/user.json"))
    outcome = await sign_in_through(
        provider, standin, method="POST", callback_params={"user": user_field}
    )
    params = {"scope": "name email", "response_mode": "form_post"}
    check_authorization(outcome, standin, provider, params)
    check_token_request(outcome, standin, provider)
    check_account(outcome, provider, SUB)
    assert mapped(outcome) == {"name": "Grace Hopper", "email": RELAY}
    assert outcome.signed_in is not None
    profile = outcome.signed_in["profile"]
    assert profile["user"] == canned("apple/user.json")
    assert profile["email_verified"] == "true"
    assert provider.email_verified(profile)


async def test_later_sign_in_without_user_falls_back_to_the_email() -> None:
    outcome = await sign_in_through(Apple(), apple_standin(), method="POST")
    assert mapped(outcome) == {"name": RELAY, "email": RELAY}
    assert outcome.signed_in is not None
    assert "user" not in outcome.signed_in["profile"]


async def test_check_cookies_survive_the_cross_site_post() -> None:
    provider = Apple(custom_fetch=apple_standin(), client_id="com.example.web", client_secret="s")
    client = AuthClient(make_config(providers=[provider]), origin=APP)
    form = {"csrfToken": await client.csrf_token(), "callbackUrl": f"{APP}/"}
    started = await client.post("signin/apple", form=form)
    assert started.status == 302
    checks = [c for c in started.header_all("set-cookie") if ".state=" in c or ".nonce=" in c]
    assert len(checks) == 2
    for cookie in checks:
        attributes = {a.strip().lower() for a in cookie.split(";")[1:]}
        assert {"samesite=none", "secure"} <= attributes


def test_client_secret_is_a_jwt_signed_with_the_key() -> None:
    key = ECKey.generate_key("P-256")
    pem = key.as_pem(private=True)
    secret = apple_client_secret(
        team_id="TEAM123456",
        key_id="KEY1234567",
        private_key=pem,
        client_id="com.example.web",
        now=1_700_000_000,
    )
    token = jwt.decode(secret, key)
    assert token.header == {"alg": "ES256", "kid": "KEY1234567", "typ": "JWT"}
    assert token.claims == {
        "iss": "TEAM123456",
        "iat": 1_700_000_000,
        "exp": 1_700_000_000 + 15_777_000,
        "aud": "https://appleid.apple.com",
        "sub": "com.example.web",
    }
    with pytest.raises(ValueError, match="15777000"):
        apple_client_secret(
            team_id="T", key_id="K", private_key=pem, client_id="c", expires_in=15_777_001
        )
