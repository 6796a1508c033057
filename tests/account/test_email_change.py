"""Changing the email address: the link goes to the new address through a real SMTP server
(aiosmtpd), is read from the message and followed as a browser does (open it, press the
confirmation page's button); the old address is told. Then what the link refuses: used
twice, expired, an address taken meanwhile, a token or user changed in the link."""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest

from authui.adapters.base import AdapterUser
from authui.adapters.memory import MemoryAdapter
from authui.http import Response
from authui.testing import AuthClient
from authui.urls import with_query
from tests.account.support import (
    APP,
    PAGE,
    Site,
    account_url,
    forms_of,
    post,
    read,
    session_of,
    site,
    submit,
    token_of,
)
from tests.e2e.email_support import Received, SmtpSink, bare_address, smtp_sink

FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
NEW = "ada.lovelace@example.org"


@pytest.fixture
def sink() -> Iterator[SmtpSink]:
    with smtp_sink() as running:
        yield running


def bodies(received: Received) -> tuple[str, str]:
    """The plain-text and HTML bodies of a message."""
    message = received.message
    plain, rich = message.get_body(("plain",)), message.get_body(("html",))
    assert isinstance(plain, EmailMessage)
    assert isinstance(rich, EmailMessage)
    return plain.get_content(), rich.get_content()


def link_in(received: Received) -> str:
    """The one link of a message: the same in its plain-text and its HTML body."""
    text, rich = bodies(received)
    [link] = [line for line in text.splitlines() if line.startswith("http")]
    assert f'href="{html.escape(link)}"' in rich
    return link


async def open_link(browser: AuthClient, link: str) -> Response:
    return await browser.get(link.removeprefix(f"{APP}/auth/"), headers=PAGE)


async def follow(browser: AuthClient, link: str) -> Response:
    """Open the link, and press the button of the page it shows."""
    page = await open_link(browser, link)
    assert page.status == 200, page.text
    [form] = forms_of(page)
    assert form.action == account_url("email")
    return await submit(browser, form)


@pytest.mark.parametrize("strategy", ["database", "jwt"])
async def test_the_address_changes_when_the_link_is_followed(strategy: str, sink: SmtpSink) -> None:
    here = await site(strategy, email_server=sink.url)
    ada = await here.client("ada", user_agent=FIREFOX)
    asked = await post(ada, "profile", {"intent": "email", "email": f"  {NEW.upper()} "})
    assert asked.header("location") == account_url("profile", notice="email-sent")
    page = await ada.get("account/profile?notice=email-sent", headers=PAGE)
    assert "Check the inbox of your new address" in page.text

    received = await sink.mailbox.wait_for(NEW)
    assert bare_address(str(received.message["To"])) == NEW
    assert str(received.message["Subject"]) == "Confirm your new address for localhost:3000"
    link = link_in(received)
    assert link.startswith(account_url("email") + "?")
    text, _ = bodies(received)
    assert "until then your account keeps its old address" in text
    assert (await here.user("ada")) == here.users["ada"]  # nothing changed yet
    stored = [t for t in here.store.tokens.values() if t.identifier.startswith("email-change:")]
    assert [t.identifier for t in stored] == [f"email-change:{here.users['ada'].id}:{NEW}"]
    token = dict(parse_qsl(urlsplit(link).query))["token"]
    assert token not in str(stored)  # kept hashed

    elsewhere = here.browser()  # the mail app's browser, signed out
    shown = await open_link(elsewhere, link)
    assert f"Use {NEW} as the address of your account?" in shown.text
    assert (await here.user("ada")) == here.users["ada"]  # opening it changes nothing
    done = await follow(elsewhere, link)
    assert done.header("location") == with_query(
        f"{APP}/auth/signin", {"callbackUrl": account_url("profile")}
    )
    changed = await here.user("ada")
    assert changed is not None
    assert changed.email == NEW
    assert changed.email_verified is not None
    assert await session_of(elsewhere) is None  # following the link signs nobody in

    told = await sink.mailbox.wait_for("ada@example.com")
    assert str(told.message["Subject"]) == "Your email address on localhost:3000 was changed"
    told_text, _ = bodies(told)
    assert f"The address of your account is now {NEW}." in told_text
    assert link_in(told) == account_url("activity")
    assert [u["user"]["email"] for u in here.emitted("update_user")] == [NEW]
    assert [e.kind for e in here.activity()][-2:] == ["email-change-requested", "email-changed"]
    assert (await read(ada, ""))["user"]["email"] == NEW
    if strategy == "database":
        assert (await session_of(ada))["user"]["email"] == NEW


