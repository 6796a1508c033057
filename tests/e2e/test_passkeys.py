"""Passkeys in Chromium with its virtual authenticators, on the demo at
``http://localhost:<port>`` (an IP address cannot own passkeys).

Covered: a new user signs up with the passkey button and signs in again with the sign-in
button, without typing and with the address typed; sign-in through autofill (conditional
UI); a signed-in user adds more passkeys (the passkeys page's
button and ``authui.registerPasskey()``); the stored counter follows the authenticator's on
every use; answers without user verification are refused (by Chromium, and by the server
when a tampered page asks for none); a sign-in answer and an "Add a passkey" answer,
captured with their cookies and sent again, are refused (each challenge verifies once,
on the server) and the error page says why; the form's messages (cancelled, passkey
already on the device, sign-up without an address, server error, an IP address); without
WebAuthn or JavaScript the passkey buttons stay hidden beside the sign-in link; a passkey
form swapped in by htmx.
Like the other demo tests, each test also fails on a CSP violation, an uncaught error or a
request off loopback.
"""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import pytest_asyncio
from playwright.async_api import expect

from tests.e2e.conftest import CSP_REPORTER, DemoWatch, guarded_context
from tests.e2e.passkey_support import (
    ANSWER_HEADERS,
    NO_AUTOFILL,
    NO_WEBAUTHN,
    PASSKEY_SIGN_IN,
    PASSKEY_SIGN_UP,
    SKIP_USER_VERIFICATION,
    PasskeyBrowser,
    capture_answers,
    expect_used_page,
    finish_new_user,
    open_sign_in,
    press_passkey_button,
    profile_email,
    replay_answer,
    session,
    sign_out,
    sign_up_with_passkey,
    skip_user_verification,
    stored_counters,
)

if TYPE_CHECKING:
    from pathlib import Path

    from playwright.async_api import Browser, BrowserContext, Page, Request, Route

OpenPasskeyBrowser = Callable[..., Awaitable[PasskeyBrowser]]

VERIFICATION_ERROR = "/auth/error?error=WebAuthnVerificationError"
PASSKEYS_PAGE = "/auth/account/passkeys"
PASSKEY_ADDED = f"{PASSKEYS_PAGE}?notice=passkey-added"
"""Where an added passkey comes back to: the account center's page, saying so."""
CANCELLED = "The passkey request was cancelled or timed out. Try again."
EXISTS = "This device already holds a passkey for this account."
ADDRESS_NEEDED = "Enter your email address to sign up with a passkey."
FAILED = "The site could not complete the passkey request. Try again."
ADDRESS = "Passkeys cannot be used at this address of the site."


@pytest_asyncio.fixture(loop_scope="session")
async def open_passkey_browser(
    browser: Browser,
    demo_server: str,
    demo_database: Path,
    offsite_requests: list[str],
    demo_watch: DemoWatch,
) -> AsyncIterator[OpenPasskeyBrowser]:
    """Opens fresh pages on the demo at ``localhost`` (or ``at_ip_address``: 127.0.0.1),
    watched like ``new_demo_context``'s (CSP violations, uncaught errors, auth pages without
    CSP, requests off loopback), each with one virtual authenticator unless
    ``authenticator=False``."""
    base = demo_server.replace("127.0.0.1", "localhost")
    contexts: list[BrowserContext] = []

    async def make(
        *,
        verified: bool = True,
        authenticator: bool = True,
        init_scripts: Sequence[str] = (),
        javascript: bool = True,
        at_ip_address: bool = False,
    ) -> PasskeyBrowser:
        url = demo_server if at_ip_address else base
        context = await guarded_context(
            browser, url, offsite_requests, java_script_enabled=javascript
        )
        contexts.append(context)
        await context.add_init_script(CSP_REPORTER)
        for script in init_scripts:
            await context.add_init_script(script)
        context.on("console", demo_watch.on_console)
        context.on("weberror", lambda error: demo_watch.page_errors.append(str(error.error)))
        context.on("response", demo_watch.on_response)
        page = await context.new_page()
        cdp = await context.new_cdp_session(page)
        await cdp.send("WebAuthn.enable", {"enableUI": False})
        opened = PasskeyBrowser(page=page, base=url, cdp=cdp, database=demo_database)
        if authenticator:
            await opened.add_authenticator(verified=verified)
        return opened

    yield make
    problems = await demo_watch.problems()
    for context in contexts:
        await context.close()
    if offsite_requests:
        problems.append("the browser tried to leave loopback: " + ", ".join(offsite_requests))
    if problems:
        pytest.fail("\n".join(problems))


