"""Helpers of the browser tests of password accounts and two-step verification: the
demo's "Email and password" forms (sign-up, sign-in, a forgotten password), the second
step's page, the account center's two-step page, and an authenticator app of the test's
own (pyotp, fed the key the set-up page shows).

The sites are ``account_support``'s (a demo variant on a SQLite file of its own, sending
its emails through an SMTP sink of its own, opened at ``http://localhost:<port>``), so a
test reads each link from the message that carried it.

Forms are pressed as a person would, with JavaScript on (htmx posts the form and swaps the
card in place: the document stays; a finished step navigates) or off (a plain POST: the
page again with the errors, or a redirect).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlencode, urlsplit

import pyotp
from playwright.async_api import expect

from authui import Argon2
from authui.adapters.base import AdapterAuthenticator, AdapterUser
from authui.adapters.factors import PasswordRecord
from authui.adapters.sqlalchemy import SQLAlchemyAdapter
from authui.dates import now
from authui.passwords.hashing import hash_password

if TYPE_CHECKING:
    from playwright.async_api import Locator, Page, Response

    from tests.e2e.account_support import AccountSite

PASSWORD = "correct horse battery staple"
"""A password the rules accept (long, not a common one)."""
NEW_PASSWORD = "violet tea at nine o'clock"
"""Another one, chosen after a reset or a change."""
COMMON_PASSWORD = "sunshine2024"
"""A common word with digits after it: refused (and long enough for ``minlength``)."""

TOO_COMMON = "This password is too common: it is among the first guessed."
SIGN_IN_FAILED = "Sign in failed. Check the details you provided are correct."
RESET_NOTICE = "Your new password is saved, and every other browser signed out. Sign in with it."
CONFIRM_HEADING = "Confirm your email address"
SENT_HEADING = "Check your email"
MFA_HEADING = "Two-step verification"
WRONG_SECOND_STEP = "That code is not right, or was used already. Try again."
WRONG_SETUP_CODE = "That code does not match. Check the app's time, and type the code it shows now."
TOTP_STARTED = "Scan the QR code with your authenticator app, then type the code it shows."
MFA_ON = "Two-step verification is on. Save your recovery codes now: they are shown only this once."
TRUST_REVOKED = "Trust is revoked: those browsers ask for the second step again."
SET_UP_FIRST = "The page you opened needs two-step verification: set it up below, then continue."
SECURE_PAGE = "/secure"
SECURE_HEADING = "Two-step page"
TWO_FACTOR_PAGE = "/auth/account/two-factor"
MFA_PAGE = "/auth/mfa"
TRUST_LABEL = "Do not ask again in this browser for 30 days"

ENTRANCE_CARD = "authui-entrance-content"
ACCOUNT_CARD = "authui-account-content"


# --- pressing the forms -----------------------------------------------------------------------


async def press(page: Page, javascript: bool, button: Locator, card: str) -> Response | None:
    """Press ``button`` of a form that is answered with its page again (a refusal, or an
    account page that stays). With JavaScript, wait until htmx has swapped the card (the
    element with the id ``card``) and check that the document stayed; without, return the
    answer the browser shows."""
    if not javascript:
        async with page.expect_navigation() as navigation:
            await button.click()
        return await navigation.value
    await page.wait_for_function("() => window.htmx !== undefined")
    await page.evaluate("(id) => { window.oldCard = document.getElementById(id); }", card)
    await button.click()
    await page.wait_for_function("() => !window.oldCard || !document.contains(window.oldCard)")
    assert await page.evaluate("() => window.oldCard !== undefined"), "the page was loaded again"
    return None


async def press_and_go(page: Page, button: Locator, target: str) -> None:
    """Press ``button`` of a form whose success navigates (a redirect; for htmx,
    ``HX-Redirect``), and wait for ``target`` (a URL glob)."""
    await button.click()
    await page.wait_for_url(target)


def refused_status(answer: Response | None) -> None:
    """A refused form answers 422 without JavaScript (htmx gets 200: it swaps only those)."""
    assert answer is None or answer.status == 422, answer and answer.status


async def field_error(page: Page, field: Locator, message: str) -> None:
    """``field`` is marked invalid and described by its error, ``message``."""
    await expect(field).to_have_attribute("aria-invalid", "true")
    described = (await field.get_attribute("aria-describedby") or "").split()
    error_id = next(d for d in described if d.endswith("-error"))
    await expect(page.locator(f"#{error_id}")).to_have_text(message)


# --- password accounts ------------------------------------------------------------------------


def password_form(page: Page) -> Locator:
    """The sign-in page's "Email and password" form."""
    return page.locator("form#authui-form-password")


