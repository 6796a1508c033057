"""The OAuth 2 / OpenID Connect round trip against stand-in services: the authorization
request, the checks, client authentication, the token answer, the id_token, userinfo,
``form_post`` callbacks, the redirect proxy, and what users and logs see when a check fails."""

from __future__ import annotations

import base64
import dataclasses
import time
from types import SimpleNamespace
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from joserfc import jwt
from joserfc.jwk import ECKey, OctKey, RSAKey

from authui import validate_config
from authui.errors import InvalidProvider
from authui.oauth import discovery
from authui.oauth.tokens import TokenError, normalise
from authui.providers.oauth import OIDC, Endpoint, OAuth2, OAuthProvider
from authui.testing import AuthClient
from tests.conftest import make_config
from tests.oauth.standin import (
    APP,
    CLIENT_ID,
    CLIENT_SECRET,
    OIDCStandIn,
    StandIn,
    form_of,
    sign_in_through,
)

ISSUER = "https://idp.example.com"
CLAIMS = {"sub": "user-1", "email": "Ada@Example.com", "name": "Ada Lovelace", "picture": "p"}


def idp(**kwargs: Any) -> OIDCStandIn:
    return OIDCStandIn(ISSUER, claims=kwargs.pop("claims", CLAIMS), **kwargs)


def oidc(**settings: Any) -> Any:
    return OIDC(id="idp", name="Example IdP", issuer=ISSUER, **settings)


def plain_service(profile: dict[str, Any] | None = None) -> StandIn:
    return StandIn(
        {
            "POST https://svc.example/token": {"access_token": "at", "token_type": "Bearer"},
            "GET https://svc.example/me": profile or {"id": 42, "name": "Bob", "email": "B@x.io"},
        }
    )


def plain(**settings: Any) -> Any:
    return OAuth2(
        id="svc",
        authorization=Endpoint(url="https://svc.example/authorize", params={"scope": "me"}),
        token="https://svc.example/token",
        userinfo="https://svc.example/me",
        **settings,
    )


def location(outcome: Any) -> str:
    return str(outcome.callback.header("location"))