def new_email(kind: str) -> str:
    return f"{kind}-{uuid.uuid4().hex[:8]}@example.com"


class Ceremonies:
    """The page's requests for passkey options (their queries) and its answers (their
    forms), in order."""

    def __init__(self, page: Page) -> None:
        self.options: list[dict[str, str]] = []
        self.answers: list[dict[str, str]] = []
        page.on("request", self._seen)

    def _seen(self, request: Request) -> None:
        url = urlsplit(request.url)
        if url.path.startswith("/auth/webauthn-options/"):
            self.options.append({k: v[0] for k, v in parse_qs(url.query).items()})
        elif url.path.startswith("/auth/callback/passkey") and request.method == "POST":
            self.answers.append({k: v[0] for k, v in parse_qs(request.post_data or "").items()})


async def register_new_user(opened: PasskeyBrowser, email: str) -> None:
    """Register ``email`` with the passkey button, name the new user, land on the profile."""
    page = opened.page
    await open_sign_in(page)
    await sign_up_with_passkey(page, email)
    await page.wait_for_url(f"{opened.base}/auth/new-user**")
    await finish_new_user(page)
    await page.wait_for_url(f"{opened.base}/profile")
    assert await profile_email(page) == email


# --- registration, sign-in, counters --------------------------------------------------------------


async def test_a_new_user_registers_and_signs_in_again_with_the_button(
    open_passkey_browser: OpenPasskeyBrowser,
) -> None:
    opened = await open_passkey_browser()
    page = opened.page
    seen = Ceremonies(page)
    email = new_email("new")

    # Autofill asks first (its request stays pending: no passkey yet); the button's
    # ceremony aborts it, and the unknown address registers a new user.
    async with page.expect_request("**/auth/webauthn-options/**"):
        await open_sign_in(page)
    await sign_up_with_passkey(page, email)
    await page.wait_for_url(f"{opened.base}/auth/new-user**")
    await finish_new_user(page)
    await page.wait_for_url(f"{opened.base}/profile")
    assert await profile_email(page) == email
    assert seen.options[0] == {"action": "authenticate"}
    assert seen.options[1] == {"email": email}
    assert seen.answers[-1]["action"] == "register"
    assert (await session(page))["user"]["email"] == email
    counts = [await opened.sign_count()]
    assert await stored_counters(opened) == counts  # the stored counter is the authenticator's

    # Signed out, the button signs in again with the passkey (a browser without autofill,
    # which would otherwise sign in before the button is pressed): first without typing
    # anything (any passkey of the site), then with the address typed (its passkeys are
    # asked for); each use raises the counter, and the server stores the new one.
    await page.add_init_script(NO_AUTOFILL)
    for typed in ("", email):
        await sign_out(page)
        assert await session(page) is None
        await open_sign_in(page)
        await press_passkey_button(page, typed)
        await page.wait_for_url(f"{opened.base}/profile")
        assert await profile_email(page) == email
        assert seen.options[-1] == {"action": "authenticate", **({"email": typed} if typed else {})}
        assert seen.answers[-1]["action"] == "authenticate"
        counts.append(await opened.sign_count())
        assert await stored_counters(opened) == counts[-1:]
    assert counts[0] < counts[1] < counts[2]


async def test_autofill_signs_in_from_the_email_field(
    open_passkey_browser: OpenPasskeyBrowser,
) -> None:
    opened = await open_passkey_browser()
    page = opened.page
    email = new_email("autofill")
    await register_new_user(opened, email)
    [before] = await stored_counters(opened)
    await sign_out(page)

    # Hold the autofill request's options until the email field has the focus, as a user
    # would; the virtual authenticator then answers like a user picking the offered passkey.
    focused = asyncio.Event()

    async def after_focus(route: Route) -> None:
        await focused.wait()
        await route.continue_()

    await page.route("**/auth/webauthn-options/**", after_focus)
    seen = Ceremonies(page)
    await open_sign_in(page)
    await page.locator("form[data-authui-passkey]").get_by_label("Email").focus()
    focused.set()
    await page.wait_for_url(f"{opened.base}/profile")  # no button was pressed
    assert await profile_email(page) == email
    assert seen.options == [{"action": "authenticate"}]
    assert [answer["action"] for answer in seen.answers] == ["authenticate"]
    assert await stored_counters(opened) == [await opened.sign_count()]
    assert await opened.sign_count() > before


