"""Step-up: the sign-in again that a sensitive change asks for, and the sign-in facts it
reads (``auth_time``, ``amr``) after each kind of sign-in, in a JWT and in a database
session's details. OAuth sign-ins go through a real OpenID provider (``conftest.op``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from authui.adapters.memory import MemoryAdapter
from authui.i18n import ENGLISH
from tests.account.support import (
    APP,
    JSON,
    PAGE,
    PASSWORD,
    SESSION_COOKIE,
    Browser,
    Site,
    account_url,
    add_passkey,
    alerts,
    forms_of,
    make_old,
    oauth_sign_in,
    op_provider,
    passkey_sign_in,
    post,
    post_json,
    read,
    session_of,
    sign_in,
    site,
    submit,
    token_of,
)
from tests.peers.oidc_provider import OIDCProvider
from tests.soft_authenticator import SoftAuthenticator

STEP_UP_COOKIE = "authui.step-up"
SESSIONS = account_url("sessions")
BACK = account_url("sessions", notice="reauthenticated")
"""Where a step-up from the sessions page comes back to: the page, saying the sign-in
worked."""


async def facts(here: Site, browser: Browser) -> tuple[datetime, list[str]]:
    """``auth_time`` and ``amr`` as the session keeps them: the JWT's claims, or the
    database session's details row."""
    if here.strategy == "jwt":
        token = token_of(browser)
        return datetime.fromtimestamp(token["auth_time"], UTC), token["amr"]
    details = await here.store.get_session_details(browser.cookies[SESSION_COOKIE])
    assert details is not None
    return details.auth_time, list(details.amr)


def recent(when: datetime) -> bool:
    return datetime.now(UTC) - when < timedelta(seconds=10)


async def step_up_page(browser: Browser, back: str = SESSIONS) -> Any:
    page = await browser.get(f"account/reauthenticate?callbackUrl={back}", headers=PAGE)
    assert page.status == 200, page.text
    return page


def credentials_form(page: Any) -> Any:
    [form] = [f for f in forms_of(page) if f.action == f"{APP}/auth/callback/credentials"]
    return form


# The step-up page -------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["database", "jwt"])
async def test_the_step_up_page_offers_the_users_own_ways_in(strategy: str) -> None:
    here = await site(strategy)
    ada = await here.client("ada")
    await add_passkey(ada)
    await make_old(here, ada)

    refused = await post(
        ada, "sessions", {"intent": "revoke-others" if strategy == "database" else "everywhere"}
    )
    step_up = str(refused.header("location"))
    assert step_up == account_url("reauthenticate", callbackUrl=SESSIONS)
    page = await ada.get(step_up.removeprefix(f"{APP}/auth/"), headers=PAGE)
    [cookie] = [c for c in page.header_all("set-cookie") if c.startswith(f"{STEP_UP_COOKIE}=")]
    assert "HttpOnly" in cookie
    assert "Max-Age=900" in cookie
    assert STEP_UP_COOKIE in ada.cookies
    assert "Confirm it is you" in page.text
    actions = [f.action for f in forms_of(page)]
    assert f"{APP}/auth/callback/passkey" in actions
    assert f"{APP}/auth/signin/email" in actions
    assert f"{APP}/auth/callback/credentials" in actions
    [email] = [f for f in forms_of(page) if f.action == f"{APP}/auth/signin/email"]
    assert email.fields["email"] == "ada@example.com"  # a link to her own address only
    for form in forms_of(page):
        if form.action != f"{APP}/auth/signout":
            assert form.fields["callbackUrl"] == BACK
    seen = await read(ada, "reauthenticate")
    assert seen["signIn"]["amr"] == ["pwd"]


