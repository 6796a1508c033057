"""A FastAPI API that only reads sessions issued elsewhere: tokens minted by the real
``@auth/core`` (npm, run by node; see tests/peers/authjs_node.py), sent as the session
cookie, as its chunks, or as a bearer token, to a route behind ``RequireSession``. The API
mounts no auth route: it shares only the secret.

The sign-in itself happens in Auth.js (``core.mjs``: csrf, then the credentials callback),
so the cookie is exactly what a Next.js app's browser would carry. Everything is minted
once per module (node starts four times).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request

from authui import AuthConfig
from authui.fastapi import AuthMiddleware, RequireSession, Session, get_token
from tests.peers import authjs_node
from tests.peers.authjs_node import AuthJS

authjs = authjs_node.authjs  # the peer: fails under CI, skips elsewhere, without node

SECRET = "shared-secret-of-the-next-app-and-the-api-0123456789"
ADA = {"name": "Ada Lovelace", "email": "ada@example.com", "image": "https://x/a.png"}
CLAIMS = {"name": ADA["name"], "email": ADA["email"], "picture": ADA["image"], "sub": "42"}
"""The claims Auth.js puts in the token of that user."""
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def api(secret: str = SECRET) -> FastAPI:
    """The resource server: the middleware and two routes, no auth routes."""
    app = FastAPI()
    config = AuthConfig(secret=secret, providers=[], trust_host=True)
    app.add_middleware(AuthMiddleware, config=config)

    @app.get("/api/me")
    async def me(session: RequireSession) -> Session:
        return session

    @app.get("/api/token")
    async def token(request: Request) -> dict[str, Any] | None:
        claims = get_token(request, secret=secret)
        return claims if isinstance(claims, dict) else None

    return app


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=api())
    async with httpx.AsyncClient(transport=transport, base_url="http://app.test") as client:
        yield client


def step(method: str, path: str, body: str | None = None) -> dict[str, Any]:
    headers = FORM if body is not None else {}
    return {"method": method, "path": path, "headers": headers, "body": body, "cookies": {}}


def signed_in(origin: str) -> dict[str, Any]:
    """A scenario signing in as ada in Auth.js at ``origin``."""
    body = "csrfToken={csrf}&username=ada&password=correct+horse&callbackUrl=%2F"
    steps = [step("GET", "/auth/csrf"), step("POST", "/auth/callback/credentials", body)]
    return {"name": f"sign-in at {origin}", "origin": origin, "steps": steps}


def session_cookies(callback: dict[str, Any]) -> dict[str, str]:
    """The session cookies an Auth.js callback answer set."""
    assert callback["status"] == 302, callback
    pairs = (c.split(";", 1)[0].split("=", 1) for c in callback["headers"]["set-cookie"])
    return {name: value for name, value in pairs if "session-token" in name}


@dataclass(frozen=True)
class Minted:
    """What Auth.js issued for the tests."""

    http: dict[str, str]
    """The session cookie of a sign-in over http."""
    https: dict[str, str]
    """The session cookie of a sign-in over https."""
    other_secret: dict[str, str]
    """A session cookie of an app with another secret."""
    chunked: dict[str, str]
    """A large token's chunk cookies."""
    expired: str
    """A token whose ``exp`` is an hour ago."""


@pytest.fixture(scope="module")
def minted(authjs: AuthJS) -> Minted:
    (_, http), (_, https) = authjs.core(
        SECRET, [signed_in("http://app.test"), signed_in("https://app.test")]
    )
    ((_, other),) = authjs.core("another-app-" * 4, [signed_in("http://app.test")])
    name = "authjs.session-token"
    big = {**CLAIMS, "roles": ["reader"] * 400}
    encoded = authjs.run(
        [
            {"op": "encode", "token": big, "secret": SECRET, "salt": name},
            {"op": "encode", "token": CLAIMS, "secret": SECRET, "salt": name, "maxAge": -3600},
        ]
    )
    (chunked,) = authjs.run([{"op": "chunk", "name": name, "value": encoded[0]["jwe"]}])
    return Minted(
        http=session_cookies(http),
        https=session_cookies(https),
        other_secret=session_cookies(other),
        chunked={c["name"]: c["value"] for c in chunked["cookies"]},
        expired=encoded[1]["jwe"],
    )


def cookie_header(cookies: dict[str, str]) -> dict[str, str]:
    return {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())}


async def test_an_authjs_session_cookie_is_accepted(
    minted: Minted, client: httpx.AsyncClient
) -> None:
    assert list(minted.http) == ["authjs.session-token"]
    me = await client.get("/api/me", headers=cookie_header(minted.http))
    assert me.status_code == 200, me.text
    assert me.json()["user"] == ADA
    claims = (await client.get("/api/token", headers=cookie_header(minted.http))).json()
    assert (claims["name"], claims["email"], claims["sub"]) == (ADA["name"], ADA["email"], "42")


async def test_an_authjs_https_cookie_is_accepted_over_https(minted: Minted) -> None:
    assert list(minted.https) == ["__Secure-authjs.session-token"]
    transport = httpx.ASGITransport(app=api())
    async with httpx.AsyncClient(transport=transport, base_url="https://app.test") as client:
        me = await client.get("/api/me", headers=cookie_header(minted.https))
    assert me.json()["user"] == ADA


async def test_an_authjs_token_as_a_bearer_is_accepted(
    minted: Minted, client: httpx.AsyncClient
) -> None:
    token = minted.http["authjs.session-token"]
    me = await client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
    assert me.json()["user"] == ADA
    assert "set-cookie" not in me.headers


async def test_a_chunked_authjs_cookie_is_accepted(
    minted: Minted, client: httpx.AsyncClient
) -> None:
    assert list(minted.chunked) == ["authjs.session-token.0", "authjs.session-token.1"]
    me = await client.get("/api/me", headers=cookie_header(minted.chunked))
    assert me.json()["user"] == ADA


async def test_a_forged_or_expired_token_is_refused(
    minted: Minted, client: httpx.AsyncClient
) -> None:
    token = minted.http["authjs.session-token"]
    header, key, iv, ciphertext, tag = token.split(".")
    flipped = ("A" if ciphertext[5] != "A" else "B").join((ciphertext[:5], ciphertext[6:]))
    tampered = ".".join((header, key, iv, flipped, tag))
    refused = {
        "another secret": cookie_header(minted.other_secret),
        "tampered": cookie_header({"authjs.session-token": tampered}),
        "expired": cookie_header({"authjs.session-token": minted.expired}),
        "expired bearer": {"Authorization": f"Bearer {minted.expired}"},
        "not a token": {"Authorization": "Bearer not-a-token"},
    }
    for why, headers in refused.items():
        me = await client.get("/api/me", headers=headers)
        assert me.status_code == 401, why
        assert me.json() == {"detail": "Sign in to access this resource."}, why
        assert (await client.get("/api/token", headers=headers)).json() is None, why