def logged(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(record.getMessage() for record in caplog.records)


async def test_oidc_round_trip_signs_in_with_the_id_token_claims() -> None:
    service = idp()
    outcome = await sign_in_through(oidc(), service)
    assert outcome.authorization_url.startswith(f"{ISSUER}/authorize?")
    params = outcome.params
    assert params["response_type"] == "code"
    assert params["client_id"] == CLIENT_ID
    assert params["redirect_uri"] == f"{APP}/auth/callback/idp"
    assert params["scope"] == "openid profile email"
    assert params["code_challenge_method"] == "S256"
    assert {"state", "nonce", "code_challenge"} <= set(params)
    assert location(outcome) == f"{APP}/dashboard"
    assert outcome.session["user"] == {
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "image": "p",
    }
    account = outcome.account
    assert account["providerAccountId"] == "user-1"
    assert account["type"] == "oidc"
    assert account["token_type"] == "bearer"
    assert account["expires_at"] == pytest.approx(int(time.time()) + 3600, abs=5)
    token_form = form_of(service.sent("POST", f"{ISSUER}/token"))
    assert token_form["grant_type"] == "authorization_code"
    assert token_form["code"] == "authorization-code-1"
    assert token_form["redirect_uri"] == f"{APP}/auth/callback/idp"
    verifier = token_form["code_verifier"]
    assert len(verifier) == 43
    # the challenge sent to the provider is the S256 of the verifier sent to the token endpoint
    assert create_s256_code_challenge(verifier) == params["code_challenge"]
    assert service.unexpected == []


async def test_check_cookies_are_deleted_after_use() -> None:
    outcome = await sign_in_through(oidc(), idp())
    names = ("authjs.state", "authjs.pkce.code_verifier", "authjs.nonce")
    assert not any(name in outcome.client.cookies for name in names)
    deleted = [h for h in outcome.callback.header_all("set-cookie") if "Max-Age=0" in h]
    assert {h.split("=")[0] for h in deleted} == set(names)


async def test_parameter_precedence_config_then_url_query_then_request_query() -> None:
    provider = OAuth2(
        id="svc",
        authorization=Endpoint(
            url="https://svc.example/authorize?prompt=login&audience=api",
            params={"scope": "me", "prompt": "consent", "claims": {"id_token": {"email": None}}},
        ),
        token="https://svc.example/token",
        userinfo="https://svc.example/me",
    )
    outcome = await sign_in_through(
        provider, plain_service(), query={"login_hint": "ada@example.com", "audience": "other"}
    )
    assert outcome.params["prompt"] == "login"  # the URL's query beats params
    assert outcome.params["audience"] == "other"  # the sign-in request's query beats both
    assert outcome.params["login_hint"] == "ada@example.com"
    assert outcome.params["claims"] == '{"id_token":{"email":null}}'
    assert outcome.params["scope"] == "me"  # a plain OAuth provider gets no openid scope


async def test_request_query_cannot_override_the_checks_or_the_client() -> None:
    forged = {
        "state": "mine",
        "code_challenge": "mine",
        "nonce": "mine",
        "redirect_uri": "https://evil.example/steal",
        "client_id": "someone-else",
        "response_type": "token",
        "callbackUrl": "/x",
    }
    outcome = await sign_in_through(oidc(), idp(), query=forged)
    assert outcome.params["redirect_uri"] == f"{APP}/auth/callback/idp"
    assert outcome.params["client_id"] == CLIENT_ID
    assert outcome.params["response_type"] == "code"
    assert "callbackUrl" not in outcome.params
    assert "mine" not in (
        outcome.params["state"],
        outcome.params["code_challenge"],
        outcome.params["nonce"],
    )
    assert location(outcome) == f"{APP}/dashboard"


async def test_plain_oauth_reads_userinfo_with_the_bearer_token() -> None:
    service = plain_service()
    outcome = await sign_in_through(plain(), service)
    userinfo = service.sent("GET", "https://svc.example/me")
    assert userinfo.headers["authorization"] == "Bearer at"
    assert outcome.account["providerAccountId"] == "42"  # stringified
    assert outcome.user["email"] == "b@x.io"
    assert outcome.session["user"]["name"] == "Bob"


async def test_without_adapter_the_user_id_is_stable_across_sign_ins() -> None:
    first = await sign_in_through(oidc(), idp())
    second = await sign_in_through(oidc(), idp())
    other = await sign_in_through(oidc(), idp(claims={**CLAIMS, "sub": "user-2"}))
    assert first.user["id"] == second.user["id"] != other.user["id"]


@pytest.mark.parametrize(
    ("method", "expect"),
    [
        ("client_secret_basic", "basic"),
        ("client_secret_post", "post"),
        ("none", "none"),
    ],
)
async def test_client_authentication(method: str, expect: str) -> None:
    service = idp()
    await sign_in_through(oidc(client_auth=method), service)
    request = service.sent("POST", f"{ISSUER}/token")
    form = form_of(request)
    if expect == "basic":
        encoded = base64.b64decode(request.headers["authorization"].removeprefix("Basic "))
        assert encoded.decode() == "client-id-123:client+secret%2B%2F%3D"
        assert "client_secret" not in form
    else:
        assert "authorization" not in request.headers
        assert form["client_id"] == CLIENT_ID
        assert form.get("client_secret") == (CLIENT_SECRET if expect == "post" else None)


async def test_client_secret_jwt_assertion_is_signed_with_the_secret() -> None:
    service = idp()
    await sign_in_through(oidc(client_auth="client_secret_jwt"), service)
    form = form_of(service.sent("POST", f"{ISSUER}/token"))
    assert form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    token = jwt.decode(form["client_assertion"], OctKey.import_key(CLIENT_SECRET))
    assert token.claims["iss"] == token.claims["sub"] == CLIENT_ID
    assert token.claims["aud"] == f"{ISSUER}/token"
    assert "client_secret" not in form


async def test_private_key_jwt_assertion_is_signed_with_the_private_key() -> None:
    key = RSAKey.generate_key(2048, parameters={"kid": "client-key"})
    service = idp()
    provider = oidc(client_auth="private_key_jwt", client_private_key=key.as_dict(private=True))
    outcome = await sign_in_through(provider, service)
    assert location(outcome) == f"{APP}/dashboard"
    form = form_of(service.sent("POST", f"{ISSUER}/token"))
    token = jwt.decode(form["client_assertion"], RSAKey.import_key(key.as_dict(private=False)))
    assert token.header["kid"] == "client-key"
    assert token.claims["aud"] == [ISSUER, f"{ISSUER}/token"]
    assert token.claims["sub"] == CLIENT_ID


async def test_claims_from_userinfo_when_id_token_is_off() -> None:
    service = idp(claims={"sub": "user-1"}, userinfo={"sub": "user-1", "name": "From Userinfo"})
    outcome = await sign_in_through(oidc(id_token=False), service)
    assert outcome.session["user"]["name"] == "From Userinfo"


async def test_userinfo_for_another_subject_is_refused(caplog: pytest.LogCaptureFixture) -> None:
    service = idp(claims={"sub": "user-1"}, userinfo={"sub": "intruder", "name": "X"})
    outcome = await sign_in_through(oidc(id_token=False), service)
    assert location(outcome) == f"{APP}/auth/error?error=Configuration"
    assert outcome.session is None
    assert "userinfo's sub is not the id_token's" in logged(caplog)


@pytest.mark.parametrize(
    ("claims", "reason"),
    [
        ({"aud": "someone-else"}, "aud"),
        ({"iss": "https://evil.example"}, "iss"),
        ({"exp": int(time.time()) - 120}, "exp"),
        ({"nonce": "replayed"}, "nonce"),
        ({"aud": [CLIENT_ID, "other"], "azp": "other"}, "azp"),
    ],
)
async def test_id_token_checks(
    claims: dict[str, Any], reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    service = idp()
    signed = service.id_token
    service.token_extra = {}
    service.routes[f"POST {ISSUER}/token"] = lambda request: {
        "access_token": "at",
        "token_type": "Bearer",
        "id_token": signed(**claims),
    }
    outcome = await sign_in_through(oidc(), service)
    assert location(outcome) == f"{APP}/auth/error?error=Configuration"
    assert outcome.session is None
    assert reason in logged(caplog)


async def test_id_token_signed_by_an_unknown_key_is_refused(
    caplog: pytest.LogCaptureFixture,
) -> None:
    stranger = RSAKey.generate_key(2048, parameters={"kid": "standin-key"})
    service = idp()
    forged = jwt.encode(
        {"alg": "RS256", "kid": "standin-key"},
        {"iss": ISSUER, "aud": CLIENT_ID, "sub": "x", "iat": int(time.time()), "exp": 9e9},
        stranger,
    )
    service.token_extra = {"id_token": forged}
    outcome = await sign_in_through(oidc(checks=("pkce",)), service)
    assert location(outcome) == f"{APP}/auth/error?error=Configuration"
    assert "signature does not verify" in logged(caplog)
    assert len([r for r in service.requests if r.url.path == "/jwks"]) == 2  # refetched once


async def test_tampered_state_is_refused(caplog: pytest.LogCaptureFixture) -> None:
    outcome = await sign_in_through(oidc(), idp(), callback_params={"state": "forged"})
    assert location(outcome) == f"{APP}/auth/error?error=Configuration"
    assert "InvalidCheck" in logged(caplog)
    assert "state parameter does not match" in logged(caplog)


async def test_wrong_iss_is_refused(caplog: pytest.LogCaptureFixture) -> None:
    outcome = await sign_in_through(oidc(), idp(), callback_params={"iss": "https://evil.example"})
    assert location(outcome) == f"{APP}/auth/error?error=Configuration"
    assert "RFC 9207" in logged(caplog)


async def test_right_iss_is_accepted() -> None:
    outcome = await sign_in_through(oidc(), idp(), callback_params={"iss": ISSUER})
    assert location(outcome) == f"{APP}/dashboard"


async def test_provider_error_ends_on_the_sign_in_page(caplog: pytest.LogCaptureFixture) -> None:
    outcome = await sign_in_through(
        oidc(),
        idp(),
        callback_params={"error": "access_denied", "error_description": "The user said no"},
    )
    assert location(outcome) == f"{APP}/auth/signin?error=OAuthCallbackError"
    assert "access_denied" in logged(caplog)
    assert outcome.session is None


async def test_token_endpoint_error_is_logged_with_its_reason(
    caplog: pytest.LogCaptureFixture,
) -> None:
    service = idp()
    service.routes[f"POST {ISSUER}/token"] = lambda request: httpx.Response(
        401, json={"error": "invalid_client", "error_description": "bad secret"}
    )
    outcome = await sign_in_through(oidc(), service)
    assert location(outcome) == f"{APP}/auth/error?error=Configuration"
    log = logged(caplog)
    assert "invalid_client (bad secret)" in log
    assert CLIENT_SECRET not in log
    assert "client secret" not in log


async def test_missing_pkce_cookie_names_the_likely_cause(caplog: pytest.LogCaptureFixture) -> None:
    service = idp()
    outcome = await sign_in_through(oidc(), service, callback_params={})
    assert outcome.session is not None  # the baseline works
    client = outcome.client
    client.cookies.clear()
    form = {"csrfToken": await client.csrf_token()}
    started = await client.post("signin/idp", form=form)
    params = dict(parse_qsl(urlsplit(started.header("location") or "").query))
    client.cookies.pop("authjs.pkce.code_verifier")
    back = await client.get(f"callback/idp?code=c&state={params['state']}")
    assert back.header("location") == f"{APP}/auth/error?error=Configuration"
    log = logged(caplog)
    assert "PKCE code verifier cookie (authjs.pkce.code_verifier) was missing" in log
    assert "blocks cookies" in log
    assert "AUTH_URL" in log


async def test_https_cookies_at_a_plain_http_callback_point_at_the_proxy(
    caplog: pytest.LogCaptureFixture,
) -> None:
    outcome = await sign_in_through(oidc(), idp())
    client = outcome.client
    client.cookies.clear()
    started = await client.post("signin/idp", form={"csrfToken": await client.csrf_token()})
    params = dict(parse_qsl(urlsplit(started.header("location") or "").query))
    # what a browser holds when the sign-in ran on https:// and the callback reaches the
    # app as http:// through a proxy that authui does not know about
    client.cookies = {f"__Secure-{k}": v for k, v in client.cookies.items()}
    await client.get(f"callback/idp?code=c&state={params['state']}")
    assert "Set AUTH_URL to the public https:// URL" in logged(caplog)


async def test_check_cookie_of_another_provider_is_refused(
    caplog: pytest.LogCaptureFixture,
) -> None:
    service = idp()
    first = dataclasses.replace(
        oidc(), custom_fetch=service, client_id=CLIENT_ID, client_secret=CLIENT_SECRET
    )
    second = dataclasses.replace(first, id="other", name="Other")
    client = AuthClient(make_config(providers=[first, second]), origin=APP)
    token = await client.csrf_token()
    started = await client.post("signin/idp", form={"csrfToken": token})
    params = dict(parse_qsl(urlsplit(started.header("location") or "").query))
    await client.post("signin/other", form={"csrfToken": token})  # a second tab, say
    back = await client.get(f"callback/idp?code=c&state={params['state']}")
    assert back.header("location") == f"{APP}/auth/error?error=Configuration"
    assert "belongs to a sign-in with 'other', not 'idp'" in logged(caplog)


async def test_form_post_callback_uses_same_site_none_cookies() -> None:
    service = idp()
    provider = oidc(authorization={"params": {"response_mode": "form_post"}})
    outcome = await sign_in_through(provider, service, method="POST")
    assert location(outcome) == f"{APP}/dashboard"
    assert outcome.params["response_mode"] == "form_post"


async def test_form_post_user_field_reaches_the_profile() -> None:
    captured: dict[str, Any] = {}

    def profile(claims: dict[str, Any], tokens: dict[str, Any]) -> dict[str, Any]:
        captured.update(claims)
        return {"id": claims["sub"], "name": claims["user"]["name"]["firstName"]}

    provider = oidc(profile=profile, authorization={"params": {"response_mode": "form_post"}})
    outcome = await sign_in_through(
        provider,
        idp(),
        method="POST",
        callback_params={"user": '{"name": {"firstName": "Ada", "lastName": "L"}}'},
    )
    assert outcome.session["user"]["name"] == "Ada"


async def test_profile_failure_is_an_error_page(caplog: pytest.LogCaptureFixture) -> None:
    def broken(claims: dict[str, Any], tokens: dict[str, Any]) -> dict[str, Any]:
        raise KeyError("login")

    outcome = await sign_in_through(oidc(profile=broken), idp())
    assert location(outcome) == f"{APP}/auth/error?error=Configuration"
    assert "OAuthProfileParseError" in logged(caplog)


async def test_discovery_for_another_issuer_is_refused(caplog: pytest.LogCaptureFixture) -> None:
    service = idp(discovery={"issuer": "https://elsewhere.example"})
    outcome = await sign_in_through(oidc(), service)
    assert location(outcome) == f"{APP}/auth/error?error=Configuration"
    assert "names the issuer 'https://elsewhere.example'" in logged(caplog)


def discoveries(service: StandIn) -> int:
    return sum(r.url.path.endswith("openid-configuration") for r in service.requests)


def one_app(service: StandIn) -> tuple[OAuthProvider, AuthClient]:
    """A provider answered by ``service``, and a client of one app configured with it."""
    provider = dataclasses.replace(
        oidc(), custom_fetch=service, client_id=CLIENT_ID, client_secret=CLIENT_SECRET
    )
    return provider, AuthClient(make_config(providers=[provider]), origin=APP)


async def test_discovery_is_cached_by_the_configuration() -> None:
    service = idp()
    provider, client = one_app(service)
    await sign_in_through(provider, service, client=client)
    await sign_in_through(provider, service, client=client)
    assert discoveries(service) == 1
    await sign_in_through(oidc(), service)  # another app's configuration: its own cache
    assert discoveries(service) == 2


async def test_discovery_is_fetched_again_after_its_lifetime(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    service = idp()
    provider, client = one_app(service)
    await sign_in_through(provider, service, client=client)
    later = time.monotonic() + discovery.CACHE_SECONDS + 1
    monkeypatch.setattr("authui.oauth.discovery.time", SimpleNamespace(monotonic=lambda: later))
    await sign_in_through(provider, service, client=client)
    assert discoveries(service) == 2


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ({"access_token": "a", "token_type": "Bearer"}, {"token_type": "bearer"}),
        ({"access_token": "a", "token_type": "DPoP"}, {"token_type": "dpop"}),
        ({"access_token": "a"}, {"token_type": "bearer"}),
        ({"access_token": "a", "token_type": "bearer", "expires_in": "60"}, {"expires_in": 60}),
    ],
)
def test_token_answers_are_normalised(answer: dict[str, Any], expected: dict[str, Any]) -> None:
    tokens = normalise(answer)
    assert expected.items() <= tokens.items()
    if "expires_in" in answer:
        assert tokens["expires_at"] == pytest.approx(time.time() + 60, abs=5)


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ({"token_type": "bearer"}, "no access_token"),
        ({"access_token": "a", "token_type": "mac"}, "Unsupported token_type"),
        ({"access_token": "a", "scope": ["a", "b"]}, "scope is not a string"),
        ({"error": "invalid_grant", "error_description": "used"}, "invalid_grant"),
    ],
)
def test_malformed_token_answers_are_refused(answer: dict[str, Any], reason: str) -> None:
    with pytest.raises(TokenError, match=reason):
        normalise(answer)