@pytest.mark.parametrize("strategy", ["database", "jwt"])
async def test_signing_in_again_as_oneself_refreshes_the_sign_in_and_comes_back(
    strategy: str,
) -> None:
    here = await site(strategy)
    ada = await here.client("ada")
    await make_old(here, ada)
    old, _ = await facts(here, ada)
    page = await step_up_page(ada)

    done = await submit(
        ada,
        credentials_form(page),
        email="ada@example.com",
        password=PASSWORD,
    )
    assert done.header("location") == BACK
    assert STEP_UP_COOKIE not in ada.cookies  # the mark ends with the sign-in
    when, amr = await facts(here, ada)
    assert recent(when)
    assert when > old + timedelta(hours=1)
    assert amr == ["pwd"]
    assert [e.kind for e in here.activity()][-1] == "reauthenticated"
    kind = "revoke-others" if strategy == "database" else "everywhere"
    assert (await post_json(ada, "sessions", {"intent": kind})).status == 200


@pytest.mark.parametrize("strategy", ["database", "jwt"])
async def test_signing_in_again_as_someone_else_is_refused(strategy: str) -> None:
    here = await site(strategy)
    ada = await here.client("ada")
    await make_old(here, ada)
    before = dict(ada.cookies)
    old = await facts(here, ada)
    page = await step_up_page(ada)

    refused = await submit(
        ada,
        credentials_form(page),
        email="bob@example.com",
        password=PASSWORD,
    )
    assert refused.header("location") == f"{APP}/auth/signin?error=ReauthenticationFailed"
    shown = await ada.get("signin?error=ReauthenticationFailed", headers=PAGE)
    assert "That sign-in was not yours" in shown.text
    assert ada.cookies[SESSION_COOKIE] == before[SESSION_COOKIE]  # no new session
    assert (await session_of(ada))["user"]["email"] == "ada@example.com"
    assert await facts(here, ada) == old
    assert (await post_json(ada, "delete", {"intent": "delete", "confirm": "yes"})).status == 403
    if strategy == "database":
        store: MemoryAdapter = here.store
        assert [s.user_id for s in store.sessions.values()] == [here.users["ada"].id]
    kinds = [(e.kind, e.user_id) for e in here.activity()]
    assert ("sign-in", here.users["bob"].id) not in kinds


@pytest.mark.parametrize("ended_by", ["signing out", "another browser"])
async def test_once_the_session_is_gone_the_next_person_signs_in_as_themselves(
    ended_by: str,
) -> None:
    """Ada left a step-up unfinished on a shared computer, and her session there ended:
    she signed out, or signed it out from another browser. Bob signs in there at once (the
    mark binds only while Ada's session does), and the mark goes."""
    here = await site()
    ada = await here.client("ada")
    await make_old(here, ada)
    await step_up_page(ada)
    if ended_by == "signing out":
        await ada.post("signout", form={"csrfToken": await ada.csrf_token()})
    else:
        phone = await here.client("ada")
        assert (await post_json(phone, "sessions", {"intent": "revoke-others"})).status == 200
        assert await session_of(ada) is None  # the check clears the ended session's cookie
        assert STEP_UP_COOKIE in ada.cookies
    signed = await sign_in(ada, "bob@example.com")
    assert signed.header("location") == f"{APP}/home"
    assert (await session_of(ada))["user"]["email"] == "bob@example.com"
    assert STEP_UP_COOKIE not in ada.cookies
    assert [e.kind for e in here.activity()][-1] == "sign-in"


async def test_a_step_up_with_a_link_to_the_users_address() -> None:
    here = await site("jwt")
    ada = await here.client("ada")
    await make_old(here, ada)
    page = await step_up_page(ada)
    [email] = [f for f in forms_of(page) if f.action == f"{APP}/auth/signin/email"]
    sent = await submit(ada, email)
    assert sent.status == 302
    [message] = here.outbox.to("ada@example.com")
    opened = await ada.get(message.url.removeprefix(f"{APP}/auth/"), headers=PAGE)
    [confirm] = [f for f in forms_of(opened) if f.action == f"{APP}/auth/callback/email"]
    done = await submit(ada, confirm)
    assert done.header("location") == BACK
    when, amr = await facts(here, ada)
    assert (recent(when), amr) == (True, ["email"])


