"""Where the user is signed in, and signing sessions out: database sessions listed with
two and more browsers (their handles, which is this one, browser and system from the
``User-Agent``, the client's address as ``trusted_proxies`` says to read it), one signed
out, all others signed out; JWT sessions signed out everywhere else."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest

from authui import SessionOptions
from authui.adapters.base import AdapterSession
from authui.adapters.memory import MemoryAdapter
from authui.i18n import ENGLISH
from tests.account.support import (
    JSON,
    PAGE,
    SESSION_COOKIE,
    account_url,
    form_for,
    forms_of,
    read,
    session_of,
    site,
    submit,
    token_of,
)

FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
)
WINDOWS = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/126.0.0.0 Safari/537.36"
)
PROXY = "10.0.0.1"
"""The address the server sees for every browser behind the proxy."""


@pytest.mark.parametrize("proxies", [1, 0], ids=["behind a trusted proxy", "no proxy trusted"])
async def test_the_page_lists_the_users_sessions(proxies: int) -> None:
    here = await site(trusted_proxies=proxies)
    laptop = await here.client(
        "ada", user_agent=FIREFOX, client_address=PROXY, forwarded_for="203.0.113.7"
    )
    # The phone's client wrote an entry of its own; the proxy appended the real one.
    phone = await here.client(
        "ada", user_agent=IPHONE, client_address=PROXY, forwarded_for="198.51.100.1, 192.0.2.44"
    )
    await here.client("bob", user_agent=WINDOWS)

    rows = (await read(laptop, "sessions"))["sessions"]
    laptop_address, phone_address = ("203.0.113.7", "192.0.2.44") if proxies else (PROXY, PROXY)
    assert [(r["current"], r["browser"], r["client"]) for r in rows] == [
        (True, "Firefox on Linux", laptop_address),
        (False, "Mobile Safari on iOS", phone_address),
    ]
    handles = [r["handle"] for r in rows]
    assert all(re.fullmatch("[0-9a-f]{32}", h) for h in handles)
    assert len(set(handles)) == 2
    for row in rows:
        assert row["created"] is not None
        assert row["lastSeen"] == row["created"]
        assert row["authTime"] is not None
    assert [r["handle"] for r in (await read(phone, "sessions"))["sessions"]] == handles[::-1]

    page = await laptop.get("account/sessions", headers=PAGE)
    for token in (laptop.cookies[SESSION_COOKIE], phone.cookies[SESSION_COOKIE]):
        assert token not in page.text  # a session is named by its handle only
    assert page.text.count("This browser") == 1
    assert "Mobile Safari on iOS" in page.text
    assert phone_address in page.text
    assert form_for(page, "revoke").fields["session"] == handles[1]


async def test_a_session_without_details_shows_its_expiry_and_can_be_signed_out() -> None:
    """A session row that Auth.js (or an older authui) made has no details: it is listed
    with when it ends, and signed out like any other."""
    here = await site()
    ada = await here.client("ada")
    ends = datetime.now(UTC) + timedelta(days=3)
    made_elsewhere = AdapterSession(
        session_token="made-by-authjs", user_id=here.users["ada"].id, expires=ends
    )
    await here.store.create_session(made_elsewhere)
    [_, row] = (await read(ada, "sessions"))["sessions"]
    assert (row["current"], row["browser"], row["client"], row["created"]) == (
        False,
        None,
        None,
        None,
    )
    assert datetime.fromisoformat(row["expires"]) == ends
    page = await ada.get("account/sessions", headers=PAGE)
    assert "A session made elsewhere" in page.text
    assert f"ends {ENGLISH.datetime(ends)}" in page.text
    done = await submit(ada, form_for(page, "revoke"))
    assert done.header("location") == account_url("sessions", notice="session-ended")
    assert await here.store.get_session_and_user("made-by-authjs") is None


async def test_signing_one_other_session_out() -> None:
    here = await site()
    laptop = await here.client("ada", user_agent=FIREFOX)
    phone = await here.client("ada", user_agent=IPHONE)
    bob = await here.client("bob")
    page = await laptop.get("account/sessions", headers=PAGE)
    revoke = form_for(page, "revoke")

    done = await submit(laptop, revoke)
    assert done.header("location") == account_url("sessions", notice="session-ended")
    assert (
        "That session is signed out."
        in (await laptop.get("account/sessions?notice=session-ended", headers=PAGE)).text
    )
    assert await session_of(phone) is None
    assert SESSION_COOKIE not in phone.cookies  # its next check cleared the cookie
    assert (await session_of(laptop))["user"]["name"] == "Ada"
    assert (await session_of(bob))["user"]["name"] == "Bob"
    rows = (await read(laptop, "sessions"))["sessions"]
    assert [r["browser"] for r in rows] == ["Firefox on Linux"]
    store: MemoryAdapter = here.store
    assert sorted(d.user_agent or "" for d in store.session_details.values()) == sorted(
        [FIREFOX, ""]  # the phone's details went with its session; Bob's stay
    )
    [ended] = [e for e in here.activity() if e.kind == "sessions-ended"]
    assert (ended.user_id, dict(ended.detail)) == (here.users["ada"].id, {"count": "1"})

    again = await submit(laptop, revoke)  # the form of a session that has ended
    assert again.status == 404


async def test_this_session_is_ended_by_signing_out_not_here() -> None:
    here = await site()
    ada = await here.client("ada")
    [own] = (await read(ada, "sessions"))["sessions"]
    answer = await ada.post(
        "account/sessions",
        json_body={
            "csrfToken": await ada.csrf_token(),
            "intent": "revoke",
            "session": own["handle"],
        },
        headers=JSON,
    )
    assert (answer.status, answer.data()["formErrors"]) == (
        422,
        ["To end this session, sign out."],
    )
    assert (await session_of(ada))["user"]["name"] == "Ada"


async def test_signing_all_other_sessions_out() -> None:
    here = await site()
    laptop = await here.client("ada", user_agent=FIREFOX)
    others = [await here.client("ada", user_agent=ua) for ua in (IPHONE, WINDOWS)]
    bob = await here.client("bob")
    page = await laptop.get("account/sessions", headers=PAGE)
    everyone = form_for(page, "revoke-others")

    done = await submit(laptop, everyone)
    assert done.header("location") == account_url("sessions", notice="others-ended")
    for other in others:
        assert await session_of(other) is None
    assert (await session_of(laptop))["user"]["name"] == "Ada"
    assert (await session_of(bob))["user"]["name"] == "Bob"
    rows = (await read(laptop, "sessions"))["sessions"]
    assert [(r["current"], r["browser"]) for r in rows] == [(True, "Firefox on Linux")]
    shown = await laptop.get("account/sessions", headers=PAGE)
    assert [f for f in forms_of(shown) if f.fields.get("intent", "").startswith("revoke")] == []
    [ended] = [e for e in here.activity() if e.kind == "sessions-ended"]
    assert dict(ended.detail) == {"count": "2"}


class MovedClock(SimpleNamespace):
    """``time`` as ``authui.sessions.jwt`` sees it: ``seconds`` later than it is."""

    def __init__(self, seconds: float) -> None:
        super().__init__(time=lambda: time.time() + seconds)


@pytest.mark.parametrize("update_age", [24 * 3600, 3600])
async def test_signing_out_everywhere_else_ends_other_jwt_sessions_at_their_reissue(
    update_age: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Sign out everywhere else" with JWT sessions: this browser's token is issued anew
    with the new session version and stays; another browser's token works until the
    session check re-issues it for its age (``update_age``), which reads the version and
    ends it; the account center reads the version at once.

    The other token's age comes from moving the clock of ``authui.sessions.jwt`` alone
    (where the check asks whether a token is due for re-issue) by ``update_age``: the
    token itself is the one the server issued, untouched, and its expiry (30 days, checked
    with the real clock by ``authui.jwt``) would still be ahead that much later, so no
    other answer depends on the moved time. A token minted with an old ``iat`` would have
    been due from its first check, which is the case the test must tell apart from.
    """
    here = await site("jwt", session=SessionOptions(strategy="jwt", update_age=update_age))
    ada = await here.client("ada")
    other = await here.client("ada")
    bob = await here.client("bob")
    assert token_of(other).get("sv", 0) == 0
    page = await ada.get("account/sessions", headers=PAGE)
    everywhere = form_for(page, "everywhere")

    done = await submit(ada, everywhere)
    assert done.header("location") == account_url("sessions", notice="everywhere-ended")
    assert token_of(ada)["sv"] == 1
    delay = "a day" if update_age == 24 * 3600 else "an hour"
    told = await ada.get("account/sessions?notice=everywhere-ended", headers=PAGE)
    assert f"Every other browser is signed out within {delay}." in told.text

    assert (await session_of(other))["user"]["name"] == "Ada"  # not due yet: still works
    assert (await other.get("account", headers=JSON)).status == 401  # the pages know at once
    monkeypatch.setattr("authui.sessions.jwt.time", MovedClock(update_age - 1))
    assert (await session_of(other))["user"]["name"] == "Ada"
    monkeypatch.setattr("authui.sessions.jwt.time", MovedClock(update_age))
    assert await session_of(other) is None
    assert SESSION_COOKIE not in other.cookies
    assert (await session_of(ada))["user"]["name"] == "Ada"  # re-issued too, and kept
    assert token_of(ada)["sv"] == 1
    assert (await session_of(bob))["user"]["name"] == "Bob"
    [ended] = [e for e in here.activity() if e.kind == "sessions-ended"]
    assert dict(ended.detail) == {"everywhere": "yes"}

    again = await here.client("ada")  # a sign-in after it lives on
    assert token_of(again)["sv"] == 1
    assert (await session_of(again))["user"]["name"] == "Ada"
