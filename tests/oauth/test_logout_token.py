"""Logout tokens (OpenID Connect Back-Channel Logout 1.0 §2.4-2.6): a sound one gives whose
sign-out it announces; every way one can be wrong is refused, with the reason."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import pytest
from joserfc import jwt
from joserfc.jwk import OctKey

from authui.oauth.discovery import DiscoveryCache
from authui.oauth.logout_token import LOGOUT_EVENT, MAX_AGE, LogoutRequest, logout_request
from authui.oauth.tokens import TokenError
from authui.providers.oauth import OIDC, OAuthProvider
from tests.oauth.standin import CLIENT_ID, CLIENT_SECRET, OIDCStandIn

ISSUER = "https://idp.example.com"


def provider(standin: OIDCStandIn) -> OAuthProvider:
    made = OIDC(id="idp", issuer=ISSUER, client_id=CLIENT_ID, client_secret=CLIENT_SECRET)
    return dataclasses.replace(made, custom_fetch=standin)


def claims(**changes: Any) -> dict[str, Any]:
    """A logout token's claims, as the spec's example has them, with ``changes`` (``None``
    removes a claim)."""
    now = int(time.time())
    found = {
        "iss": ISSUER,
        "aud": CLIENT_ID,
        "iat": now,
        "exp": now + 120,
        "jti": "bWJq",
        "sid": "08a5019c-17e1-4977-8f42-65a12843ea02",
        "sub": "248289761001",
        "events": {LOGOUT_EVENT: {}},
    }
    found.update(changes)
    return {k: v for k, v in found.items() if v is not None}


async def check(raw: str, standin: OIDCStandIn) -> LogoutRequest:
    return await logout_request(provider(standin), raw, DiscoveryCache())


async def test_a_sound_logout_token_names_the_sign_out() -> None:
    standin = OIDCStandIn(ISSUER, claims={})
    raw = standin.signed(claims(), typ="logout+jwt")

    found = await check(raw, standin)

    assert found == LogoutRequest(
        issuer=ISSUER,
        subject="248289761001",
        session_id="08a5019c-17e1-4977-8f42-65a12843ea02",
        token_id="bWJq",
        issued_at=claims()["iat"],
    )
    assert any(r.url.path == "/jwks" for r in standin.requests)  # the provider's keys


@pytest.mark.parametrize(
    ("changes", "header", "says"),
    [
        pytest.param({"iss": "https://other.example"}, {}, "iss", id="another issuer"),
        pytest.param({"aud": "someone-else"}, {}, "aud", id="another client"),
        pytest.param({"iat": None}, {}, "iat", id="no iat"),
        pytest.param({"iat": -MAX_AGE - 120}, {}, "recent", id="old"),
        pytest.param({"iat": 600}, {}, "recent", id="from the future"),
        pytest.param({"exp": -600}, {}, "expired", id="expired"),
        pytest.param({"events": None}, {}, "event", id="no events"),
        pytest.param({"events": {"other": {}}}, {}, "event", id="another event"),
        pytest.param({"events": {LOGOUT_EVENT: "yes"}}, {}, "event", id="event not an object"),
        pytest.param({"nonce": "n-0S6_WzA2Mj"}, {}, "nonce", id="an id_token"),
        pytest.param({"sub": None, "sid": None}, {}, "neither", id="nobody named"),
        pytest.param({"jti": None}, {}, "jti", id="no jti"),
        pytest.param({}, {"typ": "at+jwt"}, "typed", id="typed as an access token"),
    ],
)
async def test_a_wrong_logout_token_is_refused(
    changes: dict[str, Any], header: dict[str, str], says: str
) -> None:
    """(``iat`` and ``exp`` in ``changes`` are seconds from now.)"""
    standin = OIDCStandIn(ISSUER, claims={})
    now = int(time.time())
    timed = {k: now + v if k in ("iat", "exp") and v is not None else v for k, v in changes.items()}
    raw = standin.signed(claims(**timed), **header)

    with pytest.raises(TokenError, match=says):
        await check(raw, standin)


async def test_either_sub_or_sid_is_enough() -> None:
    standin = OIDCStandIn(ISSUER, claims={})
    only_sid = await check(standin.signed(claims(sub=None)), standin)
    only_sub = await check(standin.signed(claims(sid=None)), standin)
    assert (only_sid.subject, only_sid.session_id) == (None, claims()["sid"])
    assert (only_sub.subject, only_sub.session_id) == (claims()["sub"], None)


async def test_a_token_signed_by_anyone_else_is_refused() -> None:
    standin = OIDCStandIn(ISSUER, claims={})
    forged = jwt.encode({"alg": "HS256"}, claims(), OctKey.import_key("not-the-client-secret"))
    unsigned = standin.signed(claims()).rsplit(".", 1)[0] + "."

    with pytest.raises(TokenError, match="signature"):
        await check(forged, standin)
    with pytest.raises(TokenError):
        await check(unsigned, standin)
    with pytest.raises(TokenError, match="not a signed JWT"):
        await check("logout", standin)


async def test_a_token_signed_with_the_client_secret_is_accepted() -> None:
    standin = OIDCStandIn(ISSUER, claims={})
    raw = jwt.encode({"alg": "HS256"}, claims(), OctKey.import_key(CLIENT_SECRET))
    assert (await check(raw, standin)).token_id == "bWJq"
