"""BankID Norge: the account id from ``bankid_altsub``, the email from userinfo (a signed
JWT served from another host), client_secret_post, PKCE + state + nonce, the test realm
through AUTH_BANKID_NO_ISSUER."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from joserfc import jwt
from joserfc.jwk import RSAKey

from authui.providers.bankid_no import (
    ISSUER,
    TEST_ISSUER,
    BankIDNorway,
    UserinfoError,
    userinfo_claims,
)
from tests.oauth.standin import CLIENT_ID, OIDCStandIn, canned, sign_in_through
from tests.providers.oauth2.plain_oauth import check_sign_in_refused
from tests.providers.oidc.common import (
    canned_standin,
    check_account,
    check_authorization,
    check_token_request,
    issuer_from_env,
    mapped,
)

USERINFO = "https://userinfo.bankid.no/userinfo"
PID = "9578-6000-4-351726"
PARAMS = {"ui_locales": "no", "login_hint": "BIS", "scope": "openid profile email"}
KARI = {"name": "Nordmann, Kari", "email": "kari.nordmann@example.no"}
_SIGNER = RSAKey.generate_key(2048, parameters={"kid": "bankid-userinfo"})


def as_jwt(claims: dict[str, Any]) -> httpx.Response:
    """A userinfo answer as BankID sends it: the claims in a signed JWT."""
    token = jwt.encode({"alg": "RS256", "kid": "bankid-userinfo"}, claims, _SIGNER)
    return httpx.Response(200, content=token.encode(), headers={"content-type": "application/jwt"})


def bankid_standin(userinfo: httpx.Response | None = None, **kwargs: Any) -> OIDCStandIn:
    answer = userinfo if userinfo is not None else as_jwt(canned("bankid-no/userinfo.json"))
    return canned_standin("bankid-no", ISSUER, routes={f"GET {USERINFO}": answer}, **kwargs)


async def test_sign_in_with_the_email_from_the_userinfo_jwt() -> None:
    provider = BankIDNorway()
    standin = bankid_standin()
    outcome = await sign_in_through(provider, standin)
    check_authorization(outcome, standin, provider, PARAMS)
    check_token_request(outcome, standin, provider)
    account = check_account(outcome, provider, PID)
    assert account["refresh_token"] == canned("bankid-no/token.json")["refresh_token"]
    assert mapped(outcome) == KARI
    userinfo = standin.sent("GET", USERINFO)
    token = canned("bankid-no/token.json")["access_token"]
    assert userinfo.headers["authorization"] == f"Bearer {token}"
    assert userinfo.headers["accept"].startswith("application/jwt")
    assert outcome.signed_in is not None
    profile = outcome.signed_in["profile"]
    assert profile["sub"] == "0c2b5e8a-6f1d-4b7a-9e3c-2d4f6a8b1c3e"
    assert profile["amr"] == ["bis-mfa"]  # from the id_token …
    assert profile["email"] == "Kari.Nordmann@example.no"  # … and from userinfo
    assert not provider.email_verified(profile)
    assert standin.unexpected == []


async def test_without_bankid_altsub_the_account_is_the_sub() -> None:
    claims = {k: v for k, v in canned("bankid-no/id_token.json").items() if k != "bankid_altsub"}
    outcome = await sign_in_through(BankIDNorway(), bankid_standin(claims=claims))
    assert outcome.account["providerAccountId"] == claims["sub"]


async def test_a_json_userinfo_answer_is_read_too() -> None:
    standin = bankid_standin(httpx.Response(200, json=canned("bankid-no/userinfo.json")))
    outcome = await sign_in_through(BankIDNorway(), standin)
    assert mapped(outcome) == KARI


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(httpx.Response(401, json={"error": "invalid_token"}), id="refused"),
        pytest.param(
            as_jwt({k: v for k, v in canned("bankid-no/userinfo.json").items() if k != "email"}),
            id="no email consent",
        ),
    ],
)
async def test_without_userinfo_email_the_user_has_none(answer: httpx.Response) -> None:
    outcome = await sign_in_through(BankIDNorway(), bankid_standin(answer))
    assert mapped(outcome) == {"name": "Nordmann, Kari", "email": None}
    assert outcome.account["providerAccountId"] == PID


@pytest.mark.parametrize(
    ("changes", "logged"),
    [
        pytest.param({"aud": "another-client"}, "not this client", id="another client's"),
        pytest.param({"sub": "6d1e0f3a-b2c4"}, "sub is not the id_token's", id="another user's"),
    ],
)
async def test_userinfo_for_someone_else_is_refused(
    changes: dict[str, Any], logged: str, caplog: pytest.LogCaptureFixture
) -> None:
    claims = {**canned("bankid-no/userinfo.json"), **changes}
    await check_sign_in_refused(BankIDNorway(), bankid_standin(as_jwt(claims)), caplog, logged)


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    standin = bankid_standin()
    refused = httpx.Response(400, json=canned("bankid-no/token_error.json"))
    standin.routes[f"POST {standin.discovery['token_endpoint']}"] = refused
    await check_sign_in_refused(BankIDNorway(), standin, caplog, "Code not valid")
    assert not any(str(r.url) == USERINFO for r in standin.requests)


async def test_the_test_realm_from_the_environment() -> None:
    provider = issuer_from_env(BankIDNorway(), TEST_ISSUER)
    assert provider.issuer == TEST_ISSUER
    text = json.dumps(canned("bankid-no/discovery.json"))
    text = text.replace(
        "auth.bankid.no/auth/realms/prod", "auth.current.bankid.no/auth/realms/current"
    )
    discovery = json.loads(text.replace("userinfo.bankid.no", "userinfo.current.bankid.no"))
    answer = as_jwt(canned("bankid-no/userinfo.json"))
    routes = {"GET https://userinfo.current.bankid.no/userinfo": answer}
    standin = canned_standin("bankid-no", TEST_ISSUER, discovery=discovery, routes=routes)
    outcome = await sign_in_through(provider, standin)
    assert mapped(outcome) == KARI
    assert outcome.authorization_url.startswith(f"{TEST_ISSUER}/precheck/auth?")
    assert standin.unexpected == []


BROKEN_JWT = httpx.Response(200, content=b"eyJ.x", headers={"content-type": "application/jwt"})


@pytest.mark.parametrize(
    "answer",
    [BROKEN_JWT, httpx.Response(200, json=["not", "claims"]), httpx.Response(200, text="<html>")],
    ids=["broken jwt", "json list", "html"],
)
def test_an_unreadable_userinfo_answer_is_an_error(answer: httpx.Response) -> None:
    with pytest.raises(UserinfoError):
        userinfo_claims(answer, CLIENT_ID)


def test_an_audience_list_naming_the_client_is_accepted() -> None:
    claims = {"sub": "s", "aud": ["another-client", CLIENT_ID]}
    answer = httpx.Response(200, json=claims, headers={"content-type": "application/json"})
    assert userinfo_claims(answer, CLIENT_ID) == claims
    with pytest.raises(UserinfoError, match="not this client"):
        userinfo_claims(answer, "a-third-client")


def test_a_login_hint_override_keeps_the_other_params() -> None:
    provider = BankIDNorway(authorization={"params": {"login_hint": "BID"}})
    assert dict(provider.authorization.params) == {**PARAMS, "login_hint": "BID"}
    assert provider.userinfo.request is not None
