"""Magic-link sign-in on the demo site in Chromium, with the link sent through a real SMTP
server (aiosmtpd, in this process) and followed by the browser.

Scenarios: a new user asks for a link on the sign-in page (JavaScript on, and off: the
form works without it), sees "Check your email", and the message that reached the SMTP
server is checked (envelope, ``To``, ``From``, ``Subject``; the same link in the plain-text
and the HTML body); the browser follows the link, meets the "Confirm sign-in" page naming the
address, presses its button, meets the new-user page and ends signed in with the address on
``/profile``. A mail scanner's plain GET of the link first spends nothing. The same link a
second time, an expired link (its stored ``expires`` moved into the past in the demo's
database) and an altered one end on the ``Verification`` error page, signed out. An address
the server refuses is shown in the form ("Enter a valid email address."; in place with htmx,
after a redirect without JavaScript) and sends nothing. Two demo processes on one PostgreSQL
database: a link asked for on one is used on the other.

Demo variants (see ``email_support``) start once per module: one process on a SQLite file,
and, when PostgreSQL is there (``AUTHUI_TEST_POSTGRES_URL``; missing: skipped, or failed
under ``CI=true``), two processes on a database of the module's own. Every scenario runs in
fresh browser contexts, guarded to loopback and watched like the demo's other browser
tests (CSP violations, uncaught errors, auth pages without their CSP header).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import httpx
import pytest
import pytest_asyncio

from tests.adapters.conftest import POSTGRES, require
from tests.e2e.conftest import CSP_REPORTER, DemoWatch, guarded_context
from tests.e2e.email_support import (
    SENDER,
    EmailDemo,
    SmtpSink,
    bare_address,
    email_demo,
    read_sign_in_email,
    set_token_expiry,
    smtp_sink,
    sqlite_database,
    stored_tokens,
    token_hash,
    with_origin,
)
from tests.peers.databases import fresh_postgres_database

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Page

    from tests.e2e.email_support import SignInEmail

JAVASCRIPT = pytest.mark.parametrize(
    "javascript", [pytest.param(True, id="js-on"), pytest.param(False, id="js-off")]
)
SIGN_IN_BUTTON = "Email me a sign-in link"
CHECK_YOUR_EMAIL = "Check your email"
CONFIRM = "Confirm sign-in"
INVALID_ADDRESS = "Enter a valid email address."
UNABLE = "Unable to sign in"
NO_LONGER_VALID = (
    "The sign in link is no longer valid. It may have been used already or it may have expired."
)

NewPage = Callable[..., Awaitable["Page"]]


# --- fixtures ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sink() -> Iterator[SmtpSink]:
    """The SMTP server every demo variant of this module sends through."""
    with smtp_sink() as running:
        yield running


@pytest.fixture(scope="module")
def demo(sink: SmtpSink) -> Iterator[EmailDemo]:
    """One demo process on a SQLite file of its own, sending through ``sink``."""
    with sqlite_database() as url, email_demo(sink, url) as running:
        yield running


@pytest.fixture(scope="module")
def shared_demo(sink: SmtpSink) -> Iterator[EmailDemo]:
    """Two demo processes sharing a PostgreSQL database of this module's own."""
    server = require(POSTGRES)
    with fresh_postgres_database(server) as url, email_demo(sink, url, processes=2) as running:
        yield running


@pytest_asyncio.fixture(loop_scope="session")
async def new_page(
    browser: Browser, offsite_requests: list[str], demo_watch: DemoWatch
) -> AsyncIterator[NewPage]:
    """``await new_page(url, javascript=True)``: a page in a fresh context on the demo at
    ``url``, guarded to loopback and watched; the test fails on a request off loopback, a
    CSP violation, an uncaught error, or an auth page without its CSP header."""
    contexts: list[BrowserContext] = []

    async def make(url: str, *, javascript: bool = True) -> Page:
        context = await guarded_context(
            browser, url, offsite_requests, java_script_enabled=javascript
        )
        contexts.append(context)
        await context.add_init_script(CSP_REPORTER)
        context.on("console", demo_watch.on_console)
        context.on("weberror", lambda error: demo_watch.page_errors.append(str(error.error)))
        context.on("response", demo_watch.on_response)
        return await context.new_page()

    yield make
    problems = await demo_watch.problems()
    for context in contexts:
        await context.close()
    if offsite_requests:
        problems.append("the browser tried to leave loopback: " + ", ".join(offsite_requests))
    if problems:
        pytest.fail("\n".join(problems))