async def test_a_signed_in_user_adds_passkeys(open_passkey_browser: OpenPasskeyBrowser) -> None:
    opened = await open_passkey_browser(init_scripts=[NO_AUTOFILL])
    page = opened.page
    email = new_email("more")
    await register_new_user(opened, email)

    # This device holds a passkey for the account already: the browser refuses another.
    await page.goto(PASSKEYS_PAGE)
    await page.get_by_role("button", name="Add a passkey").click()
    await expect(page.get_by_role("alert")).to_have_text(EXISTS)
    await expect(page.locator(".authui-passkey")).to_have_count(1)

    # A second device (a security key), through the passkeys page's button. (One device at
    # a time: the first is unplugged, and keeps its passkey for later.)
    devices = [await opened.remove_authenticator(opened.authenticators[0])]
    await opened.add_authenticator(transport="usb")
    await page.get_by_role("button", name="Add a passkey").click()
    await page.wait_for_url(f"{opened.base}{PASSKEY_ADDED}")
    await expect(page.locator(".authui-passkey")).to_have_count(2)

    # A third one from the page's own script: authui.registerPasskey().
    devices.append(await opened.remove_authenticator(opened.authenticators[0]))
    await opened.add_authenticator()
    # (the page reloaded after the last addition: wait for its deferred scripts)
    await page.wait_for_function("() => window.authui && window.authui.registerPasskey")
    result = await page.evaluate("authui.registerPasskey({redirect: false})")
    assert result["ok"], result
    assert result["error"] is None, result
    await page.reload()
    await expect(page.locator(".authui-passkey")).to_have_count(3)
    assert (await session(page))["user"]["email"] == email
    devices.append(await opened.remove_authenticator(opened.authenticators[0]))

    # Each of the three signs the same user in, and has its own counter.
    counts = []
    for credentials in devices:
        await sign_out(page)
        device = await opened.add_authenticator(credentials=credentials)
        await open_sign_in(page)
        await press_passkey_button(page, email)
        await page.wait_for_url(f"{opened.base}/profile")
        assert await profile_email(page) == email
        counts.append(await opened.sign_count(device))
        await opened.remove_authenticator(device)
    assert await stored_counters(opened) == counts


# --- user verification, replays -------------------------------------------------------------------


async def test_without_user_verification_chromium_refuses_the_ceremony(
    open_passkey_browser: OpenPasskeyBrowser,
) -> None:
    """The server asks for user verification; an authenticator that cannot verify the user
    makes Chromium fail the ceremony (NotAllowedError), shown as "cancelled"."""
    opened = await open_passkey_browser(verified=False, init_scripts=[NO_AUTOFILL])
    page = opened.page
    await open_sign_in(page)
    await sign_up_with_passkey(page, new_email("nouv"))
    alert = page.locator("form[data-authui-passkey]").get_by_role("alert")
    await expect(alert).to_have_text(CANCELLED)
    await expect(page.get_by_role("button", name=PASSKEY_SIGN_UP)).to_be_enabled()
    assert await session(page) is None


async def test_the_server_refuses_answers_without_user_verification(
    open_passkey_browser: OpenPasskeyBrowser,
) -> None:
    """A tampered page asks an authenticator that cannot verify the user not to: the
    unverified answers reach the server, which refuses them (registration and sign-in)."""
    opened = await open_passkey_browser(
        authenticator=False, init_scripts=[NO_AUTOFILL, SKIP_USER_VERIFICATION]
    )
    page = opened.page
    no_verification = await opened.add_authenticator(can_verify=False)
    await open_sign_in(page)
    await skip_user_verification(page, True)
    await sign_up_with_passkey(page, new_email("nouv"))
    await page.wait_for_url(opened.base + VERIFICATION_ERROR)
    await expect(page.get_by_role("heading", level=1)).to_be_visible()
    assert await session(page) is None
    assert await opened.credentials(no_verification)  # it did make a passkey
    await opened.remove_authenticator(no_verification)

    # A passkey registered with user verification, later used without.
    await skip_user_verification(page, False)
    verifying = await opened.add_authenticator()
    email = new_email("later-nouv")
    await register_new_user(opened, email)
    [uses] = await stored_counters(opened)
    await sign_out(page)
    moved = await opened.remove_authenticator(verifying)
    no_verification = await opened.add_authenticator(can_verify=False, credentials=moved)
    await skip_user_verification(page, True)
    await open_sign_in(page)
    await press_passkey_button(page, email)
    await page.wait_for_url(opened.base + VERIFICATION_ERROR)
    assert await session(page) is None
    assert await opened.sign_count(no_verification) == uses + 1  # it did sign

    # Verified again, the same passkey signs in; the refused answer stored nothing.
    held = await opened.remove_authenticator(no_verification)
    await opened.add_authenticator(credentials=held)
    await skip_user_verification(page, False)
    await open_sign_in(page)
    await press_passkey_button(page, email)
    await page.wait_for_url(f"{opened.base}/profile")
    assert await stored_counters(opened) == [uses + 2]


