"""The demo site in a real browser, JavaScript on and off: sign-in, failed sign-ins (swapped
in place by htmx, or redirected without JavaScript), sign-out and the new-user page; on the
demo of each integration (Quart on hypercorn, Starlette and FastAPI on uvicorn), which serve
the same site from the same settings and templates.

Every test runs in watched contexts (``new_demo_context``): a CSP violation, an uncaught
error or an auth page without its CSP header fails it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote

import pytest

from tests.e2e.conftest import (
    DEMO_APPS,
    DEMO_EMAIL,
    DEMO_USER,
    DemoSites,
    demo_page,
    fill_sign_in,
    sign_in_demo,
)

if TYPE_CHECKING:
    from playwright.async_api import Page, Route

    from tests.e2e.conftest import DemoWatch, NewContext


@pytest.fixture(scope="module", params=sorted(DEMO_APPS))
def demo_server(request: pytest.FixtureRequest, demo_sites: DemoSites) -> str:
    """Every test here runs on the demo of each framework."""
    url: str = demo_sites.url(request.param)
    return url


JAVASCRIPT = pytest.mark.parametrize(
    "javascript", [pytest.param(True, id="js-on"), pytest.param(False, id="js-off")]
)
SIGN_IN_FAILED = "Sign in failed. Check the details you provided are correct."
PROTECTED_MESSAGE = f"Only signed-in users see this, {DEMO_USER['name']}."


async def signed_in_as(page: Page) -> str | None:
    """The header's "Signed in as …" text, or ``None`` when signed out."""
    marker = page.locator("#signed-in-as")
    return await marker.text_content() if await marker.count() else None


async def assert_sent_to_sign_in(page: Page, demo_server: str, path: str) -> None:
    """Opening ``path`` lands on the sign-in page, with ``path`` as the callback."""
    await page.goto(path)
    assert page.url == f"{demo_server}/auth/signin?callbackUrl={quote(path, safe='')}"
    assert await page.locator("form#authui-form-credentials").count() == 1


async def alert_text(page: Page) -> str:
    alert = page.get_by_role("alert")
    await alert.wait_for()
    return " ".join((await alert.inner_text()).split())


@JAVASCRIPT
async def test_sign_in_from_a_protected_page(
    new_demo_context: NewContext, demo_server: str, javascript: bool
) -> None:
    page = await demo_page(new_demo_context, javascript=javascript)
    await assert_sent_to_sign_in(page, demo_server, "/protected")

    await fill_sign_in(page, DEMO_USER["username"], DEMO_USER["password"])
    await page.wait_for_url(demo_server + "/protected")
    assert await page.text_content("#protected-message") == PROTECTED_MESSAGE
    assert await signed_in_as(page) == f"Signed in as {DEMO_USER['name']}"

    await page.reload()
    assert await signed_in_as(page) == f"Signed in as {DEMO_USER['name']}"
    assert await page.text_content("#protected-message") == PROTECTED_MESSAGE

    await page.goto("/profile")
    assert page.url == demo_server + "/profile"
    assert await page.text_content("#profile-email") == DEMO_EMAIL
    assert await page.text_content("#profile-name") == DEMO_USER["name"]


async def test_wrong_password_with_javascript_swaps_the_form_in_place(
    new_demo_context: NewContext, demo_server: str
) -> None:
    page = await demo_page(new_demo_context)
    await assert_sent_to_sign_in(page, demo_server, "/protected")
    sign_in_url = page.url
    await page.wait_for_function("() => window.htmx !== undefined")
    # Markers that a reload would lose: the document and the form element before the swap.
    await page.evaluate(
        "() => { window.beforeSwap = document.getElementById('authui-form-credentials'); }"
    )

    await fill_sign_in(page, DEMO_USER["username"], "not the password")
    assert await alert_text(page) == SIGN_IN_FAILED
    assert page.url == sign_in_url
    assert await page.evaluate(
        "() => window.beforeSwap !== undefined && !document.contains(window.beforeSwap)"
    ), "the form was not swapped in place (the page reloaded, or the old form is still there)"
    form = page.locator("form#authui-form-credentials")
    username = form.get_by_label("Username")
    password = form.get_by_label("Password")
    assert await username.input_value() == DEMO_USER["username"]
    assert await password.input_value() == ""
    assert await username.get_attribute("aria-invalid") == "true"
    described_by = await username.get_attribute("aria-describedby")
    assert described_by
    assert await page.locator(f"#{described_by}").get_by_role("alert").count() == 1
    assert await signed_in_as(page) is None

    # The swapped form carries a CSRF token that works: the right password signs in.
    await password.fill(DEMO_USER["password"])
    await form.get_by_role("button", name="Sign in", exact=True).click()
    await page.wait_for_url(demo_server + "/protected")
    assert await page.text_content("#protected-message") == PROTECTED_MESSAGE