@pytest.mark.parametrize("strategy", ["database", "jwt"])
async def test_followed_in_the_signed_in_browser_the_session_shows_the_new_address(
    strategy: str,
) -> None:
    here = await site(strategy)
    ada = await here.client("ada")
    await post(ada, "profile", {"intent": "email", "email": NEW})
    [link] = [m.url for m in here.outbox.to(NEW)]
    done = await follow(ada, link)
    assert done.header("location") == account_url("profile", notice="email-changed")
    assert (await session_of(ada))["user"]["email"] == NEW
    if strategy == "jwt":
        assert token_of(ada)["email"] == NEW  # the token was issued anew
    page = await ada.get("account/profile?notice=email-changed", headers=PAGE)
    assert "Your email address is changed." in page.text


# What the link refuses --------------------------------------------------------------------


async def asked_link(here: Site, address: str = NEW) -> str:
    ada = await here.client("ada")
    answer = await post(ada, "profile", {"intent": "email", "email": address})
    assert answer.header("location") == account_url("profile", notice="email-sent")
    [message] = here.outbox.to(address)
    return message.url


def refused_as_verification(answer: Response) -> None:
    """The answer is the error page of a dead address-change link: it says so, and where to
    ask again."""
    assert answer.status == 403
    assert "Address not changed" in answer.text
    assert "This address-change link no longer works" in answer.text
    assert "Ask for the change again on your profile page." in answer.text


def with_link_value(link: str, **changes: str) -> str:
    parts = urlsplit(link)
    query = dict(parse_qsl(parts.query)) | changes
    return account_url("email", **query)


async def test_a_link_works_once() -> None:
    here = await site()
    link = await asked_link(here)
    browser = here.browser()
    page = await open_link(browser, link)
    [form] = forms_of(page)
    assert (await submit(browser, form)).status == 302
    changed = await here.user("ada")
    assert changed is not None
    assert changed.email == NEW
    emitted = len(here.events)

    again = await submit(browser, form)
    refused_as_verification(again)
    assert await here.user("ada") == changed
    assert here.events[emitted:] == []  # nothing announced, nothing recorded
    assert len(here.outbox.to("ada@example.com")) == 1  # the old address is told once


async def test_an_expired_link_is_refused_and_used_up() -> None:
    here = await site()
    link = await asked_link(here)
    store: MemoryAdapter = here.store
    [(key, token)] = [(k, t) for k, t in store.tokens.items() if k[0].startswith("email-change")]
    past = datetime.now(UTC) - timedelta(seconds=1)
    store.tokens[key] = dataclasses.replace(token, expires=past)
    browser = here.browser()
    refused_as_verification(await follow(browser, link))
    assert await here.user("ada") == here.users["ada"]
    assert key not in store.tokens


async def test_a_link_whose_address_was_taken_meanwhile_changes_nothing() -> None:
    here = await site()
    link = await asked_link(here)
    await here.store.create_user(AdapterUser(id="carol", email=NEW, name="Carol"))
    answer = await follow(here.browser(), link)
    assert answer.status == 409
    assert "Address not changed" in answer.text
    assert "This address now belongs to another account" in answer.text
    assert await here.user("ada") == here.users["ada"]
    assert here.outbox.to("ada@example.com") == []


@pytest.mark.parametrize(
    "change",
    [
        {"token": "0" * 64},
        {"email": "mallory@example.com"},
        {"user": "someone-else"},
    ],
    ids=["token", "address", "user"],
)
async def test_a_changed_link_is_refused_and_the_real_one_still_works(
    change: dict[str, str],
) -> None:
    here = await site()
    link = await asked_link(here)
    browser = here.browser()
    refused_as_verification(await follow(browser, with_link_value(link, **change)))
    assert await here.user("ada") == here.users["ada"]
    assert (await follow(here.browser(), link)).status == 302
    changed = await here.user("ada")
    assert changed is not None
    assert changed.email == NEW


async def test_the_confirmation_without_its_csrf_token_changes_nothing() -> None:
    """Another site's form posting a link it learned: refused as every CSRF-checked post
    is, and the link is not used up."""
    here = await site()
    link = await asked_link(here)
    browser = here.browser()
    [form] = forms_of(await open_link(browser, link))
    forged = {k: v for k, v in form.fields.items() if k != "csrfToken"}
    refused = await browser.post("account/email", form=forged, headers=PAGE)
    assert (refused.status, refused.header("location")) == (
        302,
        f"{APP}/auth/signin?error=MissingCSRF",
    )
    assert await here.user("ada") == here.users["ada"]
    assert (await submit(browser, form)).status == 302
    changed = await here.user("ada")
    assert changed is not None
    assert changed.email == NEW


@pytest.mark.parametrize("missing", ["token", "email", "user"])
async def test_an_incomplete_link_is_refused_on_sight(missing: str) -> None:
    here = await site()
    link = await asked_link(here)
    query: dict[str, Any] = dict(parse_qsl(urlsplit(link).query))
    del query[missing]
    browser = here.browser()
    refused_as_verification(await open_link(browser, account_url("email", **query)))
