"""Two-step verification in Chromium, as a person goes through it, with JavaScript on and
off, on the demo of Quart (``@auth.required(mfa=True)``), Starlette
(``get_sign_in_facts``) and FastAPI (``RequireMfaSession``): each guards its ``/secure``
page its own way.

One user's story: signed in with a password, they open ``/secure`` and are sent to the
two-step page, which says why; they set up an authenticator app (the test's own, pyotp fed
the key the page shows beside its QR code): a wrong code is refused next to the field, the
right one turns the second step on and shows the recovery codes once; the session that
set it up counts, so ``/secure`` opens. Signed out and in again with the password, the
second step is asked for: the code used at the set-up is refused (each step works once),
the next one works with "Do not ask again" ticked; then the trusted browser is not asked;
once trust is revoked on the two-step page it is asked again, and a recovery code works
once (refused in another browser).

With JavaScript only, on one framework: a passkey as the second step (Chromium's virtual
authenticator).

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
from tests.e2e.passkey_support import NO_AUTOFILL, PasskeyBrowser
from tests.e2e.password_support import (
    ACCOUNT_CARD,
    MFA_HEADING,
    MFA_ON,
    MFA_PAGE,
    PASSWORD,
    SECURE_HEADING,
    SECURE_PAGE,
    SET_UP_FIRST,
    TRUST_REVOKED,
    TWO_FACTOR_PAGE,
    answer_challenge,
    fill_password_sign_in,
    notice,
    open_sign_in,
    press,
    recovery_codes,
    refused_challenge,
    set_up_app,
    sign_out,
    sign_up_with_password,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.async_api import Page

    from tests.e2e.conftest import NewContext

FRAMEWORKS = ("quart", "starlette", "fastapi")
JAVASCRIPT = pytest.mark.parametrize(
    "javascript", [pytest.param(True, id="js-on"), pytest.param(False, id="js-off")]
)
CODE = "Code"
RECOVERY_CODE = "Recovery code"


@pytest.fixture(scope="module", params=FRAMEWORKS)
def framework(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def site(framework: str) -> Iterator[AccountSite]:
    """The demo on each framework, with its own database and SMTP sink."""
    with account_site(framework) as running:
        yield running


@pytest.fixture(scope="module")
def demo_server(site: AccountSite) -> str:
    """The watched contexts (``new_demo_context``) open the site at ``localhost``."""
    return site.url


async def new_user(page: Page, site: AccountSite, email: str) -> None:
    """A user signs up with a password and lands on the home page, signed in."""
    await sign_up_with_password(page, site, email)
    await page.get_by_label("Display name").fill("Sam Two")
    await page.get_by_role("button", name="Continue").click()
    await page.wait_for_url(site.url + "/")


async def password_then_challenge(page: Page, email: str) -> None:
    """Sign in with the password, on the way to ``/secure``: the second step's page."""
    await open_sign_in(page, SECURE_PAGE)
    await fill_password_sign_in(page, email, PASSWORD)
    await page.wait_for_url(f"**{MFA_PAGE}**")
    await expect(page.get_by_role("heading", level=1)).to_have_text(MFA_HEADING)


async def on_secure_page(page: Page, site: AccountSite) -> None:
    assert page.url == site.url + SECURE_PAGE, page.url
    await expect(page.get_by_role("heading", level=1)).to_have_text(SECURE_HEADING)


async def use_recovery_code(page: Page) -> None:
    """Switch the challenge page to a recovery code."""
    others = page.get_by_role("navigation", name="Other ways to verify")
    await others.get_by_role("link", name="Use a recovery code").click()
    await page.wait_for_url(f"**{MFA_PAGE}?method=recovery")


