"""EVE Online: a sign-in against a stand-in of EVE SSO (login.eveonline.com) with
recorded answers; the access token is a JWT the stand-in signs."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey

from authui.providers.eveonline import EVEOnline
from tests.oauth.standin import CLIENT_ID, canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

EVE = Service(
    id="eveonline",
    authorization="https://login.eveonline.com/v2/oauth/authorize",
    token="https://login.eveonline.com/v2/oauth/token",
    userinfo="GET https://login.eveonline.com/oauth/jwks",
    params={"scope": "publicData"},
    checks=("state",),
)
KEY = RSAKey.generate_key(2048, parameters={"kid": "JWT-Signature-Key", "use": "sig"})
OTHER_KEY = RSAKey.generate_key(2048, parameters={"kid": "JWT-Signature-Key"})
JWKS = KeySet([KEY]).as_dict(private=False)
CLAIMS = canned("eveonline/claims.json")
PORTRAIT = "https://images.evetech.net/characters/2112625428/portrait?size=128"


def token(key: RSAKey = KEY, **changes: Any) -> dict[str, Any]:
    """The token answer, its access token signed by ``key`` for this client; ``changes``
    replace claims (``None`` leaves one out)."""
    now = int(time.time())
    claims = {**CLAIMS, "azp": CLIENT_ID, "aud": [CLIENT_ID, "EVE Online"]}
    claims |= {"iat": now, "exp": now + 1199, **changes}
    claims = {name: value for name, value in claims.items() if value is not None}
    signed = jwt.encode({"alg": "RS256", "kid": "JWT-Signature-Key", "typ": "JWT"}, claims, key)
    return {**canned("eveonline/token.json"), "access_token": signed}


async def test_sign_in() -> None:
    answer = token()
    standin = EVE.standin(answer, JWKS)
    outcome = await sign_in_through(EVEOnline(), standin)

    check_authorization(outcome, EVE)
    check_token_request(outcome, standin, EVE)  # HTTP Basic, no PKCE
    check_signed_in(
        outcome,
        EVE,
        answer,
        account_id="2112625428",
        name="Vessa Korrin",
        email=None,
        image=PORTRAIT,
    )
    assert outcome.account["refresh_token"] == answer["refresh_token"]
    assert outcome.signed_in is not None
    profile = outcome.signed_in["profile"]
    assert profile["owner"] == CLAIMS["owner"]
    assert profile["sub"] == "CHARACTER:EVE:2112625428"
    assert standin.unexpected == []


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param({"iss": "login.eveonline.com"}, id="issuer as a host name"),
        pytest.param({"aud": "EVE Online"}, id="audience as a string"),
        pytest.param({"azp": None}, id="no authorized party"),
    ],
)
async def test_token_forms_accepted(changes: dict[str, Any]) -> None:
    outcome = await sign_in_through(EVEOnline(), EVE.standin(token(**changes), JWKS))

    assert outcome.account["providerAccountId"] == "2112625428"


@pytest.mark.parametrize(
    ("answer", "logged"),
    [
        pytest.param(token(OTHER_KEY), "does not verify", id="signed by another key"),
        pytest.param(token(iss="https://login.example.com"), "issuer", id="another issuer"),
        pytest.param(token(aud=[CLIENT_ID]), "audience", id="not for EVE Online"),
        pytest.param(token(exp=int(time.time()) - 120), "expiry", id="expired"),
        pytest.param(token(azp="another-client"), "authorized party", id="another client"),
        pytest.param(token(sub="CORPORATION:EVE:98000001"), "subject", id="not a character"),
    ],
)
async def test_a_token_that_does_not_check_out_is_refused(
    answer: dict[str, Any], logged: str, caplog: pytest.LogCaptureFixture
) -> None:
    await check_sign_in_refused(EVEOnline(), EVE.standin(answer, JWKS), caplog, logged)


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("eveonline/token_error.json"))
    standin = EVE.standin(refused, JWKS)
    await check_sign_in_refused(EVEOnline(), standin, caplog, "invalid_grant")
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_replaces_the_scope() -> None:
    provider = EVEOnline(authorization={"params": {"scope": "esi-skills.read_skills.v1"}})

    check_param_override(provider, EVE, scope="esi-skills.read_skills.v1")
    assert provider.checks == ("state",)
