"""The account center's changes that succeed, at request level: the profile (a JWT session
issued anew with the new name, a database session reading it), passkeys named, renamed,
used and deleted, an account unlinked, the activity newest first, and the account
deleted with everything kept for it."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from authui.adapters.memory import MemoryAdapter
from authui.http import Response
from tests.account.support import (
    ACME,
    HTMX,
    PAGE,
    SESSION_COOKIE,
    account_url,
    add_passkey,
    alerts,
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
    token_of,
)
from tests.adapters import conftest as adapter_fixtures
from tests.adapters.conftest import RateLimitClock
from tests.soft_authenticator import SoftAuthenticator

FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
WINDOWS = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/126.0.0.0 Safari/537.36"
)
PICTURE = "https://pictures.example/ada.png"

rate_limit_clock = adapter_fixtures.rate_limit_clock


def sets_session(answer: Response) -> bool:
    """Whether the answer sets the session cookie (a JWT issued anew)."""
    headers = answer.header_all("set-cookie")
    return any(h.startswith(f"{SESSION_COOKIE}=") and "Max-Age=0" not in h for h in headers)


@pytest.mark.parametrize("strategy", ["database", "jwt"])
async def test_a_new_name_and_picture_show_in_the_session(strategy: str) -> None:
    here = await site(strategy)
    ada = await here.client("ada")
    page = await ada.get("account/profile", headers=PAGE)
    profile = form_for(page, "profile")
    done = await submit(ada, profile, name="  Ada   King ", image=PICTURE)
    assert done.header("location") == account_url("profile", notice="profile-saved")
    assert sets_session(done) == (strategy == "jwt")  # the token is issued anew
    if strategy == "jwt":
        assert (token_of(ada)["name"], token_of(ada)["picture"]) == ("Ada King", PICTURE)
    assert (await session_of(ada))["user"] == {
        "name": "Ada King",
        "email": "ada@example.com",
        "image": PICTURE,
    }
    saved = await here.user("ada")
    assert saved is not None
    assert (saved.name, saved.image) == ("Ada King", PICTURE)
    assert [u["user"]["name"] for u in here.emitted("update_user")] == ["Ada King"]
    assert [e.kind for e in here.activity()][-1] == "profile-changed"
    shown = await ada.get("account/profile?notice=profile-saved", headers=PAGE)
    assert alerts(shown) == ["Your profile is saved."]
    assert 'value="Ada King"' in shown.text


async def test_the_same_values_again_change_nothing() -> None:
    here = await site("jwt")
    ada = await here.client("ada")
    done = await post(ada, "profile", {"intent": "profile", "name": "Ada", "image": ""})
    assert done.header("location") == account_url("profile", notice="profile-saved")
    assert not sets_session(done)
    assert here.emitted("update_user") == []


async def test_an_empty_name_and_picture_clear_them() -> None:
    here = await site()
    ada = await here.client("ada")
    await post(ada, "profile", {"intent": "profile", "name": "Ada", "image": PICTURE})
    await post(ada, "profile", {"intent": "profile", "name": "   ", "image": ""})
    cleared = await here.user("ada")
    assert cleared is not None
    assert (cleared.name, cleared.image) == (None, None)
    assert (await session_of(ada))["user"]["name"] is None


async def test_htmx_gets_the_changed_card_in_place() -> None:
    here = await site()
    ada = await here.client("ada")
    form = {"intent": "profile", "name": "Countess", "image": ""}
    swapped = await post(ada, "profile", form, headers=HTMX)
    assert swapped.status == 200
    assert swapped.header("location") is None
    assert swapped.header("vary") == "HX-Request"
    assert 'id="authui-account-content"' in swapped.text
    assert alerts(swapped) == ["Your profile is saved."]
    assert "Countess" in swapped.text  # the page shows what the change made


async def test_passkeys_are_named_renamed_used_and_deleted() -> None:
    here = await site()
    ada = await here.client("ada", user_agent=FIREFOX)
    first, second = SoftAuthenticator("http://localhost:3000", synced=True), None
    await add_passkey(ada, first)
    second = SoftAuthenticator("http://localhost:3000")
    await add_passkey(ada, second)
    listed = (await read(ada, "passkeys"))["passkeys"]
    assert [(p["name"], p["synced"], p["lastUsed"]) for p in listed] == [
        ("Firefox on Linux", True, None),  # named after the browser that made it
        ("Firefox on Linux", False, None),
    ]
    assert all(p["created"] for p in listed)

    page = await ada.get("account/passkeys", headers=PAGE)
    renames = [f for f in forms_of(page) if f.fields.get("intent") == "rename"]
    assert [f.fields["passkey"] for f in renames] == [p["id"] for p in listed]
    renamed = await submit(ada, renames[0], name="  Work   laptop ")
    assert renamed.header("location") == account_url("passkeys", notice="passkey-renamed")

    laptop = here.browser()
    assert (await passkey_sign_in(laptop, first)).status == 302
    listed = (await read(ada, "passkeys"))["passkeys"]
    assert listed[0]["name"] == "Work laptop"
    assert listed[0]["lastUsed"] is not None
    assert listed[1]["lastUsed"] is None

    page = await ada.get("account/passkeys", headers=PAGE)
    [_, delete_second] = [f for f in forms_of(page) if f.fields.get("intent") == "delete"]
    deleted = await submit(ada, delete_second)
    assert deleted.header("location") == account_url("passkeys", notice="passkey-deleted")
    assert [p["name"] for p in (await read(ada, "passkeys"))["passkeys"]] == ["Work laptop"]
    store: MemoryAdapter = here.store
    assert list(store.passkey_details) == [listed[0]["id"]]
    assert [a.provider_account_id for a in store.accounts.values()] == [listed[0]["id"]]
    refused = await passkey_sign_in(here.browser(), second)
    assert "error=" in str(refused.header("location"))
    kinds = [e.kind for e in here.activity() if e.kind.startswith("passkey")]
    assert kinds == ["passkey-added", "passkey-added", "passkey-renamed", "passkey-deleted"]
    details = [dict(e.detail) for e in here.activity() if e.kind.startswith("passkey")]
    assert details[2:] == [{"passkey": "Work laptop"}, {"passkey": "Firefox on Linux"}]


async def test_a_bad_passkey_name_is_refused() -> None:
    here = await site()
    ada = await here.client("ada")
    await add_passkey(ada)
    page = await ada.get("account/passkeys", headers=PAGE)
    rename = form_for(page, "rename")
    for name in ("   ", "n" * 101):
        refused = await submit(ada, rename, name=name)
        assert refused.status == 422
        assert "Enter a name of 1 to 100 characters." in refused.text
    assert [p["name"] for p in (await read(ada, "passkeys"))["passkeys"]] == ["Unknown browser"]


async def test_an_account_is_unlinked() -> None:
    """Ada can still sign in with a link to her address, so her Acme account may go."""
    here = await site(oauth=[ACME])
    ada = await here.client("ada")
    account = await linked(here, "ada")
    page = await ada.get("account/connections", headers=PAGE)
    unlink = form_for(page, "unlink")
    assert unlink.fields["providerAccountId"] == account.provider_account_id
    done = await submit(ada, unlink)
    assert done.header("location") == account_url("connections", notice="unlinked")
    assert await here.store.get_account(account.provider_account_id, "acme") is None
    seen = await read(ada, "connections")
    assert seen["accounts"] == []
    assert [p["id"] for p in seen["available"]] == ["acme"]
    [event] = here.emitted("unlink_account")
    assert event["account"] == {
        "provider": "acme",
        "providerAccountId": "ada-at-acme",
        "type": "oauth",
    }
    assert event["user"]["id"] == here.users["ada"].id
    [recorded] = [e for e in here.activity() if e.kind == "account-unlinked"]
    assert recorded.provider == "acme"


async def test_the_activity_lists_what_happened_newest_first(
    rate_limit_clock: RateLimitClock,  # no limit's window ends among the attempts
) -> None:
    here = await site()
    ada = await here.client("ada", user_agent=FIREFOX)
    guesser = here.browser(user_agent=WINDOWS, client_address="198.51.100.9")
    answers = [await sign_in(guesser, "Ada@Example.com", "wrong") for _ in range(7)]
    assert [a.status for a in answers] == [302] * 5 + [429] * 2
    await sign_in(here.browser(), "bob@example.com", "wrong")  # Bob's, not on Ada's page
    await sign_in(here.browser(), "nobody@example.com", "wrong")  # nobody's
    await post(ada, "profile", {"intent": "profile", "name": "Ada King"})

    events = (await read(ada, "activity"))["events"]
    assert [e["kind"] for e in events] == [
        "profile-changed",
        "sign-in-throttled",  # once, though two attempts were over the limit
        *["sign-in-failed"] * 5,
        "sign-in",
    ]
    times = [e["at"] for e in events]
    assert times == sorted(times, reverse=True)
    throttled, failed, signed = events[1], events[2], events[-1]
    assert (throttled["browser"], throttled["client"]) == ("Chrome on Windows", "198.51.100.9")
    assert (failed["provider"], failed["detail"]) == ("Credentials", {"error": "CredentialsSignin"})
    assert (signed["browser"], signed["client"]) == ("Firefox on Linux", "127.0.0.1")
    page = await ada.get("account/activity", headers=PAGE)
    for label in ("Profile changed", "Sign-ins paused after too many attempts", "Signed in"):
        assert label in page.text
    assert page.text.count("Sign-in refused · Credentials") == 5
    assert len((await read(await here.client("bob"), "activity"))["events"]) == 2


async def test_a_throttled_window_is_one_event_however_the_seconds_left_fall(
    rate_limit_clock: RateLimitClock,
) -> None:
    """The refusals of one throttled window are one event, though each names fewer seconds
    left (a flood straddling a second once wrote two); the next window's pause is another."""
    here = await site()
    ada = await here.client("ada")
    guesser = here.browser(client_address="198.51.100.9")
    rate_limit_clock.now = 1_000_100.0  # 100 s before a 5-minute window ends
    for moment in (0, 0, 0, 0, 0, 0, 1.5, 60.2, 99.9, 100.5, 100.5, 100.5, 100.5, 100.5, 101):
        rate_limit_clock.now = 1_000_100.0 + moment
        await sign_in(guesser, "ada@example.com", "wrong")

    kinds = [e["kind"] for e in (await read(ada, "activity"))["events"]]
    assert kinds == [
        "sign-in-throttled",  # the next window's: five more failures, then refused
        *["sign-in-failed"] * 5,
        "sign-in-throttled",  # the first window's four refusals, 1 to 100 s before its end
        *["sign-in-failed"] * 5,
        "sign-in",
    ]


