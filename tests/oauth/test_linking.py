"""The account linking rules of an OAuth sign-in with an adapter, under both session
strategies: new users, returning users, email collisions, email linking, connecting a
second provider while signed in, and nothing written when a sign-in is refused."""

from __future__ import annotations

from typing import Any

import pytest

from authui import Callbacks, Events, SessionOptions
from authui.adapters.base import AdapterAccount, AdapterUser
from authui.adapters.memory import MemoryAdapter
from authui.providers.oauth import OIDC
from tests.oauth.standin import APP, OIDCStandIn, sign_in_through

ISSUER = "https://idp.example.com"
ADA = {"sub": "ada-at-idp", "email": "ada@example.com", "name": "Ada", "email_verified": True}

pytestmark = pytest.mark.parametrize("strategy", ["database", "jwt"])


def provider(**settings: Any) -> Any:
    return OIDC(id="idp", issuer=ISSUER, **settings)


def stored_ada() -> AdapterUser:
    return AdapterUser(id="stored-ada", email="ada@example.com", name="Ada (stored)")


def where(outcome: Any) -> str:
    return str(outcome.callback.header("location"))


async def test_first_sign_in_creates_the_user_and_links_the_account(strategy: str) -> None:
    adapter = MemoryAdapter()
    events: list[str] = []
    outcome = await sign_in_through(
        provider(),
        OIDCStandIn(ISSUER, claims=ADA),
        adapter=adapter,
        session=SessionOptions(strategy=strategy),  # type: ignore[arg-type]
        events=Events(
            create_user=lambda user: events.append("create_user"),
            link_account=lambda user, account: events.append("link_account"),
            sign_in=lambda is_new_user: events.append(f"sign_in new={is_new_user}"),
        ),
    )
    assert where(outcome).startswith(f"{APP}/auth/new-user?callbackUrl=")
    [user] = adapter.users.values()
    assert (user.email, user.name, user.email_verified) == ("ada@example.com", "Ada", None)
    account = adapter.accounts[("idp", "ada-at-idp")]
    assert account.user_id == user.id
    assert account.access_token == "access-token-1"
    assert account.id_token
    assert account.token_type == "bearer"
    assert events == ["create_user", "link_account", "sign_in new=True"]
    assert outcome.session["user"]["email"] == "ada@example.com"
    assert len(adapter.sessions) == (1 if strategy == "database" else 0)


async def test_returning_user_signs_in_as_the_linked_user(strategy: str) -> None:
    adapter = MemoryAdapter()
    service = OIDCStandIn(ISSUER, claims=ADA)
    settings: dict[str, Any] = {"session": SessionOptions(strategy=strategy)}  # type: ignore[arg-type]
    first = await sign_in_through(provider(), service, adapter=adapter, **settings)
    seen: list[Any] = []

    def session_user(session: dict[str, Any], user: Any = None, token: Any = None) -> Any:
        seen.append(user.id if user is not None else token["sub"])
        return session

    second = await sign_in_through(
        provider(),
        service,
        adapter=adapter,
        callbacks=Callbacks(session=session_user),
        **settings,
    )
    assert where(second) == f"{APP}/dashboard"
    assert len(adapter.users) == 1
    assert seen == [first.user["id"]] == [next(iter(adapter.users))]


async def test_email_of_another_user_is_not_linked(strategy: str) -> None:
    adapter = MemoryAdapter()
    await adapter.create_user(stored_ada())
    outcome = await sign_in_through(
        provider(),
        OIDCStandIn(ISSUER, claims=ADA),
        adapter=adapter,
        session=SessionOptions(strategy=strategy),  # type: ignore[arg-type]
    )
    assert where(outcome) == f"{APP}/auth/signin?error=OAuthAccountNotLinked"
    assert outcome.session is None
    assert list(adapter.users) == ["stored-ada"]
    assert adapter.accounts == {}


async def test_email_linking_when_allowed_and_verified(strategy: str) -> None:
    adapter = MemoryAdapter()
    await adapter.create_user(stored_ada())
    outcome = await sign_in_through(
        provider(allow_dangerous_email_account_linking=True),
        OIDCStandIn(ISSUER, claims=ADA),
        adapter=adapter,
        session=SessionOptions(strategy=strategy),  # type: ignore[arg-type]
    )
    assert where(outcome) == f"{APP}/dashboard"
    assert adapter.accounts[("idp", "ada-at-idp")].user_id == "stored-ada"
    assert outcome.session["user"]["name"] == "Ada (stored)"


async def test_email_linking_refused_when_the_provider_does_not_verify(strategy: str) -> None:
    adapter = MemoryAdapter()
    await adapter.create_user(stored_ada())
    outcome = await sign_in_through(
        provider(allow_dangerous_email_account_linking=True),
        OIDCStandIn(ISSUER, claims={**ADA, "email_verified": False}),
        adapter=adapter,
        session=SessionOptions(strategy=strategy),  # type: ignore[arg-type]
    )
    assert where(outcome) == f"{APP}/auth/signin?error=OAuthAccountNotLinked"
    assert adapter.accounts == {}