async def test_a_replayed_sign_in_is_refused(open_passkey_browser: OpenPasskeyBrowser) -> None:
    """The browser's answer to a sign-in, captured on its way with its cookies and sent
    again by an HTTP client: with the browser's cookies now (the challenge cookie was
    spent) and with the very cookies the answer first carried (its challenge is sealed in
    them, but was used on the server). Refused both times: no session, and the error page
    says the passkey request was already used."""
    opened = await open_passkey_browser(init_scripts=[NO_AUTOFILL])
    page = opened.page
    email = new_email("replay")
    await register_new_user(opened, email)
    await sign_out(page)
    captured = await capture_answers(page)
    await open_sign_in(page)
    await press_passkey_button(page, email)
    await page.wait_for_url(f"{opened.base}/profile")
    uses = await stored_counters(opened)
    [(body, cookie)] = captured
    assert "authjs.challenge" in cookie

    # The same answer with the browser's cookies now (its CSRF token renewed: the sign-in
    # issued a new CSRF cookie).
    form = parse_qs(body)
    form["csrfToken"] = [(await (await page.request.get("/auth/csrf")).json())["csrfToken"]]
    again = await page.request.post(
        "/auth/callback/passkey", headers=ANSWER_HEADERS, data=urlencode(form, doseq=True)
    )
    assert (await again.json())["url"] == opened.base + VERIFICATION_ERROR

    replay = await replay_answer(opened.base, body, cookie)
    assert replay.status_code == 200
    assert replay.json()["url"] == opened.base + VERIFICATION_ERROR
    assert "session-token" not in replay.headers.get("set-cookie", "")
    assert await stored_counters(opened) == uses  # neither replay touched the counter
    await expect_used_page(page, replay.json()["url"])


async def test_a_replayed_passkey_addition_is_refused(
    open_passkey_browser: OpenPasskeyBrowser,
) -> None:
    """The "Add a passkey" answer, captured with its cookies (the signed-in user's
    session among them) and sent again: refused as a used passkey request, not a server
    error, and the passkey is listed once."""
    opened = await open_passkey_browser(init_scripts=[NO_AUTOFILL])
    page = opened.page
    await register_new_user(opened, new_email("add-replay"))
    await opened.remove_authenticator(opened.authenticators[0])
    await opened.add_authenticator(transport="usb")  # a second device
    captured = await capture_answers(page)
    await page.goto(PASSKEYS_PAGE)
    await page.get_by_role("button", name="Add a passkey").click()
    await page.wait_for_url(f"{opened.base}{PASSKEY_ADDED}")
    await expect(page.locator(".authui-passkey")).to_have_count(2)
    [(body, cookie)] = captured
    assert parse_qs(body)["action"] == ["register"]

    replay = await replay_answer(opened.base, body, cookie)
    assert replay.status_code == 200
    assert replay.json()["url"] == opened.base + VERIFICATION_ERROR
    await page.goto(PASSKEYS_PAGE)
    await expect(page.locator(".authui-passkey")).to_have_count(2)
    await expect_used_page(page, replay.json()["url"])


# --- messages, htmx -------------------------------------------------------------------------------