@pytest.mark.parametrize("strategy", ["database", "jwt"])
async def test_a_step_up_with_a_passkey(strategy: str) -> None:
    here = await site(strategy)
    ada = await here.client("ada")
    key = SoftAuthenticator(APP)
    await add_passkey(ada, key)
    await make_old(here, ada)
    await step_up_page(ada)
    assert (await passkey_sign_in(ada, key)).status == 302
    when, amr = await facts(here, ada)
    assert (recent(when), amr) == (True, ["hwk"])
    assert STEP_UP_COOKIE not in ada.cookies


@pytest.mark.parametrize("strategy", ["database", "jwt"])
async def test_a_step_up_at_a_linked_provider(strategy: str, op: OIDCProvider) -> None:
    """Ada's linked account at the provider is offered, and signing in with it refreshes
    the session she has (with database sessions, the same session)."""
    here = await site(strategy, oauth=[op_provider(op.issuer)])
    ada = await here.client("ada")
    login = f"stepping-{strategy}"
    assert (await oauth_sign_in(ada, login, account_url("connections"))).status == 302
    await make_old(here, ada)
    session = ada.cookies[SESSION_COOKIE]
    page = await step_up_page(ada)
    [at_op] = [f for f in forms_of(page) if f.action == f"{APP}/auth/signin/op"]
    assert at_op.fields["callbackUrl"] == BACK

    done = await oauth_sign_in(ada, login, BACK)
    assert done.header("location") == BACK
    when, amr = await facts(here, ada)
    assert (recent(when), amr) == (True, ["fed"])
    assert STEP_UP_COOKIE not in ada.cookies
    if strategy == "database":
        assert ada.cookies[SESSION_COOKIE] == session
        assert len((await read(ada, "sessions"))["sessions"]) == 1


async def test_a_step_up_leaves_no_second_session_behind() -> None:
    """A step-up with database sessions proves who the user is again in the session they
    have; it must not start a second one and leave the first behind, which the sessions
    page would list as another browser signed in."""
    here = await site()
    ada = await here.client("ada")
    await make_old(here, ada)
    page = await step_up_page(ada)
    await submit(
        ada,
        credentials_form(page),
        email="ada@example.com",
        password=PASSWORD,
    )
    assert len((await read(ada, "sessions"))["sessions"]) == 1
    store: MemoryAdapter = here.store
    assert list(store.sessions) == [ada.cookies[SESSION_COOKIE]]
    assert list(store.session_details) == [ada.cookies[SESSION_COOKIE]]


# Adding a way in --------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["database", "jwt"])
async def test_registering_a_passkey_with_an_old_sign_in_is_refused(strategy: str) -> None:
    here = await site(strategy)
    ada = await here.client("ada")
    await make_old(here, ada)
    refused = await add_passkey(ada)
    assert refused.header("location") == f"{APP}/auth/error?error=ReauthenticationRequired"
    page = await ada.get("error?error=ReauthenticationRequired", headers=PAGE)
    assert page.status == 403
    store: MemoryAdapter = here.store
    assert store.authenticators == {}
    assert (await read(ada, "passkeys"))["fresh"] is False
    assert "Add a passkey" not in (await ada.get("account/passkeys", headers=PAGE)).text


@pytest.mark.parametrize("strategy", ["database", "jwt"])
async def test_linking_an_account_with_an_old_sign_in_is_refused(
    strategy: str, op: OIDCProvider
) -> None:
    here = await site(strategy, oauth=[op_provider(op.issuer)])
    ada = await here.client("ada")
    await make_old(here, ada)
    old = await facts(here, ada)
    refused = await oauth_sign_in(ada, "ada-link", account_url("connections"))
    assert refused.header("location") == f"{APP}/auth/error?error=ReauthenticationRequired"
    page = await ada.get("error?error=ReauthenticationRequired", headers=PAGE)
    assert page.status == 403
    store: MemoryAdapter = here.store
    assert store.accounts == {}
    assert (await session_of(ada))["user"]["email"] == "ada@example.com"
    assert await facts(here, ada) == old

    step_up = await step_up_page(ada, account_url("connections"))
    await submit(
        ada,
        credentials_form(step_up),
        email="ada@example.com",
        password=PASSWORD,
    )
    linked = await oauth_sign_in(ada, "ada-link", account_url("connections"))
    assert linked.header("location") == account_url("connections")
    [account] = store.accounts.values()
    assert (account.user_id, account.provider_account_id) == (here.users["ada"].id, "ada-link")


