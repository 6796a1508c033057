"""The account center in Chromium, as a user goes through it, with JavaScript on (htmx swaps
the page's card: the document stays) and off (every form is a plain POST: a redirect with
the notice, or the page again with the errors), on the demo of Quart and of FastAPI.

Users sign up and in with links the demo sends through a real SMTP server
(``account_support``). Covered: the header's "Account" link; the profile's name (on the
page, in the top bar, in ``/auth/session``) and picture, a refused picture address shown
next to its field; an email change confirmed through the link to the new address, the old
one told; two browsers' sessions listed and one signed out from the other; a passkey added
with Chromium's virtual authenticator, listed with a name, renamed, and deleted after a
step-up (a passkey, or a link to the user's address without JavaScript); the account
deleted after a step-up; the security activity of all of it.

Each test fails on a CSP violation, an uncaught error, an auth page without its CSP header
or a request off loopback (``new_demo_context``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from playwright.async_api import expect

from authui.user_agents import describe
from tests.e2e.account_support import (
    BAD_PICTURE,
    DELETED_HEADING,
    EMAIL_CHANGED,
    EMAIL_SENT,
    NO_PASSKEYS,
    PASSKEY_ADDED,
    PASSKEY_DELETED,
    PASSKEY_RENAMED,
    PROFILE_SAVED,
    SESSION_ENDED,
    SIGNED_IN_AGAIN,
    STEP_UP_HEADING,
    AccountSite,
    account_site,
    event_labels,
    make_sign_in_old,
    notice,
    session_user,
    sign_in,
    sign_up,
    step_up_by_email,
    stored_user,
)
from tests.e2e.conftest import demo_page
from tests.e2e.passkey_support import NO_AUTOFILL, PasskeyBrowser

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.async_api import Locator, Page, Response

    from tests.e2e.conftest import NewContext

FRAMEWORKS = ("quart", "fastapi")
"""The demo variants the tests run on (the FastAPI one serves authui's Starlette app)."""
JAVASCRIPT = pytest.mark.parametrize(
    "javascript", [pytest.param(True, id="js-on"), pytest.param(False, id="js-off")]
)


@pytest.fixture(scope="module", params=FRAMEWORKS)
def site(request: pytest.FixtureRequest) -> Iterator[AccountSite]:
    """The demo on each framework, with its own database and SMTP sink."""
    with account_site(request.param) as running:
        yield running


@pytest.fixture(scope="module")
def demo_server(site: AccountSite) -> str:
    """The watched contexts (``new_demo_context``) open the site at ``localhost``."""
    return site.url


def address(kind: str, javascript: bool) -> str:
    """A new user's address: one per test and JavaScript setting (each site has its own
    database and SMTP sink)."""
    return f"{kind}.{'js' if javascript else 'nojs'}@example.com"


async def open_page(page: Page, title: str) -> None:
    """Open an account page from the account center's menu."""
    menu = page.get_by_role("navigation", name="Account")
    await menu.get_by_role("link", name=title, exact=True).click()
    await expect(menu.get_by_role("link", name=title, exact=True)).to_have_attribute(
        "aria-current", "page"
    )


async def send(page: Page, javascript: bool, button: Locator) -> Response | None:
    """Press ``button`` of an account page's form. With JavaScript, wait until htmx has
    swapped the page's card, and check that the document stayed (the old card, kept on
    ``window`` before, would be gone after a page load); without, return the answer the
    browser shows (after a redirect, the page it was sent to)."""
    if not javascript:
        async with page.expect_navigation() as navigation:
            await button.click()
        return await navigation.value
    await page.wait_for_function("() => window.htmx !== undefined")
    await page.evaluate(
        "() => { window.oldCard = document.getElementById('authui-account-content'); }"
    )
    await button.click()
    await page.wait_for_function("() => !window.oldCard || !document.contains(window.oldCard)")
    assert await page.evaluate("() => window.oldCard !== undefined"), "the page was loaded again"
    return None


def after(site: AccountSite, path: str, javascript: bool, key: str) -> str:
    """Where a browser is after a form of the page at ``path`` succeeded: still there with
    JavaScript; without, sent there again with the notice's ``key``."""
    return site.url + path + ("" if javascript else f"?notice={key}")


# --- the account center from the demo's header; the profile; the activity ----------------------


@JAVASCRIPT
async def test_profile_name_and_picture(
    new_demo_context: NewContext, site: AccountSite, javascript: bool
) -> None:
    page = await demo_page(new_demo_context, javascript=javascript)
    email = address("profile", javascript)
    await sign_up(page, site, email, "Ada Lovelace")

    await page.get_by_role("banner").get_by_role("link", name="Account", exact=True).click()
    await page.wait_for_url(site.url + "/auth/account")
    await expect(page.get_by_role("heading", level=1)).to_have_text("Your account")
    await expect(page.locator(".authui-account-name")).to_have_text("Ada Lovelace")
    await expect(page.locator(".authui-account-email")).to_have_text(email)
    await open_page(page, "Profile")
    await page.wait_for_url(site.url + "/auth/account/profile")
    save = page.get_by_role("button", name="Save", exact=True)

    # The name: saved, and shown in the form, in the top bar and in the session. With
    # JavaScript, the field carries a style attribute, as autofill and extensions leave
    # them: htmx's swap must not carry it over (an inline style: a CSP violation).
    if javascript:
        await page.get_by_label("Display name").evaluate(
            "(field) => { field.style.outline = '1px solid' }"
        )
    await page.get_by_label("Display name").fill("  Ada   King ")
    await send(page, javascript, save)
    assert page.url == after(site, "/auth/account/profile", javascript, "profile-saved")
    assert await notice(page) == PROFILE_SAVED
    await expect(page.get_by_label("Display name")).to_have_value("Ada King")
    await expect(page.locator("#authui-account-who")).to_have_text("Ada King")
    assert (await session_user(page) or {})["name"] == "Ada King"

    # A picture address that is not https: refused, the error next to the field.
    picture = page.get_by_label("Picture (an https:// address)")
    await picture.fill("http://pictures.example.com/ada.png")
    answer = await send(page, javascript, save)
    assert answer is None or answer.status == 422
    assert page.url == site.url + "/auth/account/profile"
    await expect(picture).to_have_attribute("aria-invalid", "true")
    await expect(picture).to_have_value("http://pictures.example.com/ada.png")
    error = page.locator("#authui-profile-image + .authui-field-error")
    await expect(error).to_have_text(BAD_PICTURE)
    assert await error.get_attribute("id") == await picture.get_attribute("aria-describedby")
    assert (await session_user(page) or {})["image"] is None

    # A picture of the site's own (http is allowed on localhost): shown on the overview.
    await open_page(page, "Connected accounts")
    logo = await page.locator(".authui-provider-logo").first.get_attribute("src")
    image = f"{site.url}{logo}"
    await open_page(page, "Profile")
    await page.get_by_label("Picture (an https:// address)").fill(image)
    await send(page, javascript, page.get_by_role("button", name="Save", exact=True))
    assert await notice(page) == PROFILE_SAVED
    assert (await session_user(page) or {})["image"] == image
    await open_page(page, "Your account")
    await expect(page.locator("img.authui-account-picture")).to_have_attribute("src", image)

    # The activity: the two changes, newest first, after the sign-in.
    assert await event_labels(page) == ["Profile changed", "Profile changed", "Signed in · Email"]


# --- the email address ------------------------------------------------------------------------


@JAVASCRIPT
async def test_email_change_through_the_link(
    new_demo_context: NewContext, site: AccountSite, javascript: bool
) -> None:
    page = await demo_page(new_demo_context, javascript=javascript)
    old, new = address("old", javascript), address("new", javascript)
    await sign_up(page, site, old, "Grace Hopper")
    await page.goto("/auth/account/profile")
    current = page.locator("#authui-profile-current-email")

    await page.get_by_label("New email address").fill(new)
    await send(page, javascript, page.get_by_role("button", name="Change the address"))
    assert page.url == after(site, "/auth/account/profile", javascript, "email-sent")
    assert await notice(page) == EMAIL_SENT
    await expect(current).to_have_text(old)  # until the link is followed
    assert (await session_user(page) or {})["email"] == old

    host = urlsplit(site.url).netloc
    sent = await site.email(new, 1)
    assert sent.subject == f"Confirm your new address for {host}"
    link = urlsplit(sent.link)
    assert f"{link.scheme}://{link.netloc}{link.path}" == site.url + "/auth/account/email"
    assert parse_qs(link.query)["email"] == [new]

    await page.goto(sent.link)
    await expect(page.get_by_role("heading", level=1)).to_have_text("Confirm your new address")
    await expect(page.get_by_text(f"Use {new} as the address of your account?")).to_be_visible()
    await page.get_by_role("button", name="Confirm the address").click()
    await page.wait_for_url(site.url + "/auth/account/profile?notice=email-changed")
    assert await notice(page) == EMAIL_CHANGED
    await expect(current).to_have_text(new)
    assert (await session_user(page) or {})["email"] == new
    assert await stored_user(site, old) is None
    changed = await stored_user(site, new)
    assert changed is not None
    assert changed.name == "Grace Hopper"

    # The old address is told (after its sign-in link), naming the new one.
    told = await site.email(old, 2)
    assert told.subject == f"Your email address on {host} was changed"
    assert new in told.text

    assert (await event_labels(page))[:2] == ["Email address changed", "Email change asked for"]


# --- sessions ---------------------------------------------------------------------------------


@JAVASCRIPT
async def test_signing_another_browser_out(
    new_demo_context: NewContext, site: AccountSite, javascript: bool
) -> None:
    email = address("sessions", javascript)
    laptop = await demo_page(new_demo_context, javascript=javascript)
    await sign_up(laptop, site, email, "Katherine Johnson")
    phone = await demo_page(new_demo_context, javascript=javascript)
    await sign_in(phone, site, email, "/profile")

    await laptop.goto("/auth/account")
    await open_page(laptop, "Sessions")
    rows = laptop.locator("#authui-sessions > li")
    await expect(rows).to_have_count(2)
    await expect(rows.nth(0).locator(".authui-badge")).to_have_text("This browser")
    await expect(rows.nth(1).locator(".authui-badge")).to_have_count(0)

    other = rows.nth(1).get_by_role("button", name="Sign out this session")
    await send(laptop, javascript, other)
    assert laptop.url == after(site, "/auth/account/sessions", javascript, "session-ended")
    assert await notice(laptop) == SESSION_ENDED
    await expect(rows).to_have_count(1)
    await expect(rows.locator(".authui-badge")).to_have_text("This browser")

    # The other browser is signed out at its next request; this one is not.
    await phone.goto("/profile")
    assert urlsplit(phone.url).path == "/auth/signin", phone.url
    assert await session_user(phone) is None
    assert (await session_user(laptop) or {})["email"] == email
    assert (await event_labels(laptop))[0] == "Sessions signed out"


# --- passkeys, and the step-up before deleting one ----------------------------------------------


async def passkey_browser(new_demo_context: NewContext, site: AccountSite) -> PasskeyBrowser:
    """A page with a virtual authenticator (and no passkey autofill on the sign-in page)."""
    context = await new_demo_context()
    await context.add_init_script(NO_AUTOFILL)
    page = await context.new_page()
    cdp = await context.new_cdp_session(page)
    await cdp.send("WebAuthn.enable", {"enableUI": False})
    opened = PasskeyBrowser(page=page, base=site.url, cdp=cdp)
    await opened.add_authenticator()
    return opened


async def add_passkey(page: Page) -> tuple[str, list[str]]:
    """Add a passkey with the passkeys page's button; the name it is listed with, and the
    notices the page shows then."""
    await page.goto("/auth/account/passkeys")
    await expect(page.get_by_text(NO_PASSKEYS)).to_be_visible()
    await page.wait_for_function("() => window.authui && window.authui.registerPasskey")
    await page.get_by_role("button", name="Add a passkey").click()
    names = page.locator("#authui-passkeys .authui-passkey-name")
    await expect(names).to_have_count(1)
    assert urlsplit(page.url).path == "/auth/account/passkeys", page.url
    return await names.inner_text(), await page.locator(".authui-alert-success").all_inner_texts()


def step_up_page(site: AccountSite, back: str) -> str:
    """The step-up page's address, coming back to the account page ``back``."""
    return site.url + "/auth/account/reauthenticate?" + urlencode({"callbackUrl": site.url + back})


async def test_passkeys_added_renamed_and_deleted_after_a_step_up(
    new_demo_context: NewContext, site: AccountSite
) -> None:
    opened = await passkey_browser(new_demo_context, site)
    page = opened.page
    email = address("passkeys", True)
    await sign_up(page, site, email, "Hedy Lamarr")

    name, told = await add_passkey(page)
    assert name == describe(await page.evaluate("() => navigator.userAgent"))
    await page.get_by_label("Name").fill("Work laptop")
    await send(page, True, page.get_by_role("button", name="Rename"))
    assert await notice(page) == PASSKEY_RENAMED
    await expect(page.locator("#authui-passkeys .authui-passkey-name")).to_have_text("Work laptop")

    # An hour later: deleting it asks for a fresh sign-in first, here with the passkey.
    await make_sign_in_old(site, page.context)
    await page.get_by_role("button", name="Delete Work laptop").click()
    await page.wait_for_url(step_up_page(site, "/auth/account/passkeys"))
    await expect(page.get_by_role("heading", level=1)).to_have_text(STEP_UP_HEADING)
    await page.get_by_role("button", name="Use a passkey").click()
    await page.wait_for_url(site.url + "/auth/account/passkeys**")
    await send(page, True, page.get_by_role("button", name="Delete Work laptop"))
    assert await notice(page) == PASSKEY_DELETED
    await expect(page.get_by_text(NO_PASSKEYS)).to_be_visible()

    assert (await event_labels(page))[:4] == [
        "Passkey deleted",
        "Signed in again to confirm a change · Passkey",
        "Passkey renamed",
        "Passkey added",
    ]
    assert told == [PASSKEY_ADDED]


async def test_passkeys_renamed_and_deleted_without_javascript(
    new_demo_context: NewContext, site: AccountSite
) -> None:
    email = address("passkeys", False)
    opened = await passkey_browser(new_demo_context, site)
    await sign_up(opened.page, site, email, "Radia Perlman")
    name, _ = await add_passkey(opened.page)

    page = await demo_page(new_demo_context, javascript=False)
    await sign_in(page, site, email, "/auth/account/passkeys")
    names = page.locator("#authui-passkeys .authui-passkey-name")
    await expect(names).to_have_text(name)
    # Adding one needs JavaScript: the button is not offered. (Playwright's text search
    # skips <noscript>, whose content shows here.)
    await expect(page.get_by_role("button", name="Add a passkey")).to_be_hidden()
    without = page.locator(".authui-form-add-passkey .authui-hint")
    await expect(without).to_have_text("Adding a passkey needs JavaScript.")
    await expect(without).to_be_visible()

    await page.get_by_label("Name").fill("Security key")
    await send(page, False, page.get_by_role("button", name="Rename"))
    assert page.url == after(site, "/auth/account/passkeys", False, "passkey-renamed")
    assert await notice(page) == PASSKEY_RENAMED
    await expect(names).to_have_text("Security key")

    # An hour later: the step-up page offers the passkey (hidden: it needs JavaScript) and
    # a link to the user's address.
    await make_sign_in_old(site, page.context)
    await page.get_by_role("button", name="Delete Security key").click()
    await page.wait_for_url(step_up_page(site, "/auth/account/passkeys"))
    await expect(page.get_by_role("button", name="Use a passkey")).to_be_hidden()
    await step_up_by_email(page, site, email)
    assert urlsplit(page.url).path == "/auth/account/passkeys", page.url
    welcomed_back = await page.locator(".authui-alert-success").all_inner_texts()
    await send(page, False, page.get_by_role("button", name="Delete Security key"))
    assert page.url == after(site, "/auth/account/passkeys", False, "passkey-deleted")
    assert await notice(page) == PASSKEY_DELETED
    await expect(page.get_by_text(NO_PASSKEYS)).to_be_visible()
    assert welcomed_back == [SIGNED_IN_AGAIN]


# --- deleting the account ---------------------------------------------------------------------


@JAVASCRIPT
async def test_deleting_the_account_after_a_step_up(
    new_demo_context: NewContext, site: AccountSite, javascript: bool
) -> None:
    page = await demo_page(new_demo_context, javascript=javascript)
    email = address("leaving", javascript)
    await sign_up(page, site, email, "Alan Turing")
    await make_sign_in_old(site, page.context)

    await page.goto("/auth/account")
    await open_page(page, "Delete account")
    await expect(page.get_by_text("To delete your account, sign in again first.")).to_be_visible()
    await expect(page.get_by_role("button", name="Delete my account")).to_have_count(0)
    await page.get_by_role("link", name="Sign in again").click()
    await page.wait_for_url(step_up_page(site, "/auth/account/delete"))
    await expect(page.get_by_role("heading", level=1)).to_have_text(STEP_UP_HEADING)
    await step_up_by_email(page, site, email)
    assert urlsplit(page.url).path == "/auth/account/delete", page.url

    await page.get_by_label("I understand: delete my account and its data for good").check()
    await page.get_by_role("button", name="Delete my account").click()
    await page.wait_for_url(site.url + "/auth/account/deleted")
    await expect(page.get_by_role("heading", level=1)).to_have_text(DELETED_HEADING)
    assert await session_user(page) is None
    assert await stored_user(site, email) is None
    await page.goto("/auth/account")
    assert urlsplit(page.url).path == "/auth/signin", page.url