async def test_messages_in_the_form(open_passkey_browser: OpenPasskeyBrowser) -> None:
    # A browser without WebAuthn: beside the sign-in link, the passkey buttons stay hidden
    # (no message to read past); nothing is asked, and the link's button works.
    bare = await open_passkey_browser(authenticator=False, init_scripts=[NO_WEBAUTHN])
    seen = Ceremonies(bare.page)
    await open_sign_in(bare.page)
    form = bare.page.locator("form[data-authui-passkey]")
    await expect(form).to_have_attribute("data-authui-enhanced", "true")
    for name in (PASSKEY_SIGN_IN, PASSKEY_SIGN_UP):
        await expect(form.get_by_role("button", name=name)).to_be_hidden()
    await expect(form.get_by_role("alert")).to_have_count(0)
    await expect(form.get_by_role("button", name="Email me a sign-in link")).to_be_visible()
    assert seen.options == []

    # The sign-up button without an address: the form asks for one, nothing is asked.
    opened = await open_passkey_browser(init_scripts=[NO_AUTOFILL])
    page = opened.page
    seen = Ceremonies(page)
    await open_sign_in(page)
    await (
        page.locator("form[data-authui-passkey]")
        .get_by_role("button", name=PASSKEY_SIGN_UP)
        .click()
    )
    alert = page.locator("form[data-authui-passkey]").get_by_role("alert")
    await expect(alert).to_have_text(ADDRESS_NEEDED)
    assert seen.options == []

    # The server fails: said in the form, and the button works again.
    async def broken(route: Route) -> None:
        await route.fulfill(status=500, content_type="text/plain", body="boom")

    await page.route("**/auth/webauthn-options/**", broken)
    await open_sign_in(page)
    await sign_up_with_passkey(page, new_email("broken"))
    alert = page.locator("form[data-authui-passkey]").get_by_role("alert")
    await expect(alert).to_have_text(FAILED)
    await page.unroute("**/auth/webauthn-options/**")
    email = new_email("recovered")
    await sign_up_with_passkey(page, email)
    await page.wait_for_url(f"{opened.base}/auth/new-user**")

    # The browser client's calls reject with the server's refusal: adding a passkey needs
    # a signed-in user.
    await sign_out(page)
    await open_sign_in(page)
    refused = await page.evaluate(
        """() => authui.registerPasskey({redirect: false}).then(
            () => null, (error) => ({name: error.name, status: error.status}))"""
    )
    assert refused == {"name": "AuthuiError", "status": 400}

    # At an IP address, which cannot own passkeys: the browser refuses, the form says why.
    numeric = await open_passkey_browser(at_ip_address=True)
    await open_sign_in(numeric.page)
    await sign_up_with_passkey(numeric.page, new_email("numeric"))
    alert = numeric.page.locator("form[data-authui-passkey]").get_by_role("alert")
    await expect(alert).to_have_text(ADDRESS)

    # Without JavaScript: the passkey buttons stay hidden, the sign-in link's works.
    plain = await open_passkey_browser(authenticator=False, javascript=False)
    await open_sign_in(plain.page)
    form = plain.page.locator("form[data-authui-passkey]")
    await expect(form.get_by_role("button", name=PASSKEY_SIGN_IN)).to_be_hidden()
    await expect(form.get_by_role("button", name="Email me a sign-in link")).to_be_visible()


async def test_a_passkey_form_swapped_in_by_htmx_works_once(
    open_passkey_browser: OpenPasskeyBrowser,
) -> None:
    opened = await open_passkey_browser(init_scripts=[NO_AUTOFILL])
    page = opened.page
    await open_sign_in(page)
    # A fresh copy of the form from the server, swapped in by htmx in place of the old one.
    # (Only the form: parsing the whole page in this one, its <style nonce="…"> with another
    # page's nonce is reported as a CSP violation.)
    fresh = await (await page.request.get(page.url)).text()
    found = re.search(r"<form[^>]*data-authui-passkey=.*?</form>", fresh, re.DOTALL)
    assert found is not None
    await page.evaluate(
        """(html) => htmx.swap(document.querySelector("form[data-authui-passkey]"), html,
            {swapStyle: "outerHTML"})""",
        found.group(0),
    )
    form = page.locator("form[data-authui-passkey]")
    await expect(form).to_have_attribute("data-authui-enhanced", "true")
    await expect(form).to_have_count(1)
    # htmx:load again on an ancestor: the form is not enhanced a second time.
    await page.evaluate("htmx.trigger(document.querySelector('.authui-providers'), 'htmx:load')")
    seen = Ceremonies(page)
    email = new_email("swapped")
    await sign_up_with_passkey(page, email)
    await page.wait_for_url(f"{opened.base}/auth/new-user**")
    assert seen.options == [{"email": email}]
    assert len(seen.answers) == 1
