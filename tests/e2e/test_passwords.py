"""Password accounts in Chromium, as a person goes through them, with JavaScript on (htmx
swaps a refused form in place) and off (plain posts), on the demo of Quart and of
Starlette ("Email and password", ``authui.Password``).

One user's whole life with a password: sign-up (a common password refused next to its
field, then a good one) → "check your email" → a sign-in before the address is confirmed,
refused with a new link → the link's confirmation page → signed in as a new user → signed
out → signed in with the password → signed out → "Forgot your password?" → the link → a
new password (a common one refused first) → the sign-in page with its notice → the old
password refused, the new one signing in; the link does not work twice. The links come
from the messages the demo sent through a real SMTP server (``account_support``).

Each test fails on a CSP violation, an uncaught error, an auth page without its CSP header
or a request off loopback (``new_demo_context``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.async_api import expect

from tests.e2e.account_support import AccountSite, account_site, event_labels, session_user
from tests.e2e.conftest import demo_page
from tests.e2e.password_support import (
    COMMON_PASSWORD,
    ENTRANCE_CARD,
    NEW_PASSWORD,
    PASSWORD,
    RESET_NOTICE,
    SENT_HEADING,
    SIGN_IN_FAILED,
    TOO_COMMON,
    confirm_address,
    field_error,
    open_sign_in,
    password_form,
    press,
    press_and_go,
    refused_status,
    sign_in_with_password,
    sign_out,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.async_api import Page

    from tests.e2e.conftest import NewContext

FRAMEWORKS = ("quart", "starlette")
JAVASCRIPT = pytest.mark.parametrize(
    "javascript", [pytest.param(True, id="js-on"), pytest.param(False, id="js-off")]
)
NOT_CONFIRMED = "Confirm your email address first: we sent you a new link. Follow it, then sign in."


@pytest.fixture(scope="module", params=FRAMEWORKS)
def site(request: pytest.FixtureRequest) -> Iterator[AccountSite]:
    """The demo on each framework, with its own database and SMTP sink."""
    with account_site(request.param) as running:
        yield running


@pytest.fixture(scope="module")
def demo_server(site: AccountSite) -> str:
    """The watched contexts (``new_demo_context``) open the site at ``localhost``."""
    return site.url


def link_path(site: AccountSite, link: str) -> str:
    """The link's address without its query, checked to be on the site."""
    parts = urlsplit(link)
    assert f"{parts.scheme}://{parts.netloc}" == site.url, link
    return parts.path


async def refused_sign_in(page: Page, javascript: bool, email: str, password: str) -> str:
    """Sign in with the password form, refused: the form's message (the browser stays on
    the sign-in page)."""
    form = password_form(page)
    await form.get_by_label("Email").fill(email)
    await form.get_by_label("Password").fill(password)
    button = form.get_by_role("button", name="Sign in", exact=True)
    if javascript:  # htmx swaps the form itself in, with its message
        await page.wait_for_function("() => window.htmx !== undefined")
        await button.click()
        message = password_form(page).get_by_role("alert")
    else:
        await press_and_go(page, button, "**/auth/signin?**error=CredentialsSignin**")
        message = page.get_by_role("alert").first
    await expect(message).to_be_visible()
    assert urlsplit(page.url).path == "/auth/signin", page.url
    return " ".join((await message.inner_text()).split())


