"""Passkeys in Chromium with its virtual authenticator, on the demo at ``http://localhost``
(an IP address cannot own passkeys): register a new user, sign in again with the passkey,
add a second passkey on the passkeys page, and a ceremony without user verification."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import pytest_asyncio
from playwright.async_api import expect

from tests.e2e.conftest import guarded_context

if TYPE_CHECKING:
    from playwright.async_api import Browser, Page


@pytest_asyncio.fixture(loop_scope="session")
async def passkey_page(
    browser: Browser, demo_server: str, offsite_requests: list[str]
) -> AsyncIterator[Any]:
    """Make pages on ``localhost`` with a virtual authenticator (``verified`` user or not)."""
    base = demo_server.replace("127.0.0.1", "localhost")
    contexts = []

    async def make(verified: bool = True) -> tuple[Page, str, Any]:
        context = await guarded_context(browser, base, offsite_requests)
        contexts.append(context)
        page = await context.new_page()
        cdp = await context.new_cdp_session(page)
        await cdp.send("WebAuthn.enable", {"enableUI": False})

        async def add_authenticator(transport: str = "internal") -> None:
            await cdp.send(
                "WebAuthn.addVirtualAuthenticator",
                {
                    "options": {
                        "protocol": "ctap2",
                        "transport": transport,
                        "hasResidentKey": True,
                        "hasUserVerification": True,
                        "isUserVerified": verified,
                        "automaticPresenceSimulation": True,
                    }
                },
            )

        await add_authenticator()
        return page, base, add_authenticator

    yield make
    for context in contexts:
        await context.close()
    assert not offsite_requests, offsite_requests


async def passkey_sign_in(page: Page, email: str = "") -> None:
    form = page.locator("form[data-authui-passkey]")
    await form.get_by_label("Email").fill(email)
    await form.get_by_role("button", name="Sign in with Passkey").click()


async def test_register_sign_in_again_and_add_a_second_passkey(passkey_page: Any) -> None:
    page, base, add_authenticator = await passkey_page()
    email = f"pk-{uuid.uuid4().hex[:8]}@example.com"
    await page.goto("/auth/signin?callbackUrl=%2Fprofile")
    await passkey_sign_in(page, email)
    await page.wait_for_url(f"{base}/auth/new-user**")
    await page.get_by_label("Display name").fill("Passkey Person")
    await page.get_by_role("button", name="Continue").click()
    await page.wait_for_url(f"{base}/profile")
    assert await page.locator("#profile-email").inner_text() == email

    await sign_out(page)
    # Autofill (conditional UI): the page asks for passkeys as it loads; the virtual
    # authenticator answers like a user picking the offered passkey.
    await page.goto("/auth/signin?callbackUrl=%2Fprofile")
    await page.wait_for_url(f"{base}/profile")
    assert await page.locator("#profile-email").inner_text() == email

    before = await uses(page)

    # The button, in a browser without autofill for passkeys.
    await sign_out(page)
    await page.add_init_script(NO_AUTOFILL)
    await page.goto("/auth/signin?callbackUrl=%2Fprofile")
    await passkey_sign_in(page, email)  # a known address: sign in with its passkey
    await page.wait_for_url(f"{base}/profile")
    assert await page.locator("#profile-email").inner_text() == email

    # The passkeys page: the counter went up with each use; a second passkey is added.
    assert await uses(page) == before + 1  # the stored counter follows the authenticator's
    await add_authenticator("usb")  # a security key: the first one holds a passkey already
    await page.get_by_role("button", name="Add a passkey").click()
    await page.wait_for_url(f"{base}/auth/passkeys")
    await expect(page.locator(".authui-passkey")).to_have_count(2)


async def uses(page: Page) -> int:
    """The first passkey's use count, from the passkeys page."""
    await page.goto("/auth/passkeys")
    text = await page.locator(".authui-passkey-uses").first.inner_text()
    return int(text.split()[1])


async def sign_out(page: Page) -> None:
    await page.goto("/profile")
    await page.get_by_role("banner").get_by_role("button", name="Sign out").click()
    await page.wait_for_url("**/")


NO_AUTOFILL = "PublicKeyCredential.isConditionalMediationAvailable = async () => false;"
"""Makes the page believe the browser has no passkey autofill."""


async def test_an_authenticator_without_user_verification_cannot_register(
    passkey_page: Any,
) -> None:
    """User verification is required: Chromium refuses the ceremony itself (the server's
    refusal of an unverified answer is tested at request level, ``tests/test_webauthn.py``)."""
    page, _, _ = await passkey_page(verified=False)
    await page.add_init_script(NO_AUTOFILL)
    await page.goto("/auth/signin")
    await passkey_sign_in(page, f"nouv-{uuid.uuid4().hex[:8]}@example.com")
    status = page.locator("form[data-authui-passkey] .authui-passkey-status")
    await expect(status).to_have_text("The passkey request was cancelled or timed out.")
    assert await (await page.request.get("/auth/session")).json() is None


async def test_a_replayed_answer_is_refused(passkey_page: Any) -> None:
    """The browser's answer to a ceremony, sent again with the same challenge cookie, is
    refused: the challenge is single-use and the signature counter must grow."""
    page, base, _ = await passkey_page()
    email = f"replay-{uuid.uuid4().hex[:8]}@example.com"
    await page.add_init_script(NO_AUTOFILL)
    await page.goto("/auth/signin?callbackUrl=%2Fprofile")
    await passkey_sign_in(page, email)
    await page.wait_for_url(f"{base}/auth/new-user**")
    await sign_out(page)
    captured: dict[str, Any] = {}

    async def keep(route: Any) -> None:
        request = route.request
        captured["body"] = request.post_data
        captured["cookie"] = await request.header_value("cookie")
        await route.continue_()

    await page.route("**/auth/callback/passkey", keep)
    await page.goto("/auth/signin?callbackUrl=%2Fprofile")
    await passkey_sign_in(page, email)
    await page.wait_for_url(f"{base}/profile")
    replay = await page.request.post(
        f"{base}/auth/callback/passkey",
        headers={
            "content-type": "application/x-www-form-urlencoded",
            "cookie": captured["cookie"],
            "x-auth-return-redirect": "1",
        },
        data=captured["body"],
    )
    assert (await replay.json())["url"].endswith("/auth/error?error=WebAuthnVerificationError")