async def open_sign_in(page: Page, then: str) -> None:
    await page.goto("/auth/signin?" + urlencode({"callbackUrl": then}))


async def fill_password_sign_in(page: Page, email: str, password: str) -> None:
    """Fill the sign-in page's password form and press its button."""
    form = password_form(page)
    await form.get_by_label("Email").fill(email)
    await form.get_by_label("Password").fill(password)
    await form.get_by_role("button", name="Sign in", exact=True).click()


async def sign_in_with_password(page: Page, email: str, password: str, then: str) -> None:
    """Sign in with the password form and land on ``then`` (a path, or a URL glob), the
    first step being enough (no second step asked for)."""
    await open_sign_in(page, then)
    await fill_password_sign_in(page, email, password)
    await page.wait_for_url(f"**{then}")


async def sign_up_with_password(
    page: Page, site: AccountSite, email: str, password: str = PASSWORD, name: str = ""
) -> None:
    """A new user signs up with a password (no refusal on the way), follows the link in
    the email and lands on the new-user page, signed in."""
    count = site.sent_to(email)
    await page.goto("/auth/password/signup")
    if name:
        await page.get_by_label("Name (optional)").fill(name)
    await page.get_by_label("Email").fill(email)
    await page.get_by_label("Password").fill(password)
    await press_and_go(
        page, page.get_by_role("button", name="Create account"), "**/auth/password/sent?kind=signup"
    )
    await confirm_address(page, (await site.email(email, count + 1)).link)


async def confirm_address(page: Page, link: str) -> None:
    """Open the confirmation link and press its page's button: the new-user page."""
    await page.goto(link)
    await expect(page.get_by_role("heading", level=1)).to_have_text(CONFIRM_HEADING)
    await press_and_go(
        page, page.get_by_role("button", name="Confirm and sign in"), "**/auth/new-user**"
    )


async def sign_out(page: Page) -> None:
    """Sign out with the demo header's button (from the home page) and land there."""
    await page.goto("/")
    await page.get_by_role("banner").get_by_role("button", name="Sign out").click()
    await page.wait_for_url("**/")
    await expect(page.get_by_role("banner").get_by_role("link", name="Sign in")).to_be_visible()


async def stored_password_user(
    database_url: str, email: str, *, name: str = "Sam Two", passkey: bool = False
) -> str:
    """Store a user with a confirmed ``email`` and the password ``PASSWORD`` (and, with
    ``passkey``, a passkey record that no authenticator holds: enough for the pages to
    offer passkeys, not to sign in with one) straight into the demo's database, as a
    sign-up would have; the user's id."""
    user = AdapterUser(id=str(uuid.uuid4()), email=email, name=name, email_verified=now())
    hashed = await hash_password(Argon2(), PASSWORD)
    async with SQLAlchemyAdapter(database_url) as adapter:
        await adapter.create_user(user)
        await adapter.set_password(PasswordRecord(user_id=user.id, hash=hashed, updated=now()))
        if passkey:
            record = AdapterAuthenticator(
                credential_id=uuid.uuid4().hex,
                user_id=user.id,
                provider_account_id=uuid.uuid4().hex,
                counter=0,
                credential_backed_up=False,
                credential_public_key="AAAA",
                credential_device_type="singleDevice",
                transports="internal",
            )
            await adapter.create_authenticator(record)
    return user.id


# --- the authenticator app --------------------------------------------------------------------