@pytest.mark.parametrize("strategy", ["database", "jwt"])
async def test_deleting_the_account_removes_everything_kept_for_it(
    strategy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Everything kept for the user goes; their sessions in other browsers end: database
    sessions with their rows, JWT sessions at their next re-issue (``test_sessions``
    moves the clock of ``authui.sessions.jwt`` the same way, and says why)."""
    here = await site(strategy, oauth=[ACME])
    ada = await here.client("ada")
    bob = await here.client("bob")
    await linked(here, "ada")
    await linked(here, "bob")
    await add_passkey(ada)
    await add_passkey(bob)
    other = await here.client("ada")
    store: MemoryAdapter = here.store
    ada_id, bob_id = here.users["ada"].id, here.users["bob"].id
    assert store.security_events[ada_id]

    page = await ada.get("account/delete", headers=PAGE)
    done = await submit(ada, form_for(page, "delete"), confirm="yes")
    assert done.header("location") == account_url("deleted")
    assert f"{SESSION_COOKIE}=; Max-Age=0" in " ".join(done.header_all("set-cookie"))
    assert SESSION_COOKIE not in ada.cookies
    gone = await ada.get("account/deleted", headers=PAGE)
    assert (gone.status, "Your account is deleted" in gone.text) == (200, True)
    assert await session_of(ada) is None

    assert ada_id not in store.users
    for kept in (store.accounts, store.sessions, store.authenticators):
        assert [v for v in kept.values() if v.user_id == ada_id] == []
    for details in (store.session_details, store.passkey_details):
        assert [d for d in details.values() if d.user_id == ada_id] == []
    assert ada_id not in store.security_events
    assert (await other.get("account", headers=PAGE)).status == 302  # signed out there too
    if strategy == "jwt":
        later = SimpleNamespace(time=lambda: time.time() + 24 * 3600)
        monkeypatch.setattr("authui.sessions.jwt.time", later)
    assert await session_of(other) is None

    assert bob_id in store.users  # Bob keeps all he had
    assert [a.user_id for a in store.accounts.values()].count(bob_id) == 2
    assert (await session_of(bob))["user"]["name"] == "Bob"
    [deleted] = here.emitted("delete_user")
    assert deleted["user"]["id"] == ada_id
    assert deleted["user"]["email"] == "ada@example.com"