# The facts of each kind of sign-in --------------------------------------------------------


@pytest.mark.parametrize("strategy", ["database", "jwt"])
@pytest.mark.parametrize("kind", ["credentials", "email", "passkey", "oidc"])
async def test_each_kind_of_sign_in_records_when_and_how(
    strategy: str, kind: str, op: OIDCProvider
) -> None:
    here = await site(strategy, oauth=[op_provider(op.issuer)])
    browser = here.browser()
    if kind == "credentials":
        await sign_in(browser, "ada@example.com")
    elif kind == "email":
        asked = {"csrfToken": await browser.csrf_token(), "email": "ada@example.com"}
        await browser.post("signin/email", form=asked)
        [message] = here.outbox.to("ada@example.com")
        opened = await browser.get(message.url.removeprefix(f"{APP}/auth/"), headers=PAGE)
        [confirm] = [f for f in forms_of(opened) if f.action == f"{APP}/auth/callback/email"]
        await submit(browser, confirm)
    elif kind == "passkey":
        key = SoftAuthenticator(APP)
        await add_passkey(await here.client("ada"), key)
        await passkey_sign_in(browser, key)
    else:
        done = await oauth_sign_in(browser, f"oidc-{strategy}")
        assert done.status == 302
    amr = {"credentials": "pwd", "email": "email", "passkey": "hwk", "oidc": "fed"}[kind]
    when, recorded = await facts(here, browser)
    assert (recent(when), recorded) == (True, [amr])
    seen = (await read(browser, ""))["signIn"]
    assert seen["amr"] == [amr]
    assert datetime.fromisoformat(seen["authTime"]) == (
        when.replace(microsecond=0) if strategy == "jwt" else when
    )


@pytest.mark.parametrize("strategy", ["database", "jwt"])
async def test_linking_an_account_or_adding_a_passkey_keeps_the_old_facts(
    strategy: str, op: OIDCProvider
) -> None:
    """They prove nothing of who the user is: the session keeps when and how they last
    signed in."""
    here = await site(strategy, oauth=[op_provider(op.issuer)])
    ada = await here.client("ada")
    await make_old(here, ada, timedelta(minutes=5))  # still within the step-up window
    before = await facts(here, ada)
    linked = await oauth_sign_in(ada, f"keeps-{strategy}", account_url("connections"))
    assert linked.header("location") == account_url("connections")
    assert await facts(here, ada) == before
    added = await add_passkey(ada)
    assert added.header("location") == account_url("passkeys")
    assert await facts(here, ada) == before
    overview = await read(ada, "")
    assert (overview["accounts"], overview["passkeys"], overview["signIn"]["amr"]) == (
        1,
        1,
        ["pwd"],
    )
    kinds = [e.kind for e in here.activity()]
    assert kinds[-2:] == ["account-linked", "passkey-added"]


async def test_the_overview_says_when_and_how_the_user_last_signed_in() -> None:
    here = await site()
    ada = await here.client("ada")
    page = await ada.get("account", headers=PAGE)
    assert page.status == 200
    assert "Your account" in page.text
    when, _ = await facts(here, ada)
    assert ENGLISH.datetime(when) in page.text
    assert alerts(page) == []
    seen = await ada.get("account", headers=JSON)
    assert seen.data()["signIn"]["amr"] == ["pwd"]