# --- helpers ----------------------------------------------------------------------------------


async def ask_for_link(page: Page, url: str, address: str, then: str = "/profile") -> None:
    """Type ``address`` into the sign-in page's email form and press its button."""
    response = await page.goto(f"{url}/auth/signin?{urlencode({'callbackUrl': then})}")
    assert response is not None
    assert response.ok, f"{response.status} {response.url}"
    form = page.locator("form#authui-form-email")
    await form.get_by_label("Email").fill(address)
    await form.get_by_role("button", name=SIGN_IN_BUTTON).click()


async def assert_check_your_email(page: Page, url: str) -> None:
    await page.wait_for_url(f"{url}/auth/verify-request?provider=email&type=email")
    assert await page.get_by_role("heading", name=CHECK_YOUR_EMAIL).is_visible()
    assert "A sign in link has been sent to your email address." in await visible_text(page)


async def visible_text(page: Page) -> str:
    return " ".join((await page.inner_text("body")).split())


async def alert_text(page: Page) -> str:
    alert = page.get_by_role("alert")
    await alert.wait_for()
    return " ".join((await alert.inner_text()).split())


async def the_email(demo: EmailDemo, address: str, url: str) -> SignInEmail:
    """The one sign-in email to ``address``, its headers checked (the subject names the host
    the browser used)."""
    received = await demo.mailbox.wait_for(address)
    assert len(demo.mailbox.to(address)) == 1
    assert received.rcpt_tos == (address,)
    assert received.mail_from == bare_address(SENDER)
    sent = read_sign_in_email(received)
    host = urlsplit(url).netloc
    assert (sent.to, sent.sender, sent.subject) == (address, SENDER, f"Sign in to {host}")
    assert sent.text.splitlines()[0] == f"Sign in to {host}"
    link = urlsplit(sent.link)
    assert f"{link.scheme}://{link.netloc}{link.path}" == f"{url}/auth/callback/email"
    query = parse_qs(link.query)
    assert query["email"] == [address]
    assert query["callbackUrl"] == [f"{url}/profile"]
    return sent


async def open_link(page: Page, link: str) -> None:
    """Open ``link`` (as a click in the mail client would): the confirmation page, naming
    the link's address and the site, its one button not pressed yet."""
    await page.goto(link)
    assert page.url == link, page.url
    assert await page.get_by_role("heading", name=CONFIRM).is_visible()
    address = parse_qs(urlsplit(link).query)["email"][0]
    host = urlsplit(link).netloc
    assert f"You are signing in to {host} as {address}." in await visible_text(page)
    assert await page.get_by_role("button").count() == 1


async def confirm(page: Page, link: str) -> str:
    """Press the confirmation page's button; where the browser lands, past the redirect."""
    address = parse_qs(urlsplit(link).query)["email"][0]
    async with page.expect_navigation():
        await page.get_by_role("button", name=f"Sign in as {address}").click()
    return page.url


async def follow(page: Page, link: str) -> str:
    """Open ``link``, confirm, and return where the browser lands."""
    await open_link(page, link)
    return await confirm(page, link)


async def finish_new_user(page: Page, url: str, name: str) -> None:
    """On the new-user page: give a display name and continue to the profile."""
    new_user = f"{url}/auth/new-user?{urlencode({'callbackUrl': url + '/profile'})}"
    assert page.url == new_user
    assert await page.get_by_role("heading", name="Welcome").is_visible()
    await page.get_by_label("Display name").fill(name)
    await page.get_by_role("button", name="Continue").click()
    await page.wait_for_url(f"{url}/profile")


async def assert_signed_in_as(page: Page, url: str, address: str, name: str) -> None:
    await page.goto(f"{url}/profile")
    assert page.url == f"{url}/profile"
    assert await page.text_content("#profile-email") == address
    assert await page.text_content("#profile-name") == name
    assert await page.text_content("#signed-in-as") == f"Signed in as {name}"


async def assert_signed_out(page: Page, url: str) -> None:
    await page.goto(f"{url}/profile")
    assert urlsplit(page.url).path == "/auth/signin", page.url
    assert await page.locator("#signed-in-as").count() == 0


async def assert_verification_page(page: Page, url: str, landed: str) -> None:
    """The link was refused: the error page says so, and nobody is signed in."""
    assert landed == f"{url}/auth/error?error=Verification"
    assert await page.get_by_role("heading", name=UNABLE).is_visible()
    assert NO_LONGER_VALID in await visible_text(page)
    await assert_signed_out(page, url)