@dataclass
class AuthenticatorApp:
    """An authenticator app holding the key the set-up page showed. It hands out each 30 s
    step's code once, in order, as a person typing codes one after the other would see
    them: the server takes a code of the step before or after its own, and each step once.
    """

    key: str
    last_step: int = 0
    """The last step whose code was handed out (0: none yet)."""

    @property
    def totp(self) -> pyotp.TOTP:
        return pyotp.TOTP(self.key)

    @staticmethod
    def step_now() -> int:
        return int(time.time()) // 30

    def code_of(self, step: int) -> str:
        return self.totp.at(step * 30)

    async def next_code(self) -> str:
        """The code of the first step after the last one handed out, and not before the
        current step; the server accepts it (within its drift of one step). If that
        step is still two ahead of the clock, wait until it is not (at most one step)."""
        step = max(self.step_now(), self.last_step + 1)
        early = (step - 1) * 30 - time.time()  # until the step before it begins
        if early > 0:
            await asyncio.sleep(early + 0.1)
        self.last_step = step
        return self.code_of(step)

    def last_code(self) -> str:
        """The code handed out last (the server refuses it again)."""
        return self.code_of(self.last_step)

    def wrong_code(self) -> str:
        """A code of no step near now."""
        near = {self.code_of(s) for s in range(self.step_now() - 3, self.step_now() + 4)}
        return next(c for c in (f"{n:06d}" for n in range(100_000, 1_000_000, 7)) if c not in near)


async def read_key(page: Page) -> str:
    """The key the set-up shows (``#authui-totp-key``, in groups of four), joined."""
    return "".join((await page.locator("#authui-totp-key").inner_text()).split())


async def recovery_codes(page: Page) -> list[str]:
    """The recovery codes the page shows once."""
    codes = page.locator("#authui-recovery-codes code")
    await expect(codes).to_have_count(10)
    return [text.strip() for text in await codes.all_inner_texts()]


async def notice(page: Page, card: str = ACCOUNT_CARD) -> str:
    """The text of the card's success notice, once it is there."""
    found = page.locator(f"#{card} .authui-alert-success").first
    await found.wait_for()
    return " ".join((await found.inner_text()).split())


async def set_up_app(page: Page, javascript: bool) -> tuple[AuthenticatorApp, list[str]]:
    """On the two-step page: set up an authenticator app (a wrong code refused first) and
    read the recovery codes it shows; the app and the codes."""
    start = page.get_by_role("button", name="Set up an authenticator app")
    await press(page, javascript, start, ACCOUNT_CARD)
    assert await notice(page) == TOTP_STARTED
    await expect(page.locator("svg.authui-qr")).to_be_visible()
    app = AuthenticatorApp(await read_key(page))
    assert len(app.key) == 32, app.key

    code = page.get_by_label("Code from the app")
    confirm = page.get_by_role("button", name="Confirm and turn on")
    await code.fill(app.wrong_code())
    refused_status(await press(page, javascript, confirm, ACCOUNT_CARD))
    await field_error(page, code, WRONG_SETUP_CODE)
    await expect(page.locator("svg.authui-qr")).to_be_visible()
    assert await read_key(page) == app.key

    await code.fill(await app.next_code())
    await press(page, javascript, confirm, ACCOUNT_CARD)
    assert await notice(page) == MFA_ON
    return app, await recovery_codes(page)


# --- the second step --------------------------------------------------------------------------


async def answer_challenge(
    page: Page, javascript: bool, label: str, code: str, *, trust: bool = False
) -> None:
    """Type ``code`` into the challenge page's field ``label`` (ticking "Do not ask again"
    if ``trust``) and press Verify; the browser leaves the page."""
    await page.get_by_label(label, exact=True).fill(code)
    if trust:
        await page.get_by_label(TRUST_LABEL).check()
    await page.get_by_role("button", name="Verify").click()
    await page.wait_for_url(lambda url: urlsplit(url).path != MFA_PAGE)


async def refused_challenge(page: Page, javascript: bool, label: str, code: str) -> None:
    """Type ``code`` into the challenge page's field ``label`` and press Verify: refused,
    the error next to the field."""
    field = page.get_by_label(label, exact=True)
    await field.fill(code)
    answer = await press(page, javascript, page.get_by_role("button", name="Verify"), ENTRANCE_CARD)
    refused_status(answer)
    assert urlsplit(page.url).path == MFA_PAGE, page.url
    await field_error(page, page.get_by_label(label, exact=True), WRONG_SECOND_STEP)
