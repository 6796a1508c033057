"""Second factors at request level: an authenticator app (``App``, pyotp reading the key
the set-up page shows, on a clock the test moves), the set-up through the account
center's two-factor page, and the challenge after a first sign-in step.

The clock (``Clock``) stands in for ``time`` in ``authui.mfa.totp``: codes belong to
30-second steps, and a step is accepted once, so a test moves the clock a step on
instead of waiting.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass

import pyotp

from authui.http import Response
from authui.testing import AuthClient
from tests.account.support import PAGE, Browser, account_url, form_for, submit
from tests.passwords.support import MFA_PAGE, STRONG, PasswordSite, form_post, password_sign_in

PENDING_COOKIE = "authui.mfa-pending"
TRUSTED_COOKIE = "authui.trusted-browser"
ENROLMENT_COOKIE = "authui.mfa-enrolment"
WRONG_CODE = "That code is not right, or was used already. Try again."
TWO_FACTOR = account_url("two-factor")


@dataclass
class Clock:
    """The time ``authui.mfa.totp`` reads: at the start of a step, moved by whole steps."""

    now: float

    def time(self) -> float:
        return self.now

    @property
    def step(self) -> int:
        return int(self.now // 30)

    def tick(self, steps: int = 1) -> None:
        """Move on ``steps`` steps (30 seconds each)."""
        self.now += 30 * steps


@dataclass
class App:
    """An authenticator app holding the key of the set-up page."""

    key: str
    clock: Clock

    def code(self, steps: int = 0) -> str:
        """The code it shows ``steps`` steps from now (negative: before)."""
        return pyotp.TOTP(self.key).at(self.clock.now + 30 * steps)

    def wrong_codes(self, count: int = 1) -> list[str]:
        """``count`` codes that are none of the app's codes near now (a guess that a
        test must see refused, never one that happens to be right)."""
        near = {self.code(steps) for steps in range(-3, 4)}
        guesses = (f"{n:06d}" for n in range(100003, 1000000, 7919))
        return [guess for guess in guesses if guess not in near][:count]


@dataclass
class Enrolled:
    """A user's browser after setting an app up: the app and the recovery codes shown."""

    app: App
    recovery_codes: list[str]
    page: Response


def totp_key(page: Response) -> str:
    """The key the set-up page shows (in groups of four)."""
    match = re.search(r'<code class="authui-secret" id="authui-totp-key">([^<]+)</code>', page.text)
    assert match is not None, "no key on the page"
    return match.group(1)


def recovery_codes(page: Response) -> list[str]:
    """The recovery codes a page shows (none once shown)."""
    match = re.search(r'<ul[^>]*id="authui-recovery-codes">(.*?)</ul>', page.text, re.S)
    if match is None:
        return []
    return [html.unescape(c) for c in re.findall(r"<li><code>([^<]+)</code></li>", match.group(1))]


async def start_totp(browser: AuthClient) -> Response:
    """Press "Set up an authenticator app"; the page that follows (the QR code, the key)."""
    page = await browser.get("account/two-factor", headers=PAGE)
    started = await submit(browser, form_for(page, "totp-start"))
    assert started.header("location") == account_url("two-factor", notice="totp-started"), (
        started.status,
        started.text[:300],
    )
    return await browser.get("account/two-factor", headers=PAGE)


async def enrol(browser: AuthClient, clock: Clock) -> Enrolled:
    """Set an authenticator app up for the browser's (freshly signed-in) user, typing the
    code it shows now; then move the clock a step on, as the time to the next sign-in."""
    setup = await start_totp(browser)
    app = App(totp_key(setup).replace(" ", ""), clock)
    done = await submit(browser, form_for(setup, "totp-confirm"), code=app.code())
    assert done.status == 200, (done.status, done.header("location"))
    codes = recovery_codes(done)
    assert len(codes) == 10
    clock.tick()
    return Enrolled(app, codes, done)


async def mfa_user(
    site: PasswordSite, email: str, clock: Clock, **settings: str
) -> tuple[str, Enrolled, Browser]:
    """A user with a password and an authenticator app: their id, the app and codes, and
    the browser that set it up (signed in)."""
    user = await site.add_user(email)
    browser = await site.signed_in(email, **settings)
    return user.id, await enrol(browser, clock), browser


async def challenged(
    site: PasswordSite, email: str, password: str = STRONG, browser: Browser | None = None
) -> Browser:
    """A browser (new by default) whose password sign-in was sent to the challenge."""
    browser = browser or site.browser()
    answer = await password_sign_in(browser, email, password)
    assert answer.header("location") == MFA_PAGE, (answer.status, answer.header("location"))
    return browser


async def verify(
    browser: AuthClient,
    code: str,
    method: str = "totp",
    *,
    trust: bool = False,
    headers: Mapping[str, str] = PAGE,
    csrf: bool = True,
) -> Response:
    """The challenge's form, posted with ``code``."""
    fields = {"method": method, "code": code} | ({"trust": "yes"} if trust else {})
    return await form_post(browser, "mfa", fields, headers=headers, csrf=csrf)


def error_of(page: Response) -> list[str]:
    """The challenge page's error messages."""
    found = re.findall(r'<p class="authui-field-error"[^>]*>(.*?)</p>', page.text, re.S)
    return [html.unescape(f).strip() for f in found]
