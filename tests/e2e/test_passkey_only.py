"""The sign-in page of a site whose only way in is a passkey, in Chromium: its email
field and buttons belong to the passkey provider alone. A new address signs up (the
form's own submit asks the server, which registers it), the "Sign in with a passkey"
button signs in again without typing; without WebAuthn or JavaScript the form says
why passkeys cannot work here."""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING

import pytest
import pytest_asyncio
from playwright.async_api import expect

from tests.e2e.conftest import guarded_context
from tests.e2e.passkey_support import (
    NO_AUTOFILL,
    NO_WEBAUTHN,
    PASSKEY_SIGN_IN,
    PASSKEY_SIGN_UP,
    PasskeyBrowser,
    session,
)
from tests.peers.servers import asgi_servers

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext

UNSUPPORTED = "This browser does not support passkeys. Use another way to sign in."
NO_SCRIPT = "Passkeys need JavaScript: turn it on, or use another way to sign in."


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """The passkey-only app, at ``localhost`` (an IP address cannot own passkeys)."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("AUTH_")},
        "AUTH_SECRET": secrets.token_urlsafe(32),
        "AUTH_TRUSTED_HOSTS": "localhost,127.0.0.1",
    }
    with asgi_servers("tests.peers.passkey_only_app:app", 1, env) as (url,):
        yield url.replace("127.0.0.1", "localhost")


@pytest_asyncio.fixture(loop_scope="session")
async def contexts(
    browser: Browser, site: str, offsite_requests: list[str]
) -> AsyncIterator[list[BrowserContext]]:
    made: list[BrowserContext] = []
    yield made
    for context in made:
        await context.close()
    assert not offsite_requests


async def test_sign_up_then_sign_in_without_typing(
    browser: Browser, site: str, offsite_requests: list[str], contexts: list[BrowserContext]
) -> None:
    context = await guarded_context(browser, site, offsite_requests)
    contexts.append(context)
    await context.add_init_script(NO_AUTOFILL)
    page = await context.new_page()
    cdp = await context.new_cdp_session(page)
    await cdp.send("WebAuthn.enable", {"enableUI": False})
    opened = PasskeyBrowser(page=page, base=site, cdp=cdp)
    await opened.add_authenticator()

    await page.goto("/auth/signin")
    form = page.locator("form[data-authui-passkey]")
    await expect(form.get_by_role("button", name=PASSKEY_SIGN_IN)).to_be_visible()
    await expect(form.get_by_role("button", name="Email me a sign-in link")).to_have_count(0)
    await form.get_by_label("Email").fill("solo@example.com")
    await form.get_by_label("Email").press("Enter")  # the form's own submit: sign up
    await page.wait_for_url(f"{site}/auth/new-user**")
    assert (await session(page))["user"]["email"] == "solo@example.com"

    await context.clear_cookies()
    assert await session(page) is None
    await page.goto("/auth/signin")
    await page.get_by_role("button", name=PASSKEY_SIGN_IN).click()  # nothing typed
    await page.wait_for_url(f"{site}/")
    assert (await session(page))["user"]["email"] == "solo@example.com"
    await page.goto("/auth/signin")
    await expect(page.locator(".authui-last-used")).to_have_text("Last used")


@pytest.mark.parametrize(
    ("javascript", "script", "said"),
    [(True, NO_WEBAUTHN, UNSUPPORTED), (False, "", NO_SCRIPT)],
    ids=["no WebAuthn", "no JavaScript"],
)
async def test_without_passkeys_the_form_says_why(
    browser: Browser,
    site: str,
    offsite_requests: list[str],
    contexts: list[BrowserContext],
    javascript: bool,
    script: str,
    said: str,
) -> None:
    context = await guarded_context(browser, site, offsite_requests, java_script_enabled=javascript)
    contexts.append(context)
    if script:
        await context.add_init_script(script)
    page = await context.new_page()
    await page.goto("/auth/signin")
    form = page.locator("form[data-authui-passkey]")
    notice = form.locator("noscript .authui-alert" if not javascript else "[role=alert]")
    await expect(notice).to_have_text(said)
    await expect(notice).to_be_visible()
    sign_up = page.get_by_role("button", name=PASSKEY_SIGN_UP)
    await expect(sign_up).to_be_hidden()
