"""``POST /auth/backchannel-logout/<provider>`` (OpenID Connect Back-Channel Logout 1.0):
a provider's signed logout token ends the user's database sessions, once; anything else is
the spec's 400 with a reason, and nothing is ended. (Against the real ``oidc-provider`` in
Chromium: ``tests/e2e/test_federated_logout.py``.)"""

from __future__ import annotations

import dataclasses
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from authui import SessionOptions
from authui.adapters.base import AdapterAccount, AdapterSession, AdapterUser
from authui.adapters.memory import MemoryAdapter
from authui.oauth.logout_token import LOGOUT_EVENT
from authui.providers.oauth import OIDC, OAuthProvider
from authui.testing import AuthClient
from tests.conftest import make_config
from tests.oauth.standin import CLIENT_ID, CLIENT_SECRET, OIDCStandIn

ISSUER = "https://idp.example.com"
ROUTE = "backchannel-logout/idp"


def logout_claims(**changes: Any) -> dict[str, Any]:
    now = int(time.time())
    claims = {
        "iss": ISSUER,
        "aud": CLIENT_ID,
        "iat": now,
        "exp": now + 120,
        "jti": f"jti-{now}-{len(changes)}",
        "sub": "ada-at-idp",
        "sid": "provider-session-1",
        "events": {LOGOUT_EVENT: {}},
    }
    claims.update(changes)
    return {k: v for k, v in claims.items() if v is not None}


@dataclasses.dataclass
class Site:
    client: AuthClient
    store: MemoryAdapter
    standin: OIDCStandIn

    async def sessions_of(self, user_id: str) -> list[str]:
        return sorted(t for t, s in self.store.sessions.items() if s.user_id == user_id)


async def site(strategy: str = "database") -> Site:
    standin = OIDCStandIn(ISSUER, claims={})
    made = OIDC(id="idp", issuer=ISSUER, client_id=CLIENT_ID, client_secret=CLIENT_SECRET)
    provider: OAuthProvider = dataclasses.replace(made, custom_fetch=standin)
    store = MemoryAdapter()
    later = datetime.now(UTC) + timedelta(days=1)
    for user_id, sub in (("ada", "ada-at-idp"), ("bob", "bob-at-idp")):
        await store.create_user(AdapterUser(id=user_id, email=f"{user_id}@example.com"))
        await store.link_account(
            AdapterAccount(user_id=user_id, type="oidc", provider="idp", provider_account_id=sub)
        )
        for n in (1, 2):
            await store.create_session(
                AdapterSession(session_token=f"{user_id}-{n}", user_id=user_id, expires=later)
            )
    config = make_config(
        providers=[provider],
        adapter=store,
        session=SessionOptions(strategy=strategy),  # type: ignore[arg-type]
    )
    return Site(AuthClient(config), store, standin)


async def notify(here: Site, token: str | None) -> tuple[int, dict[str, Any] | None]:
    form = {} if token is None else {"logout_token": token}
    answer = await here.client.post(ROUTE, form=form)
    assert answer.header("cache-control") == "no-store"
    assert answer.header("location") is None  # never a redirect
    return answer.status, (answer.data() if answer.body else None)


async def test_a_logout_token_ends_the_user_s_sessions_once() -> None:
    here = await site()
    token = here.standin.signed(logout_claims(), typ="logout+jwt")

    assert await notify(here, token) == (200, None)  # no CSRF token: the signature is enough

    assert await here.sessions_of("ada") == []
    assert await here.sessions_of("bob") == ["bob-1", "bob-2"]
    status, body = await notify(here, token)  # the same token again
    assert status == 400
    assert body == {
        "error": "invalid_request",
        "error_description": "This logout token was used already",
    }


async def test_a_user_unknown_here_ends_nothing_but_is_no_error() -> None:
    here = await site()
    token = here.standin.signed(logout_claims(sub="someone-else"))

    assert await notify(here, token) == (200, None)
    assert await here.sessions_of("ada") == ["ada-1", "ada-2"]


@pytest.mark.parametrize(
    ("token", "says"),
    [
        pytest.param(None, "no logout_token", id="no token"),
        pytest.param("not-a-jwt", "not a signed JWT", id="not a JWT"),
        pytest.param({"aud": "another-client"}, "aud", id="for another client"),
        pytest.param({"nonce": "n"}, "nonce", id="an id_token"),
        pytest.param({"events": None}, "event", id="no logout event"),
        pytest.param({"sub": None}, "needs a sub", id="only a sid"),
    ],
)
async def test_a_wrong_request_is_refused_and_ends_nothing(
    token: dict[str, Any] | str | None, says: str
) -> None:
    """(``token``: a raw value, or the changes to a sound token's claims, made now.)"""
    here = await site()
    raw = here.standin.signed(logout_claims(**token)) if isinstance(token, dict) else token

    status, body = await notify(here, raw)

    assert status == 400
    assert body is not None
    assert body["error"] == "invalid_request"
    assert says in body["error_description"]
    assert await here.sessions_of("ada") == ["ada-1", "ada-2"]


async def test_another_provider_s_path_is_refused() -> None:
    here = await site()
    answer = await here.client.post("backchannel-logout/nobody", form={"logout_token": "x"})
    assert answer.status == 400
    assert "not an OpenID provider" in answer.data()["error_description"]


async def test_jwt_sessions_cannot_be_ended_from_the_server() -> None:
    here = await site("jwt")
    token = here.standin.signed(logout_claims())

    status, body = await notify(here, token)

    assert status == 501
    assert body is not None
    assert body["error"] == "unsupported"