def altered(link: str, **changes: str) -> str:
    parts = urlsplit(link)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()} | changes
    return urlunsplit(parts._replace(query=urlencode(query)))


# --- a new user -------------------------------------------------------------------------------


@JAVASCRIPT
async def test_a_new_user_signs_in_with_the_emailed_link(
    demo: EmailDemo, new_page: NewPage, javascript: bool
) -> None:
    address = f"ada.{'js' if javascript else 'nojs'}@example.com"
    name = "Ada Lovelace" if javascript else "Grace Hopper"
    page = await new_page(demo.url, javascript=javascript)
    await ask_for_link(page, demo.url, address)
    await assert_check_your_email(page, demo.url)

    sent = await the_email(demo, address, demo.url)
    # The database holds the token hashed with the secret, never the token itself.
    stored = await stored_tokens(demo.database_url, address)
    assert [token for token, _ in stored] == [token_hash(sent.token, demo.secret)]
    assert stored[0][1] > datetime.now(UTC)

    landed = await follow(page, sent.link)
    assert urlsplit(landed).path == "/auth/new-user", landed
    await finish_new_user(page, demo.url, name)
    await assert_signed_in_as(page, demo.url, address, name)
    assert await stored_tokens(demo.database_url, address) == []  # used up

    # The same link again, in another browser: refused, and that browser is signed out.
    again = await new_page(demo.url, javascript=javascript)
    await assert_verification_page(again, demo.url, await follow(again, sent.link))
    # The first browser is still signed in.
    await assert_signed_in_as(page, demo.url, address, name)


async def test_a_known_user_signs_in_without_the_new_user_page(
    demo: EmailDemo, new_page: NewPage
) -> None:
    address = "known@example.com"
    page = await new_page(demo.url)
    await ask_for_link(page, demo.url, address)
    await assert_check_your_email(page, demo.url)
    await follow(page, (await the_email(demo, address, demo.url)).link)
    await finish_new_user(page, demo.url, "Known User")

    # Next time, from another browser: a second email, and straight to the callback URL.
    other = await new_page(demo.url)
    await ask_for_link(other, demo.url, address)
    await assert_check_your_email(other, demo.url)
    received = await demo.mailbox.wait_for(address, count=2)
    assert await follow(other, read_sign_in_email(received).link) == f"{demo.url}/profile"
    await assert_signed_in_as(other, demo.url, address, "Known User")


# --- a mail scanner opens the link first ------------------------------------------------------


async def test_a_link_opened_by_a_mail_scanner_still_signs_the_user_in(
    demo: EmailDemo, new_page: NewPage
) -> None:
    address = "scanned@example.com"
    page = await new_page(demo.url)
    await ask_for_link(page, demo.url, address)
    await assert_check_your_email(page, demo.url)
    sent = await the_email(demo, address, demo.url)

    # The scanner: a plain GET, no cookies, no JavaScript, twice. It is shown the page and
    # spends nothing.
    async with httpx.AsyncClient() as scanner:
        for _ in range(2):
            scanned = await scanner.get(sent.link)
            assert scanned.status_code == 200
            assert ">Sign in as scanned@example.com</button>" in scanned.text
    assert await stored_tokens(demo.database_url, address) != []

    # The user opens it in the browser, confirms, and is signed in. No URL the browser asks
    # for after the button carries the token.
    asked: list[str] = []
    await open_link(page, sent.link)
    page.on("request", lambda request: asked.append(request.url))
    landed = await confirm(page, sent.link)
    assert urlsplit(landed).path == "/auth/new-user", landed
    await finish_new_user(page, demo.url, "Scanned User")
    await assert_signed_in_as(page, demo.url, address, "Scanned User")
    assert asked
    assert not [url for url in asked if sent.token in url]
    assert await stored_tokens(demo.database_url, address) == []


# --- refused links ----------------------------------------------------------------------------


async def test_an_expired_link_is_refused(demo: EmailDemo, new_page: NewPage) -> None:
    address = "late@example.com"
    page = await new_page(demo.url)
    await ask_for_link(page, demo.url, address)
    await assert_check_your_email(page, demo.url)
    sent = await the_email(demo, address, demo.url)

    past = datetime.now(UTC) - timedelta(minutes=1)
    assert await set_token_expiry(demo.database_url, address, past) == 1
    await assert_verification_page(page, demo.url, await follow(page, sent.link))
    assert await stored_tokens(demo.database_url, address) == []  # deleted as it was read