@JAVASCRIPT
async def test_sign_up_sign_in_and_a_forgotten_password(
    new_demo_context: NewContext, site: AccountSite, javascript: bool
) -> None:
    page = await demo_page(new_demo_context, javascript=javascript)
    email = f"pat.{'js' if javascript else 'nojs'}@example.com"
    host = urlsplit(site.url).netloc

    # Sign-up, from the sign-in page's link: a common password is refused next to its
    # field, the typed values kept; then a good one.
    await open_sign_in(page, "/profile")
    await password_form(page).get_by_role("link", name="Create an account").click()
    await page.wait_for_url("**/auth/password/signup**")
    await expect(page.get_by_role("heading", level=1)).to_have_text("Create an account")
    await page.get_by_label("Name (optional)").fill("Pat Doe")
    await page.get_by_label("Email").fill(email)
    password = page.get_by_label("Password")
    await password.fill(COMMON_PASSWORD)
    create = page.get_by_role("button", name="Create account")
    refused_status(await press(page, javascript, create, ENTRANCE_CARD))
    await field_error(page, page.get_by_label("Password"), TOO_COMMON)
    await expect(page.get_by_label("Email")).to_have_value(email)
    await expect(page.get_by_label("Name (optional)")).to_have_value("Pat Doe")
    assert site.sent_to(email) == 0
    await page.get_by_label("Password").fill(PASSWORD)
    await press_and_go(page, create, "**/auth/password/sent?kind=signup")
    await expect(page.get_by_role("heading", level=1)).to_have_text(SENT_HEADING)

    sent = await site.email(email, 1)
    assert sent.subject == f"Confirm your email address for {host}"
    assert link_path(site, sent.link) == "/auth/password/verify"
    assert parse_qs(urlsplit(sent.link).query)["email"] == [email]

    # The password before the address is confirmed: not yet, and a new link is sent.
    await open_sign_in(page, "/profile")
    assert await refused_sign_in(page, javascript, email, PASSWORD) == NOT_CONFIRMED
    assert await session_user(page) is None
    again = await site.email(email, 2)
    assert link_path(site, again.link) == "/auth/password/verify"
    assert again.link != sent.link

    # The link opens a page whose button confirms the address and signs the user in.
    await confirm_address(page, again.link)
    await expect(page.get_by_role("heading", level=1)).to_have_text("Welcome")
    await expect(page.get_by_label("Display name")).to_have_value("Pat Doe")
    await page.get_by_role("button", name="Continue").click()
    await page.wait_for_url(site.url + "/profile")
    user = await session_user(page)
    assert user is not None
    assert (user["email"], user["name"]) == (email, "Pat Doe")
    await expect(page.locator("#profile-email")).to_have_text(email)
    await sign_out(page)
    assert await session_user(page) is None

    # The password signs in.
    await sign_in_with_password(page, email, PASSWORD, "/profile")
    assert (await session_user(page) or {})["email"] == email
    await sign_out(page)

    # Forgotten: the link to a new password.
    await open_sign_in(page, "/profile")
    await password_form(page).get_by_role("link", name="Forgot your password?").click()
    await page.wait_for_url("**/auth/password/forgot**")
    await page.get_by_label("Email").fill(email)
    await press_and_go(
        page,
        page.get_by_role("button", name="Email me a link"),
        "**/auth/password/sent?kind=reset",
    )
    await expect(page.get_by_role("heading", level=1)).to_have_text(SENT_HEADING)
    reset = await site.email(email, 3)
    assert reset.subject == f"Set a new password for {host}"
    assert link_path(site, reset.link) == "/auth/password/reset"

    # A common password is refused before the link is used up; then a good one.
    await page.goto(reset.link)
    await expect(page.get_by_role("heading", level=1)).to_have_text("Choose a new password")
    new = page.get_by_label("New password")
    save = page.get_by_role("button", name="Save the new password")
    await new.fill(COMMON_PASSWORD)
    refused_status(await press(page, javascript, save, ENTRANCE_CARD))
    await field_error(page, page.get_by_label("New password"), TOO_COMMON)
    await page.get_by_label("New password").fill(NEW_PASSWORD)
    await press_and_go(page, save, "**/auth/signin?notice=password-reset")
    notice = page.locator(".authui-alert-success")
    await expect(notice).to_have_text(RESET_NOTICE)

    # The old password no longer signs in; the new one does.
    assert await refused_sign_in(page, javascript, email, PASSWORD) == SIGN_IN_FAILED
    assert await session_user(page) is None
    await sign_in_with_password(page, email, NEW_PASSWORD, "/profile")
    assert (await session_user(page) or {})["email"] == email
    assert await event_labels(page) == [
        "Signed in · Email and password",
        "Sign-in refused · Email and password",
        "Password reset by an emailed link · Email and password",
        "Signed in · Email and password",
        "Signed in · Email and password",  # the confirmation link
        "Sign-in refused · Email and password",  # the address not confirmed yet
        "Signed up with a password · Email and password",
    ]

    # The link worked once (checked without JavaScript: with it, htmx swaps in no error
    # answer, so pressing the button seems to do nothing; a known gap).
    await sign_out(page)
    if not javascript:
        await page.goto(reset.link)
        await page.get_by_label("New password").fill("yet another long passphrase")
        answer = await press(page, javascript, save, ENTRANCE_CARD)
        assert answer is not None
        assert answer.status == 403
        await expect(page.get_by_role("heading", level=1)).to_have_text("Link no longer works")
        assert await session_user(page) is None
