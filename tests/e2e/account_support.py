"""Helpers of the account center's browser tests: the demo sending its emails through a
real SMTP server, users who sign up and in with an emailed link, what the account pages
show, and the demo's database (a sign-in made old, a user looked up).

A site (:func:`account_site`) is one demo variant (``tests.e2e.conftest.DEMO_APPS``) on a
SQLite file of its own, sending through an SMTP sink of its own (``email_support``), and
opened at ``http://localhost:<port>``: passkeys need a host name, not an IP address.

A sign-in is made old the way an old sign-in looks in the store, not by waiting: the
session's details row (``SessionDetails``, through the adapter's own methods) is saved again
with an ``auth_time`` an hour back, past the step-up window of ten minutes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlencode, urlsplit

from authui.adapters.sqlalchemy import SQLAlchemyAdapter
from tests.e2e.conftest import demo_env, demo_site
from tests.e2e.email_support import SENDER, read_sign_in_email, smtp_sink

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, Page

    from authui.adapters.base import AdapterUser
    from tests.e2e.email_support import Mailbox, SignInEmail

SESSION_COOKIE = "authjs.session-token"
LONG_AGO = timedelta(hours=1)
"""How old an old sign-in is (the demo's step-up window is ten minutes)."""

PROFILE_SAVED = "Your profile is saved."
BAD_PICTURE = "Enter the address of a picture, starting with https://."
EMAIL_SENT = (
    "Check the inbox of your new address: a link there confirms the change. "
    "Your address stays as it is until then."
)
EMAIL_CHANGED = "Your email address is changed."
SESSION_ENDED = "That session is signed out."
PASSKEY_ADDED = "The passkey is added."
PASSKEY_RENAMED = "The passkey is renamed."
PASSKEY_DELETED = "The passkey is deleted."
NO_PASSKEYS = "You have no passkeys yet."
SIGNED_IN_AGAIN = "You signed in again; go on with what you were doing."
STEP_UP_HEADING = "Confirm it is you"
DELETED_HEADING = "Your account is deleted"


@dataclass(frozen=True)
class AccountSite:
    """A running demo variant that sends its emails to the sink."""

    url: str
    """``http://localhost:<port>``."""
    database_url: str
    mailbox: Mailbox

    def sent_to(self, address: str) -> int:
        """How many messages reached ``address`` so far."""
        return len(self.mailbox.to(address))

    async def email(self, address: str, number: int) -> SignInEmail:
        """The ``number``-th message to ``address`` (once it is there), read: it holds one
        link, the same in its plain-text and HTML bodies."""
        received = await self.mailbox.wait_for(address, number)
        return read_sign_in_email(received)


@contextlib.contextmanager
def account_site(framework: str) -> Iterator[AccountSite]:
    """The demo on ``framework`` with a database and an SMTP sink of its own."""
    with (
        tempfile.TemporaryDirectory(prefix=f"authui-account-{framework}-") as folder,
        smtp_sink() as sink,
    ):
        database = Path(folder) / "demo.db"
        env = demo_env(database) | {"AUTH_EMAIL_SERVER": sink.url, "AUTH_EMAIL_FROM": SENDER}
        with demo_site(framework, env) as url:
            yield AccountSite(
                url=url.replace("127.0.0.1", "localhost"),
                database_url=f"sqlite+aiosqlite:///{database}",
                mailbox=sink.mailbox,
            )


# --- signing up and in with an emailed link ---------------------------------------------------


async def ask_for_link(page: Page, address: str, then: str) -> None:
    """Ask for a sign-in link to ``address`` on the sign-in page, coming back to ``then``."""
    await page.goto("/auth/signin?" + urlencode({"callbackUrl": then}))
    form = page.locator("form#authui-form-email")
    await form.get_by_label("Email").fill(address)
    await form.get_by_role("button", name="Email me a sign-in link").click()
    await page.wait_for_url("**/auth/verify-request?**")


async def follow_link(page: Page, link: str) -> None:
    """Open a sign-in link and press the confirmation page's button."""
    address = parse_qs(urlsplit(link).query)["email"][0]
    await page.goto(link)
    async with page.expect_navigation():
        await page.get_by_role("button", name=f"Sign in as {address}").click()


async def sign_up(page: Page, site: AccountSite, address: str, name: str) -> None:
    """A new user signs up with a link to ``address``, names themselves on the new-user
    page, and lands on the demo's home page."""
    count = site.sent_to(address)
    await ask_for_link(page, address, "/")
    await follow_link(page, (await site.email(address, count + 1)).link)
    assert urlsplit(page.url).path == "/auth/new-user", page.url
    await page.get_by_label("Display name").fill(name)
    await page.get_by_role("button", name="Continue").click()
    await page.wait_for_url(site.url + "/")


async def sign_in(page: Page, site: AccountSite, address: str, then: str) -> None:
    """A known user signs in with a link to ``address`` and lands on ``then``."""
    count = site.sent_to(address)
    await ask_for_link(page, address, then)
    await follow_link(page, (await site.email(address, count + 1)).link)
    assert page.url == site.url + then, page.url


async def step_up_by_email(page: Page, site: AccountSite, address: str) -> None:
    """On the step-up page: ask for a link to the user's own address and follow it (the
    browser comes back where the step-up page was asked to send it)."""
    count = site.sent_to(address)
    await page.get_by_role("button", name=f"Email a sign-in link to {address}").click()
    await page.wait_for_url("**/auth/verify-request?**")
    await follow_link(page, (await site.email(address, count + 1)).link)


# --- the pages --------------------------------------------------------------------------------


async def notice(page: Page) -> str:
    """The text of the card's success notice, once it is there."""
    found = page.locator("#authui-account-content .authui-alert-success")
    await found.wait_for()
    return " ".join((await found.inner_text()).split())


async def event_labels(page: Page) -> list[str]:
    """The labels of the security activity, newest first (from the activity page)."""
    await page.goto("/auth/account/activity")
    return await page.locator("#authui-activity .authui-event-label").all_inner_texts()


async def session_user(page: Page) -> dict[str, object] | None:
    """``GET /auth/session`` in the page's context: its user, or ``None`` signed out."""
    found = await (await page.request.get("/auth/session")).json()
    return None if found is None else dict(found["user"])


# --- the demo's database ----------------------------------------------------------------------


async def make_sign_in_old(site: AccountSite, context: BrowserContext) -> None:
    """Move the sign-in of the context's session an hour back, in the store."""
    [token] = [c["value"] for c in await context.cookies(site.url) if c["name"] == SESSION_COOKIE]
    async with SQLAlchemyAdapter(site.database_url) as adapter:
        details = await adapter.get_session_details(token)
        assert details is not None, "the session has no details row"
        old = datetime.now(UTC) - LONG_AGO
        await adapter.save_session_details(dataclasses.replace(details, auth_time=old))


async def stored_user(site: AccountSite, address: str) -> AdapterUser | None:
    """The stored user with ``address``, if there is one."""
    async with SQLAlchemyAdapter(site.database_url) as adapter:
        return await adapter.get_user_by_email(address)