async def test_an_altered_link_is_refused(demo: EmailDemo, new_page: NewPage) -> None:
    address = "bob@example.com"
    page = await new_page(demo.url)
    await ask_for_link(page, demo.url, address)
    await assert_check_your_email(page, demo.url)
    sent = await the_email(demo, address, demo.url)

    # The token sent to bob, with mallory's address; then bob's address with another token.
    stolen = altered(sent.link, email="mallory@example.com")
    await assert_verification_page(page, demo.url, await follow(page, stolen))
    guessed = altered(sent.link, token=sent.token[::-1])
    await assert_verification_page(page, demo.url, await follow(page, guessed))

    # The real link still works: the failed tries did not use it up.
    landed = await follow(page, sent.link)
    assert urlsplit(landed).path == "/auth/new-user", landed


# --- an address the server refuses ------------------------------------------------------------


@JAVASCRIPT
async def test_an_invalid_address_is_shown_in_the_form_and_sends_nothing(
    demo: EmailDemo, new_page: NewPage, javascript: bool
) -> None:
    typed = "ada.example.com"
    page = await new_page(demo.url, javascript=javascript)
    await page.goto(f"{demo.url}/auth/signin?{urlencode({'callbackUrl': '/profile'})}")
    sign_in_url = page.url
    form = page.locator("form#authui-form-email")
    field = form.get_by_label("Email")

    # Chromium checks the field's format itself (type=email) and does not submit.
    before = len(demo.mailbox.all())
    await field.fill(typed)
    await form.get_by_role("button", name=SIGN_IN_BUTTON).click()
    assert await page.locator("form#authui-form-email input:invalid").count() == 1
    assert page.url == sign_in_url

    # The server must refuse it too: submit it without the browser's check (as a browser
    # that does not know type=email would).
    await form.evaluate("(form) => { form.noValidate = true; }")
    if javascript:
        await page.wait_for_function("() => window.htmx !== undefined")
        await page.evaluate(
            "() => { window.beforeSwap = document.getElementById('authui-form-email'); }"
        )
    await form.get_by_role("button", name=SIGN_IN_BUTTON).click()
    if javascript:
        assert await alert_text(page) == INVALID_ADDRESS
        assert page.url == sign_in_url
        assert await page.evaluate(
            "() => window.beforeSwap !== undefined && !document.contains(window.beforeSwap)"
        ), "the form was not swapped in place"
        # The swapped form ties the message to the field and keeps what was typed.
        field = page.locator("form#authui-form-email").get_by_label("Email")
        assert await field.get_attribute("aria-invalid") == "true"
        assert await field.input_value() == typed
    else:
        # The sign-in page again, its message on top (as for a failed password).
        await page.wait_for_url(f"{demo.url}/auth/signin?error=EmailSignInError&code=invalid_email")
        assert await alert_text(page) == INVALID_ADDRESS
    assert len(demo.mailbox.all()) == before, "a message reached the SMTP server"
    await assert_signed_out(page, demo.url)


# --- two processes, one database --------------------------------------------------------------


async def test_a_link_asked_for_on_one_process_works_on_the_other(
    shared_demo: EmailDemo, new_page: NewPage
) -> None:
    a, b = shared_demo.urls
    address = "two.processes@example.com"
    page = await new_page(a)
    await ask_for_link(page, a, address)
    await assert_check_your_email(page, a)
    sent = await the_email(shared_demo, address, a)
    stored = await stored_tokens(shared_demo.database_url, address)
    assert [token for token, _ in stored] == [token_hash(sent.token, shared_demo.secret)]

    # Another browser opens the link on process B. The link's callback URL is on A, another
    # origin, which B does not redirect to: B's own root takes its place.
    on_b = await new_page(b)
    landed = await follow(on_b, with_origin(sent.link, b))
    assert landed == f"{b}/auth/new-user?{urlencode({'callbackUrl': b})}"
    await on_b.get_by_label("Display name").fill("Two Processes")
    await on_b.get_by_role("button", name="Continue").click()
    await on_b.wait_for_url(f"{b}/")
    await assert_signed_in_as(on_b, b, address, "Two Processes")
    assert await stored_tokens(shared_demo.database_url, address) == []

    # Used up for both: the original link, on A, is refused.
    on_a = await new_page(a)
    await assert_verification_page(on_a, a, await follow(on_a, sent.link))