async def test_sign_in_post_needs_the_csrf_token() -> None:
    provider = dataclasses.replace(oidc(), client_id=CLIENT_ID, client_secret=CLIENT_SECRET)
    client = AuthClient(make_config(providers=[provider]), origin=APP)
    refused = await client.post("signin/idp", form={"csrfToken": "forged"})
    assert refused.header("location") == f"{APP}/auth/signin?error=MissingCSRF"
    assert not any("state" in name for name in client.cookies)


async def test_callback_for_a_plain_oauth_provider_without_code_is_refused(
    caplog: pytest.LogCaptureFixture,
) -> None:
    outcome = await sign_in_through(plain(), plain_service(), callback_params={"code": ""})
    assert location(outcome) == f"{APP}/auth/signin?error=OAuthCallbackError"
    assert "carries no code" in logged(caplog)


async def test_thin_id_token_is_completed_from_userinfo() -> None:
    service = idp(
        claims={"sub": "user-1"},
        userinfo={"sub": "user-1", "email": "ada@example.com", "name": "Ada"},
    )
    outcome = await sign_in_through(oidc(), service)
    assert outcome.session["user"] == {"name": "Ada", "email": "ada@example.com"}
    assert service.sent("GET", f"{ISSUER}/userinfo").headers["authorization"] == (
        "Bearer access-token-1"
    )


