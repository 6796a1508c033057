"""Fresh access tokens in one process, against a stand-in provider that rotates refresh
tokens: a valid token is kept, an expired one is refreshed once however many callers ask at
the same moment, and a refresh the provider refuses is a ``RefreshTokenError`` that changes
nothing. (Many processes on real databases and a real OpenID provider:
``tests/access_tokens/test_processes.py``.)"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from typing import Any

import httpx
import pytest
from quart import Quart

from authui import JWTOptions, SessionOptions
from authui.access_tokens import Refresher
from authui.adapters.base import AdapterAccount, AdapterCalls, AdapterUser
from authui.adapters.memory import MemoryAdapter
from authui.core import access_token_of
from authui.errors import InvalidProvider, MissingAdapter, RefreshTokenError
from authui.http import Request
from authui.logger import StandardLogger
from authui.oauth.discovery import DiscoveryCache
from authui.oauth.refreshing import REFRESH_SKEW
from authui.options import resolve
from authui.providers.oauth import OIDC, OAuthProvider
from authui.quart import AuthUI
from authui.testing import AuthClient
from tests.oauth.standin import CLIENT_ID, CLIENT_SECRET, OIDCStandIn, form_of, sign_in_through

ISSUER = "https://idp.example.com"
TOKEN_URL = f"{ISSUER}/token"
FIRST_REFRESH_TOKEN = "refresh-0"


class RotatingTokens:
    """The provider's token endpoint for refreshes: each refresh token works once and
    brings a new one (a spent one is ``invalid_grant``, as oidc-provider answers)."""

    def __init__(self) -> None:
        self.live = {FIRST_REFRESH_TOKEN}
        self.calls = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        form = form_of(request)
        assert form["grant_type"] == "refresh_token"
        if form["refresh_token"] not in self.live:
            return httpx.Response(400, json={"error": "invalid_grant"})
        self.live.discard(form["refresh_token"])
        new = f"refresh-{self.calls}"
        self.live.add(new)
        return httpx.Response(
            200,
            json={
                "access_token": f"access-{self.calls}",
                "refresh_token": new,
                "token_type": "Bearer",
                "expires_in": 3600,
                "scope": "openid email",
            },
        )


async def setup(
    *, expires_at: int | None, refresh_token: str | None = FIRST_REFRESH_TOKEN
) -> tuple[Refresher, OAuthProvider, AdapterAccount, RotatingTokens, OIDCStandIn]:
    endpoint = RotatingTokens()
    standin = OIDCStandIn(ISSUER, claims={}, routes={f"POST {TOKEN_URL}": endpoint})
    made = OIDC(id="idp", issuer=ISSUER, client_id=CLIENT_ID, client_secret=CLIENT_SECRET)
    provider = dataclasses.replace(made, custom_fetch=standin)
    store = MemoryAdapter()
    user = await store.create_user(AdapterUser(id="u1", email="ada@example.com"))
    account = AdapterAccount(
        user_id=user.id,
        type="oidc",
        provider="idp",
        provider_account_id="ada",
        access_token="access-0",
        refresh_token=refresh_token,
        expires_at=expires_at,
        token_type="bearer",
    )
    await store.link_account(account)
    refresher = Refresher(AdapterCalls(store, StandardLogger()), DiscoveryCache())
    return refresher, provider, account, endpoint, standin


async def test_a_valid_token_is_kept() -> None:
    refresher, provider, account, endpoint, _ = await setup(expires_at=int(time.time()) + 600)

    assert await refresher.fresh(provider, account) == account
    assert endpoint.calls == 0


async def test_an_expired_token_is_refreshed_and_stored() -> None:
    soon = int(time.time()) + REFRESH_SKEW - 1  # within the skew: expired already
    refresher, provider, account, endpoint, standin = await setup(expires_at=soon)

    fresh = await refresher.fresh(provider, account)

    assert (fresh.access_token, fresh.refresh_token) == ("access-1", "refresh-1")
    assert fresh.expires_at is not None
    assert abs(fresh.expires_at - (time.time() + 3600)) < 5
    assert fresh.scope == "openid email"
    stored = await refresher.adapter.call("get_account", "test", "ada", "idp")
    assert stored == fresh
    request = standin.sent("POST", TOKEN_URL)
    assert request.headers["authorization"].startswith("Basic ")  # the client's own method
    assert await refresher.fresh(provider, fresh) == fresh  # valid now: no second refresh
    assert endpoint.calls == 1


async def test_callers_at_the_same_moment_share_one_refresh() -> None:
    refresher, provider, account, endpoint, _ = await setup(expires_at=int(time.time()) - 10)

    found = await asyncio.gather(*(refresher.fresh(provider, account) for _ in range(20)))

    assert endpoint.calls == 1  # the rotated refresh token is never sent twice
    assert {a.access_token for a in found} == {"access-1"}
    assert {a.refresh_token for a in found} == {"refresh-1"}


@pytest.mark.parametrize(
    ("refresh_token", "says"),
    [
        pytest.param("revoked", "refused", id="refused by the provider"),
        pytest.param(None, "no refresh token", id="no refresh token"),
    ],
)
async def test_a_refresh_that_cannot_happen_changes_nothing(
    refresh_token: str | None, says: str
) -> None:
    refresher, provider, account, _, _ = await setup(
        expires_at=int(time.time()) - 10, refresh_token=refresh_token
    )

    with pytest.raises(RefreshTokenError, match=says):
        await refresher.fresh(provider, account)

    assert await refresher.adapter.call("get_account", "test", "ada", "idp") == account
    # The lease is given back: a later call tries again rather than waiting.
    with pytest.raises(RefreshTokenError, match=says):
        await refresher.fresh(provider, account)


async def test_an_unknown_expiry_counts_as_valid() -> None:
    refresher, provider, account, endpoint, _ = await setup(expires_at=None)

    assert (await refresher.fresh(provider, account)).access_token == "access-0"
    assert endpoint.calls == 0


# --- the signed-in user's token, as the integrations ask for it ---------------------------


async def signed_in(
    strategy: str, *, keep_in_jwt: bool = False
) -> tuple[AuthClient, MemoryAdapter, RotatingTokens]:
    """A user signed in through a stand-in OpenID provider whose refresh tokens rotate;
    the browser (with its cookies), the store and the token endpoint's refresh answers.
    ``keep_in_jwt``: no adapter, the tokens kept in the JWT (``provider_tokens``)."""
    endpoint = RotatingTokens()
    standin = OIDCStandIn(
        ISSUER,
        claims={"sub": "ada", "email": "ada@example.com"},
        token_extra={"refresh_token": FIRST_REFRESH_TOKEN},
    )
    sign_in_answer = standin.routes[f"POST {TOKEN_URL}"]

    def token(request: httpx.Request) -> Any:
        if form_of(request)["grant_type"] == "refresh_token":
            return endpoint(request)
        return sign_in_answer(request)

    standin.routes[f"POST {TOKEN_URL}"] = token
    store = MemoryAdapter()
    provider = OIDC(id="idp", issuer=ISSUER, client_id=CLIENT_ID, client_secret=CLIENT_SECRET)
    settings: dict[str, Any] = (
        {"jwt": JWTOptions(provider_tokens=True)} if keep_in_jwt else {"adapter": store}
    )
    outcome = await sign_in_through(
        provider,
        standin,
        session=SessionOptions(strategy=strategy),  # type: ignore[arg-type]
        **settings,
    )
    assert outcome.session["user"]["email"] == "ada@example.com"
    return outcome.client, store, endpoint


async def token_of(client: AuthClient, provider_id: str = "idp") -> str | None:
    token, cookies = await access_token_of(request_of(client), client.config, provider_id)
    assert cookies == []  # tokens in the accounts table: the session cookie stays
    return token


def request_of(client: AuthClient) -> Request:
    cookie = "; ".join(f"{k}={v}" for k, v in client.cookies.items())
    return Request.build("GET", client.url("session"), headers={"cookie": cookie})


@pytest.mark.parametrize("strategy", ["database", "jwt"])
async def test_the_signed_in_user_s_token_is_kept_then_refreshed(strategy: str) -> None:
    client, store, endpoint = await signed_in(strategy)

    assert await token_of(client) == "access-token-1"  # the sign-in's, still valid
    assert endpoint.calls == 0
    [(key, account)] = store.accounts.items()
    store.accounts[key] = dataclasses.replace(account, expires_at=int(time.time()) - 1)

    assert await token_of(client) == "access-1"
    assert endpoint.calls == 1
    assert store.accounts[key].refresh_token == "refresh-1"


async def test_no_token_without_a_signed_in_user_and_a_clear_error_otherwise() -> None:
    client, store, _ = await signed_in("database")
    stranger = AuthClient(client.config)

    assert await token_of(stranger) is None
    with pytest.raises(InvalidProvider, match="nowhere"):
        await token_of(client, "nowhere")
    store.accounts.clear()  # the account was unlinked
    with pytest.raises(RefreshTokenError, match="no idp account"):
        await token_of(client)


# --- tokens kept in a JWT session, without an adapter -------------------------------------

SESSION_COOKIE = "authjs.session-token"


def session_token(client: AuthClient) -> dict[str, Any]:
    found = resolve(client.config).key_ring.decode(client.cookies[SESSION_COOKIE], SESSION_COOKIE)
    assert found is not None
    return dict(found)


def with_session_token(client: AuthClient, **changes: Any) -> None:
    """Put a changed token into the client's session cookie, as if time had passed."""
    token = {**session_token(client), **changes}
    ring = resolve(client.config).key_ring
    client.cookies[SESSION_COOKIE] = ring.encode(token, SESSION_COOKIE, 30 * 24 * 3600)