async def test_signed_in_user_connects_another_account(strategy: str) -> None:
    adapter = MemoryAdapter()
    service = OIDCStandIn(ISSUER, claims=ADA)
    linked: list[str] = []
    first = await sign_in_through(
        provider(),
        service,
        adapter=adapter,
        session=SessionOptions(strategy=strategy),  # type: ignore[arg-type]
        events=Events(
            link_account=lambda user, account: linked.append(account["providerAccountId"])
        ),
    )
    [ada] = adapter.users
    service.claims = {"sub": "work-account", "email": "ada@work.example", "name": "Ada at work"}
    second = await sign_in_through(provider(), service, client=first.client)
    assert where(second) == f"{APP}/dashboard"
    assert adapter.accounts[("idp", "work-account")].user_id == ada
    assert list(adapter.users) == [ada]
    assert second.session["user"]["email"] == "ada@example.com"  # still Ada's own session
    assert linked == ["ada-at-idp", "work-account"]
    assert len(adapter.sessions) == (1 if strategy == "database" else 0)  # kept, not doubled
    third = await sign_in_through(provider(), service, client=first.client)  # again: no-op
    assert where(third) == f"{APP}/dashboard"
    assert len(adapter.sessions) == (1 if strategy == "database" else 0)


async def test_account_of_another_user_cannot_be_connected(strategy: str) -> None:
    adapter = MemoryAdapter()
    await adapter.create_user(AdapterUser(id="bob", email="bob@example.com"))
    await adapter.link_account(
        AdapterAccount(user_id="bob", type="oidc", provider="idp", provider_account_id="bobs")
    )
    service = OIDCStandIn(ISSUER, claims=ADA)
    first = await sign_in_through(
        provider(),
        service,
        adapter=adapter,
        session=SessionOptions(strategy=strategy),  # type: ignore[arg-type]
    )
    service.claims = {"sub": "bobs", "email": "bob@example.com"}
    second = await sign_in_through(provider(), service, client=first.client)
    assert where(second) == f"{APP}/auth/signin?error=OAuthAccountNotLinked"
    assert adapter.accounts[("idp", "bobs")].user_id == "bob"


async def test_refused_sign_in_writes_nothing(strategy: str) -> None:
    adapter = MemoryAdapter()
    outcome = await sign_in_through(
        provider(),
        OIDCStandIn(ISSUER, claims=ADA),
        adapter=adapter,
        session=SessionOptions(strategy=strategy),  # type: ignore[arg-type]
        callbacks=Callbacks(sign_in=lambda: False),
    )
    assert where(outcome) == f"{APP}/auth/error?error=AccessDenied"
    assert (adapter.users, adapter.accounts, adapter.sessions) == ({}, {}, {})


class FailingLink(MemoryAdapter):
    """Refuses to store any account (a write the database turns down, not an outage)."""

    async def link_account(self, account: AdapterAccount) -> AdapterAccount | None:
        raise ValueError("the database refused the account")

    async def create_user_and_account(
        self, user: AdapterUser, account: AdapterAccount
    ) -> tuple[AdapterUser, AdapterAccount]:
        raise ValueError("the database refused the account")


class FailingLinkInSteps(FailingLink):
    """The same, for an adapter that stores a new user and its account in two calls."""

    create_user_and_account = None  # type: ignore[assignment]


@pytest.mark.parametrize("adapter_class", [FailingLink, FailingLinkInSteps])
async def test_failed_link_leaves_no_user_behind(
    strategy: str, adapter_class: type[FailingLink]
) -> None:
    adapter = adapter_class()
    outcome = await sign_in_through(
        provider(),
        OIDCStandIn(ISSUER, claims=ADA),
        adapter=adapter,
        session=SessionOptions(strategy=strategy),  # type: ignore[arg-type]
    )
    assert where(outcome) == f"{APP}/auth/error?error=AdapterError"
    assert adapter.users == {}
    assert adapter.sessions == {}


async def test_the_account_callback_chooses_what_is_stored(strategy: str) -> None:
    adapter = MemoryAdapter()
    outcome = await sign_in_through(
        provider(account=lambda tokens: {"refresh_token": tokens["refresh_token"]}),
        OIDCStandIn(ISSUER, claims=ADA),
        adapter=adapter,
        session=SessionOptions(strategy=strategy),  # type: ignore[arg-type]
    )
    stored = adapter.accounts[("idp", "ada-at-idp")]
    assert stored.refresh_token == "refresh-token-1"
    assert (stored.access_token, stored.id_token, stored.expires_at) == (None, None, None)
    assert outcome.account["access_token"] == "access-token-1"  # callbacks still see it all