async def test_full_id_token_needs_no_userinfo() -> None:
    service = idp()
    await sign_in_through(oidc(), service)
    assert not [r for r in service.requests if r.url.path == "/userinfo"]


async def test_thin_id_token_with_failing_userinfo_signs_in_with_the_claims() -> None:
    service = idp(
        claims={"sub": "user-1", "email": "ada@example.com"},
        routes={f"GET {ISSUER}/userinfo": lambda request: httpx.Response(503)},
    )
    outcome = await sign_in_through(oidc(), service)
    assert outcome.session["user"]["email"] == "ada@example.com"


@pytest.mark.parametrize(("curve", "alg"), [("P-384", "ES384"), ("P-521", "ES512")])
async def test_private_key_jwt_with_a_pem_ec_key_signs_for_its_curve(curve: str, alg: str) -> None:
    key = ECKey.generate_key(curve)
    service = idp()
    pem = key.as_pem(private=True).decode()
    outcome = await sign_in_through(
        oidc(client_auth="private_key_jwt", client_private_key=pem), service
    )
    assert location(outcome) == f"{APP}/dashboard"
    assertion = form_of(service.sent("POST", f"{ISSUER}/token"))["client_assertion"]
    token = jwt.decode(assertion, ECKey.import_key(key.as_dict(private=False)), algorithms=[alg])
    assert token.header["alg"] == alg