async def test_wrong_password_without_javascript_redirects_with_the_error(
    new_demo_context: NewContext, demo_server: str
) -> None:
    page = await demo_page(new_demo_context, javascript=False)
    await assert_sent_to_sign_in(page, demo_server, "/protected")

    await fill_sign_in(page, DEMO_USER["username"], "not the password")
    await page.wait_for_url(f"{demo_server}/auth/signin?error=CredentialsSignin&code=credentials")
    assert await alert_text(page) == SIGN_IN_FAILED
    credentials = page.locator("form#authui-form-credentials")  # not the password provider's
    assert await credentials.get_by_label("Password").input_value() == ""
    assert await signed_in_as(page) is None

    # The callback URL survives the failed attempt (in its cookie): a retry lands there.
    await fill_sign_in(page, DEMO_USER["username"], DEMO_USER["password"])
    await page.wait_for_url(demo_server + "/protected")
    assert await page.text_content("#protected-message") == PROTECTED_MESSAGE


@JAVASCRIPT
async def test_unknown_user_shows_the_error(
    new_demo_context: NewContext, demo_server: str, javascript: bool
) -> None:
    page = await demo_page(new_demo_context, javascript=javascript)
    await assert_sent_to_sign_in(page, demo_server, "/protected")
    sign_in_url = page.url

    await fill_sign_in(page, "eve", "whatever")
    if javascript:
        assert await alert_text(page) == SIGN_IN_FAILED
        assert page.url == sign_in_url
        assert await page.get_by_label("Username").input_value() == "eve"
    else:
        await page.wait_for_url(
            f"{demo_server}/auth/signin?error=CredentialsSignin&code=unknown_user"
        )
        assert await alert_text(page) == SIGN_IN_FAILED
    await assert_sent_to_sign_in(page, demo_server, "/protected")


@JAVASCRIPT
async def test_sign_out_from_the_header(
    new_demo_context: NewContext, demo_server: str, javascript: bool
) -> None:
    page = await demo_page(new_demo_context, javascript=javascript)
    await sign_in_demo(page, demo_server, "/protected")
    assert await signed_in_as(page) == f"Signed in as {DEMO_USER['name']}"

    header = page.locator(".demo-account")
    await header.get_by_role("button", name="Sign out").click()
    await page.wait_for_url(demo_server + "/")
    assert await signed_in_as(page) is None
    assert await header.get_by_role("link", name="Sign in").count() == 1
    await assert_sent_to_sign_in(page, demo_server, "/protected")
    await assert_sent_to_sign_in(page, demo_server, "/profile")


@JAVASCRIPT
async def test_new_user_page_sets_the_display_name(
    new_demo_context: NewContext, demo_server: str, javascript: bool
) -> None:
    page = await demo_page(new_demo_context, javascript=javascript)
    await sign_in_demo(page, demo_server, "/profile")
    await page.get_by_role("link", name="Change your display name").click()
    await page.wait_for_url(demo_server + "/auth/new-user")

    name = page.get_by_label("Display name")
    assert await name.input_value() == DEMO_USER["name"]
    chosen = "Ada Lovelace" if javascript else "Grace Hopper"
    await name.fill(f"  {chosen.replace(' ', '   ')} ")
    await page.get_by_role("button", name="Continue").click()
    await page.wait_for_load_state()
    await page.wait_for_url(lambda url: "/auth/new-user" not in url)

    await page.goto("/profile")
    assert await page.text_content("#profile-name") == chosen
    assert await page.text_content("#profile-email") == DEMO_EMAIL
    assert await signed_in_as(page) == f"Signed in as {chosen}"
    await page.reload()
    assert await page.text_content("#profile-name") == chosen

    # The name is stored in the demo's database, which the whole run shares: put it back.
    await page.goto("/auth/new-user")
    await page.get_by_label("Display name").fill(DEMO_USER["name"])
    await page.get_by_role("button", name="Continue").click()
    await page.wait_for_url(lambda url: "/auth/new-user" not in url)


async def test_new_user_page_needs_a_session(
    new_demo_context: NewContext, demo_server: str
) -> None:
    page = await demo_page(new_demo_context, javascript=False)
    await page.goto("/auth/new-user")
    assert page.url.startswith(demo_server + "/auth/signin")


# --- the watch itself ---------------------------------------------------------------------------


async def test_the_watch_catches_csp_violations_and_auth_pages_without_csp(
    new_demo_context: NewContext, demo_watch: DemoWatch
) -> None:
    """A page breaking its CSP, and an auth page served without one, are both reported."""

    async def violating(route: Route) -> None:
        await route.fulfill(
            content_type="text/html",
            headers={"Content-Security-Policy": "default-src 'self'"},
            body='<!DOCTYPE html><title>x</title><p style="color: red">inline style</p>',
        )

    async def without_csp(route: Route) -> None:
        await route.fulfill(content_type="text/html", body="<!DOCTYPE html><title>x</title>")

    page = await demo_page(new_demo_context)
    await page.route("**/fixture-page", violating)
    await page.route("**/auth/fixture-page", without_csp)
    await page.goto("/fixture-page")
    await page.wait_for_function("() => document.readyState === 'complete'")
    await page.goto("/auth/fixture-page")
    await page.goto("/auth/signin")

    problems = await demo_watch.problems()
    assert any("style-src" in p for p in demo_watch.csp_violations), problems
    assert [p for p in problems if p.startswith("no nonce-based CSP")] == [
        f"no nonce-based CSP header on 200 {page.url.removesuffix('signin')}fixture-page"
    ]
    assert len(demo_watch.auth_documents) == 2  # the fixture page and the real sign-in page
    # Seen and expected: don't fail this test for them.
    demo_watch.csp_violations.clear()
    demo_watch.auth_documents.clear()
