"""The account center's key flows on every kind of store (memory, SQLite, PostgreSQL,
MariaDB, Redis: ``tests.adapters.conftest.adapter``), at request level: sessions listed
and signed out, signing out everywhere with JWT sessions, passkeys with their details,
the activity, and deleting the account with everything kept for it."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from authui import SessionOptions
from tests.account.support import (
    ACME,
    APP,
    PAGE,
    SESSION_COOKIE,
    add_passkey,
    form_for,
    forms_of,
    linked,
    passkey_sign_in,
    post,
    read,
    session_of,
    sign_in,
    site,
    submit,
)
from tests.adapters.conftest import AnyAdapter
from tests.soft_authenticator import SoftAuthenticator

FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
)


async def test_sessions_are_listed_and_signed_out(adapter: AnyAdapter) -> None:
    here = await site(store=adapter)
    laptop = await here.client("ada", user_agent=FIREFOX)
    phone = await here.client("ada", user_agent=IPHONE, client_address="192.0.2.44")
    tablet = await here.client("ada")
    bob = await here.client("bob")
    rows = (await read(laptop, "sessions"))["sessions"]
    assert [(r["current"], r["browser"], r["client"]) for r in rows[:1]] == [
        (True, "Firefox on Linux", "127.0.0.1")
    ]
    assert sorted((r["browser"], r["client"]) for r in rows[1:]) == [
        ("Mobile Safari on iOS", "192.0.2.44"),
        ("Unknown browser", "127.0.0.1"),
    ]
    [phone_row] = [r for r in rows if r["browser"] == "Mobile Safari on iOS"]

    ended = await post(laptop, "sessions", {"intent": "revoke", "session": phone_row["handle"]})
    assert ended.header("location") == f"{APP}/auth/account/sessions?notice=session-ended"
    assert await session_of(phone) is None
    assert await adapter.get_session_details(phone.cookies.get(SESSION_COOKIE, "x")) is None
    assert len((await read(laptop, "sessions"))["sessions"]) == 2

    tablet_token = tablet.cookies[SESSION_COOKIE]
    others = await post(laptop, "sessions", {"intent": "revoke-others"})
    assert others.header("location") == f"{APP}/auth/account/sessions?notice=others-ended"
    assert await session_of(tablet) is None
    assert await adapter.get_session_details(tablet_token) is None
    assert [r["current"] for r in (await read(laptop, "sessions"))["sessions"]] == [True]
    assert (await session_of(bob))["user"]["name"] == "Bob"
    counts = [e["detail"] for e in (await read(laptop, "activity"))["events"][:2]]
    assert counts == [{"count": "1"}, {"count": "1"}]


async def test_signing_out_everywhere_with_jwt_sessions(
    adapter: AnyAdapter, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As ``test_sessions``' JWT test: the other token ends when its check is due."""
    update_age = 3600
    here = await site(
        "jwt", store=adapter, session=SessionOptions(strategy="jwt", update_age=update_age)
    )
    ada, other = await here.client("ada"), await here.client("ada")
    page = await ada.get("account/sessions", headers=PAGE)
    done = await submit(ada, form_for(page, "everywhere"))
    assert done.header("location") == f"{APP}/auth/account/sessions?notice=everywhere-ended"
    assert await adapter.get_session_version(here.users["ada"].id) == 1
    assert (await session_of(other))["user"]["name"] == "Ada"
    later = SimpleNamespace(time=lambda: time.time() + update_age)
    monkeypatch.setattr("authui.sessions.jwt.time", later)
    assert await session_of(other) is None
    assert (await session_of(ada))["user"]["name"] == "Ada"


async def test_passkeys_with_their_details(adapter: AnyAdapter) -> None:
    here = await site(store=adapter)
    ada = await here.client("ada", user_agent=FIREFOX)
    first, second = SoftAuthenticator(APP), SoftAuthenticator(APP, synced=True)
    await add_passkey(ada, first)
    await add_passkey(ada, second)
    page = await ada.get("account/passkeys", headers=PAGE)
    [rename_first, _] = [f for f in forms_of(page) if f.fields.get("intent") == "rename"]
    await submit(ada, rename_first, name="Phone")
    await passkey_sign_in(here.browser(), first)

    listed = (await read(ada, "passkeys"))["passkeys"]
    assert [(p["name"], p["synced"]) for p in listed] == [
        ("Phone", False),
        ("Firefox on Linux", True),
    ]
    assert listed[0]["lastUsed"] is not None
    assert listed[1]["lastUsed"] is None
    deleted = await post(ada, "passkeys", {"intent": "delete", "passkey": listed[1]["id"]})
    assert deleted.header("location") == f"{APP}/auth/account/passkeys?notice=passkey-deleted"
    assert [p["name"] for p in (await read(ada, "passkeys"))["passkeys"]] == ["Phone"]
    user_id = here.users["ada"].id
    assert [d.name for d in await adapter.list_authenticator_details(user_id)] == ["Phone"]
    assert await adapter.get_authenticator(listed[1]["id"]) is None


async def test_the_activity_newest_first(adapter: AnyAdapter) -> None:
    here = await site(store=adapter)
    ada = await here.client("ada", user_agent=FIREFOX)
    guesser = here.browser(client_address="198.51.100.9")
    for _ in range(6):
        await sign_in(guesser, "ada@example.com", "wrong")
    await post(ada, "profile", {"intent": "profile", "name": "Ada King"})
    events = (await read(ada, "activity"))["events"]
    assert [e["kind"] for e in events] == [
        "profile-changed",
        "sign-in-throttled",
        *["sign-in-failed"] * 5,
        "sign-in",
    ]
    assert events[1]["client"] == "198.51.100.9"
    assert events[-1]["browser"] == "Firefox on Linux"


@pytest.mark.parametrize("strategy", ["database", "jwt"])
async def test_deleting_the_account(
    adapter: AnyAdapter, strategy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = await site(strategy, store=adapter, oauth=[ACME])
    ada = await here.client("ada")
    other = await here.client("ada")
    await linked(here, "ada")
    await linked(here, "bob")
    await add_passkey(ada)
    token = ada.cookies[SESSION_COOKIE]
    user_id = here.users["ada"].id
    assert await adapter.list_security_events(user_id)

    page = await ada.get("account/delete", headers=PAGE)
    done = await submit(ada, form_for(page, "delete"), confirm="yes")
    assert done.header("location") == f"{APP}/auth/account/deleted"
    assert SESSION_COOKIE not in ada.cookies

    assert await adapter.get_user(user_id) is None
    assert await adapter.list_user_accounts(user_id) == []
    assert await adapter.list_user_sessions(user_id) == []
    assert await adapter.list_authenticators_by_user_id(user_id) == []
    assert await adapter.list_authenticator_details(user_id) == []
    assert await adapter.list_security_events(user_id) == []
    if strategy == "database":
        assert await adapter.get_session_details(token) is None
        assert await session_of(other) is None
    else:  # the other browser's token ends at its next re-issue
        later = SimpleNamespace(time=lambda: time.time() + 24 * 3600)
        monkeypatch.setattr("authui.sessions.jwt.time", later)
        assert await session_of(other) is None
    bob = here.users["bob"].id
    assert [a.provider for a in await adapter.list_user_accounts(bob)] == ["acme"]
    assert [d["user"]["id"] for d in here.emitted("delete_user")] == [user_id]