def test_a_public_key_for_private_key_jwt_stops_the_app() -> None:
    public = RSAKey.generate_key(2048).as_dict(private=False)
    provider = dataclasses.replace(
        oidc(client_auth="private_key_jwt", client_private_key=public), client_id=CLIENT_ID
    )
    with pytest.raises(InvalidProvider, match="is a public key"):
        validate_config(make_config(providers=[provider]))


@pytest.mark.parametrize(
    ("secret", "signs_in"), [(CLIENT_SECRET, True), ("another secret, long enough", False)]
)
async def test_id_token_signed_with_the_client_secret(secret: str, signs_in: bool) -> None:
    service = idp()
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": CLIENT_ID, "iat": now, "exp": now + 60, **CLAIMS}
    service.token_extra = {
        "id_token": jwt.encode({"alg": "HS256"}, claims, OctKey.import_key(secret))
    }
    outcome = await sign_in_through(oidc(checks=("pkce",)), service)
    expected = f"{APP}/dashboard" if signs_in else f"{APP}/auth/error?error=Configuration"
    assert location(outcome) == expected


async def test_a_failed_callback_spends_the_check_cookies_too() -> None:
    outcome = await sign_in_through(oidc(), idp(), callback_params={"error": "access_denied"})
    assert location(outcome) == f"{APP}/auth/signin?error=OAuthCallbackError"
    assert not [
        name
        for name in outcome.client.cookies
        if name.startswith("authjs.") and (name.endswith(("state", "code_verifier", "nonce")))
    ]


async def test_a_replayed_callback_is_refused(caplog: pytest.LogCaptureFixture) -> None:
    outcome = await sign_in_through(oidc(), idp())
    assert location(outcome) == f"{APP}/dashboard"
    state = outcome.params["state"]
    replay = await outcome.client.get(f"callback/idp?code=authorization-code-1&state={state}")
    assert replay.header("location") == f"{APP}/auth/error?error=Configuration"
    assert "state cookie (authjs.state) was missing" in logged(caplog)