@JAVASCRIPT
async def test_an_authenticator_app_trusted_browsers_and_recovery_codes(
    new_demo_context: NewContext, site: AccountSite, javascript: bool
) -> None:
    page = await demo_page(new_demo_context, javascript=javascript)
    email = f"sam.{'js' if javascript else 'nojs'}@example.com"
    await new_user(page, site, email)

    # /secure needs the second step: the two-step page says so, and comes back there.
    await page.goto(SECURE_PAGE)
    assert urlsplit(page.url).path == TWO_FACTOR_PAGE, page.url
    assert parse_qs(urlsplit(page.url).query)["callbackUrl"] == [SECURE_PAGE]
    await expect(page.locator("#authui-two-factor-needed")).to_have_text(SET_UP_FIRST)
    app, codes = await set_up_app(page, javascript)
    assert len(set(codes)) == 10, codes
    await expect(page.locator("#authui-recovery-left")).to_have_text(
        "10 unused recovery codes left."
    )

    # The session that set it up counts as signed in with two steps: the page, opened
    # again, says so and continues to /secure.
    await page.goto(page.url)
    needed = page.locator("#authui-two-factor-needed")
    await expect(needed.locator(".authui-alert-success")).to_have_text(
        "You signed in with two-step verification."
    )
    await expect(page.locator("#authui-recovery-codes")).to_have_count(0)  # shown once
    await needed.get_by_role("link", name="Continue").click()
    await page.wait_for_url(f"**{SECURE_PAGE}")
    await on_secure_page(page, site)
    await sign_out(page)

    # The password alone is not enough: the code used at the set-up is refused (its step
    # was used), the next one works, and this browser is trusted from now on.
    await password_then_challenge(page, email)
    assert await session_user(page) is None
    await refused_challenge(page, javascript, CODE, app.last_code())
    await answer_challenge(page, javascript, CODE, await app.next_code(), trust=True)
    await on_secure_page(page, site)
    await sign_out(page)

    # The trusted browser: the password is enough.
    await open_sign_in(page, SECURE_PAGE)
    await fill_password_sign_in(page, email, PASSWORD)
    await page.wait_for_url(site.url + SECURE_PAGE)
    await on_secure_page(page, site)

    # Trust revoked on the two-step page: asked again, and a recovery code works.
    await page.goto(TWO_FACTOR_PAGE)
    trusted = page.locator("#authui-trusted-browsers > li")
    await expect(trusted).to_have_count(1)
    await press(
        page,
        javascript,
        page.get_by_role("button", name="Revoke every trusted browser"),
        ACCOUNT_CARD,
    )
    assert await notice(page) == TRUST_REVOKED
    await expect(trusted).to_have_count(0)
    await expect(page.get_by_text("No browser skips the second step.")).to_be_visible()
    await sign_out(page)
    await password_then_challenge(page, email)
    await use_recovery_code(page)
    await answer_challenge(page, javascript, RECOVERY_CODE, codes[0].upper())
    await on_secure_page(page, site)
    await page.goto(TWO_FACTOR_PAGE)
    await expect(page.locator("#authui-recovery-left")).to_have_text(
        "9 unused recovery codes left."
    )

    # The same recovery code in another browser: used already.
    other = await demo_page(new_demo_context, javascript=javascript)
    await password_then_challenge(other, email)
    await use_recovery_code(other)
    await refused_challenge(other, javascript, RECOVERY_CODE, codes[0])
    assert await session_user(other) is None

    signed_in = "Signed in · Email and password"
    two_steps = "Signed in with two steps · Email and password"
    assert await event_labels(page) == [
        "Second step refused",  # the recovery code, again
        two_steps,
        "Recovery code used",
        "Trusted browsers revoked",
        two_steps,  # in the trusted browser
        two_steps,
        "Browser trusted to skip the second step",
        "Second step refused",  # the set-up's code, again
        "New recovery codes made",
        "Two-step verification turned on",
        signed_in,  # the confirmation link
        "Signed up with a password · Email and password",
    ]


# --- a passkey as the second step -------------------------------------------------------------


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


@pytest.mark.parametrize("framework", ["quart"], indirect=True)  # authui's own page
async def test_a_passkey_as_the_second_step(
    new_demo_context: NewContext, site: AccountSite
) -> None:
    opened = await passkey_browser(new_demo_context, site)
    page = opened.page
    email = "kim.passkey@example.com"
    await new_user(page, site, email)

    await page.goto("/auth/account/passkeys")
    await page.wait_for_function("() => window.authui && window.authui.registerPasskey")
    await page.get_by_role("button", name="Add a passkey").click()
    await expect(page.locator("#authui-passkeys .authui-passkey-name")).to_have_count(1)

    await page.goto(TWO_FACTOR_PAGE)
    turn_on = page.get_by_role("button", name="Use my passkeys as the second step")
    await press(page, True, turn_on, ACCOUNT_CARD)
    assert await notice(page) == MFA_ON
    await recovery_codes(page)
    on = page.get_by_text("On: one of your passkeys can confirm a sign-in.")
    await expect(on).to_be_visible()
    await sign_out(page)

    await password_then_challenge(page, email)
    await expect(page.get_by_text("Confirm it is you with one of your passkeys.")).to_be_visible()
    await page.wait_for_function("() => window.authui && window.authui.registerPasskey")
    await page.get_by_role("button", name="Use a passkey").click()
    await page.wait_for_url(site.url + SECURE_PAGE)
    await on_secure_page(page, site)
    assert await opened.sign_count() > 0
