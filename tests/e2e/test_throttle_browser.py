"""A throttled credentials form in Chromium: with JavaScript, htmx swaps the 429 answer in
and the form says how long to wait; without, the browser shows the 429 sign-in page.

The app (``tests.peers.throttle_app``, in uvicorn) refuses every password under the
default ``Throttle``: five failed sign-ins per account, then 429. Each test has a server of
its own (the browser is one client, ten failures a minute at most) and signs in as an
account of its own, six times.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import TYPE_CHECKING

import pytest
import pytest_asyncio

from authui.options import resolve
from tests.e2e.conftest import guarded_context
from tests.peers.servers import asgi_servers
from tests.peers.throttle_app import config

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Page, Response

OpenPage = Callable[..., Awaitable["Page"]]

APP = "tests.peers.throttle_app:app"
FAILURES_ALLOWED = 5
REFUSED = "Sign in failed. Check the details you provided are correct."
WAIT = re.compile(r"^Too many attempts\. Try again in (1 minute|[2-5] minutes)\.$")


@pytest.fixture
def throttle_server() -> Iterator[str]:
    """The app, one server per test: its counts per client start from nothing."""
    with asgi_servers(APP, 1, dict(os.environ), server="uvicorn") as (url,):
        yield url


@pytest_asyncio.fixture(loop_scope="session")
async def open_page(
    browser: Browser, throttle_server: str, offsite_requests: list[str]
) -> AsyncIterator[OpenPage]:
    """Opens the sign-in page in a fresh context (``javascript`` on or off); uncaught
    JavaScript errors and requests off loopback fail the test."""
    contexts: list[BrowserContext] = []
    errors: list[str] = []

    async def open_signin(*, javascript: bool) -> Page:
        context = await guarded_context(
            browser, throttle_server, offsite_requests, java_script_enabled=javascript
        )
        contexts.append(context)
        page = await context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        await page.goto("/auth/signin")
        return page

    yield open_signin
    for context in contexts:
        await context.close()
    assert not errors, errors
    assert not offsite_requests, offsite_requests


async def submit(page: Page, username: str, password: str) -> Response:
    """Fill the credentials form and send it; the answer to the POST."""
    form = page.locator("form#authui-form-credentials")
    await form.get_by_label("Username").fill(username)
    await form.get_by_label("Password").fill(password)
    async with page.expect_response(lambda r: r.request.method == "POST") as answer:
        await form.get_by_role("button", name="Sign in", exact=True).click()
    return await answer.value


async def test_with_javascript_the_429_form_is_swapped_in_with_the_wait(
    open_page: OpenPage,
) -> None:
    page = await open_page(javascript=True)
    signin_url = page.url
    await page.wait_for_function("() => window.htmx !== undefined")
    account = f"htmx-{uuid.uuid4().hex[:8]}"
    alert = page.locator("form#authui-form-credentials [role=alert]")
    for n in range(FAILURES_ALLOWED):
        await page.evaluate("() => { window.before = document.forms[0]; }")
        answer = await submit(page, account, f"guess-{n}")
        assert answer.status == 200
        await page.wait_for_function("() => !document.contains(window.before)")
        assert (await alert.text_content() or "").strip() == REFUSED
    await page.evaluate("() => { window.before = document.forms[0]; }")
    throttled = await submit(page, account, "guess-5")
    assert throttled.status == 429
    assert int(await throttled.header_value("retry-after") or 0) > 0
    await page.wait_for_function("() => !document.contains(window.before)")
    assert WAIT.match((await alert.text_content() or "").strip())
    assert page.url == signin_url  # swapped in place, no page load
    username = page.locator("form#authui-form-credentials").get_by_label("Username")
    assert await username.input_value() == account


async def test_without_javascript_the_429_sign_in_page_says_how_long_to_wait(
    open_page: OpenPage,
) -> None:
    page = await open_page(javascript=False)
    account = f"plain-{uuid.uuid4().hex[:8]}"
    for n in range(FAILURES_ALLOWED):
        await submit(page, account, f"guess-{n}")
        await page.wait_for_url(re.compile(r"/auth/signin\?error=CredentialsSignin"))
    throttled = await submit(page, account, "guess-5")
    assert throttled.status == 429
    assert throttled.request.is_navigation_request()
    await page.wait_for_load_state()
    assert WAIT.match((await page.get_by_role("alert").first.text_content() or "").strip())
    assert await page.get_by_role("heading", name="Sign in").count() == 1


async def test_the_browser_client_resolves_a_throttled_sign_in_with_its_error(
    open_page: OpenPage,
) -> None:
    """``authui.signIn(…, {redirect: false})`` answers a 429 with the error it names, as
    it answers a refused password, instead of failing."""
    page = await open_page(javascript=True)
    await page.add_script_tag(url=resolve(config).renderer.assets.url("authui.js"))
    await page.wait_for_function("() => window.authui !== undefined")
    outcomes = await page.evaluate(
        """async ([account, tries]) => {
            const outcomes = [];
            for (let n = 0; n < tries; n++) {
                outcomes.push(await authui.signIn(
                    "credentials", {username: account, password: "guess", redirect: false}));
            }
            return outcomes;
        }""",
        [f"client-{uuid.uuid4().hex[:8]}", FAILURES_ALLOWED + 1],
    )
    assert [o["error"] for o in outcomes] == [
        *["CredentialsSignin"] * FAILURES_ALLOWED,
        "TooManyAttempts",
    ]
    assert outcomes[-1]["status"] == 429
    assert outcomes[-1]["ok"] is False
    assert outcomes[-1]["url"] is None