def keep(client: AuthClient, cookies: list[Any]) -> None:
    for cookie in cookies:
        client.cookies[cookie.name] = cookie.value


async def test_a_jwt_session_keeps_the_sign_in_s_tokens_and_is_reissued_after_a_refresh() -> None:
    client, _, endpoint = await signed_in("jwt", keep_in_jwt=True)
    kept = session_token(client)
    assert kept["provider"] == "idp"
    assert kept["access_token"] == "access-token-1"
    assert kept["refresh_token"] == FIRST_REFRESH_TOKEN
    assert abs(kept["expires_at"] - (time.time() + 3600)) < 5

    token, cookies = await access_token_of(request_of(client), client.config, "idp")
    assert (token, cookies) == ("access-token-1", [])  # still valid: nothing re-issued

    with_session_token(client, expires_at=int(time.time()) - 1)
    token, cookies = await access_token_of(request_of(client), client.config, "idp")
    assert token == "access-1"
    assert [c.name for c in cookies] == [SESSION_COOKIE]
    keep(client, cookies)
    renewed = session_token(client)
    assert (renewed["access_token"], renewed["refresh_token"]) == ("access-1", "refresh-1")
    assert renewed["sub"] == kept["sub"]
    assert endpoint.calls == 1
    assert (await client.get("session")).data()["user"]["email"] == "ada@example.com"


async def test_requests_with_one_cookie_share_one_refresh() -> None:
    client, _, endpoint = await signed_in("jwt", keep_in_jwt=True)
    with_session_token(client, expires_at=int(time.time()) - 1)
    request = request_of(client)

    found = await asyncio.gather(
        *(access_token_of(request, client.config, "idp") for _ in range(20))
    )

    assert endpoint.calls == 1
    assert {token for token, _ in found} == {"access-1"}


async def test_a_refused_refresh_is_recorded_in_the_session() -> None:
    client, _, _ = await signed_in("jwt", keep_in_jwt=True)
    with_session_token(client, expires_at=int(time.time()) - 1, refresh_token="revoked")

    with pytest.raises(RefreshTokenError, match="refused") as refused:
        await access_token_of(request_of(client), client.config, "idp")

    keep(client, list(refused.value.cookies))
    session = (await client.get("session")).data()
    assert session["error"] == "RefreshTokenError"
    assert session["user"]["email"] == "ada@example.com"  # still signed in


async def test_without_kept_tokens_or_an_adapter_there_is_nothing_to_refresh() -> None:
    client, _, _ = await signed_in("jwt", keep_in_jwt=True)
    plain = dataclasses.replace(client.config, jwt=JWTOptions())

    with pytest.raises(MissingAdapter):
        await access_token_of(request_of(client), plain, "idp")


async def test_quart_sets_the_reissued_cookie_on_the_view_s_response() -> None:
    client, _, endpoint = await signed_in("jwt", keep_in_jwt=True)
    with_session_token(client, expires_at=int(time.time()) - 1)
    app = Quart(__name__)
    auth_ui = AuthUI(app, client.config)

    @app.get("/token")
    async def token() -> str:
        return await auth_ui.auth.get_access_token("idp") or "none"

    cookie = "; ".join(f"{k}={v}" for k, v in client.cookies.items())
    answer = await app.test_client().get(
        "/token", headers={"Cookie": cookie, "Host": "localhost:3000"}
    )

    assert await answer.get_data(as_text=True) == "access-1"
    [session] = [c for c in answer.headers.getlist("Set-Cookie") if c.startswith(SESSION_COOKIE)]
    client.cookies[SESSION_COOKIE] = session.split(";", 1)[0].split("=", 1)[1]
    assert session_token(client)["refresh_token"] == "refresh-1"
    assert endpoint.calls == 1


async def test_a_refused_refresh_of_a_stored_account_is_said_in_the_session() -> None:
    """Tokens in the accounts table: the failure is remembered in a cookie, the session
    says ``error``, and the next refresh that works (or a new sign-in) clears it."""
    client, store, _ = await signed_in("database")
    [(key, account)] = store.accounts.items()
    expired = int(time.time()) - 1
    store.accounts[key] = dataclasses.replace(account, expires_at=expired, refresh_token="revoked")

    with pytest.raises(RefreshTokenError, match="refused") as refused:
        await access_token_of(request_of(client), client.config, "idp")

    [cookie] = refused.value.cookies
    assert (cookie.name, cookie.value) == ("authui.refresh-error", "idp")
    keep(client, [cookie])
    assert (await client.get("session")).data()["error"] == "RefreshTokenError"

    store.accounts[key] = dataclasses.replace(account, expires_at=expired)  # re-linked, say
    token, cookies = await access_token_of(request_of(client), client.config, "idp")
    assert token == "access-2"  # the endpoint's second answer (the first was the refusal)
    assert [(c.name, c.value, c.options.max_age) for c in cookies] == [
        ("authui.refresh-error", "", 0)
    ]
