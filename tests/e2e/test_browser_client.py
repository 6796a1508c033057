"""authui.js in a real browser against a real server: sessions, sign-in and sign-out.

Also the plain HTML sign-in form with JavaScript turned off.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from tests.peers.e2e_app import PASSWORD, SCRIPT_URL, USER

if TYPE_CHECKING:
    from playwright.async_api import Page, Route

    from tests.e2e.conftest import NewContext

SIGNED_IN = {"name": USER["name"], "email": USER["email"]}


async def session_on_page(page: Page) -> Any:
    """The session as the server rendered it into the page (``#session``)."""
    return json.loads(await page.text_content("#session") or "")


async def open_home(page: Page) -> None:
    await page.goto("/")
    await page.wait_for_function("() => window.authui !== undefined")


async def test_sign_in_without_redirect_resolves_and_sets_the_session(page: Page) -> None:
    await open_home(page)
    assert await page.evaluate("authui.getSession()") is None

    outcome = await page.evaluate(
        """async ([username, password]) => {
            const events = [];
            document.addEventListener("authui:session", (e) => events.push(e.detail));
            const options = {username, password, redirect: false};
            const result = await authui.signIn("credentials", options);
            return {result, events, session: await authui.getSession(), href: location.href};
        }""",
        ["ada", PASSWORD],
    )

    result = outcome["result"]
    assert result["ok"] is True
    assert result["status"] == 200
    assert result["error"] is None
    assert result["code"] is None
    assert result["url"] == outcome["href"]  # callbackUrl defaults to the current page
    assert outcome["events"] == [{"trigger": "signin", "provider": "credentials"}]
    assert outcome["session"]["user"] == SIGNED_IN
    assert outcome["href"] == page.url  # no navigation happened

    await page.reload()
    assert (await session_on_page(page))["user"] == SIGNED_IN


async def test_wrong_password_resolves_the_error_and_code(page: Page) -> None:
    await open_home(page)
    outcome = await page.evaluate(
        """async () => {
            const events = [];
            document.addEventListener("authui:session", (e) => events.push(e.detail));
            const result = await authui.signIn(
                "credentials", {username: "ada", password: "wrong", redirect: false});
            return {result, events, session: await authui.getSession()};
        }"""
    )
    assert outcome["result"] == {
        "url": None,
        "error": "CredentialsSignin",
        "code": "credentials",
        "ok": True,
        "status": 200,
    }
    assert outcome["events"] == []
    assert outcome["session"] is None


async def test_sign_in_with_redirect_lands_on_redirect_to(page: Page, e2e_server: str) -> None:
    await open_home(page)
    await page.evaluate(
        """([password]) => {
            authui.signIn("credentials", {username: "ada", password, redirectTo: "/welcome"});
        }""",
        [PASSWORD],
    )
    await page.wait_for_url(e2e_server + "/welcome")
    assert await page.text_content("h1") == "Welcome"
    assert (await session_on_page(page))["user"] == SIGNED_IN


async def test_sign_in_to_this_page_with_a_hash_reloads_it(page: Page, e2e_server: str) -> None:
    """Going to the same page with only a new #hash would merely scroll: the client reloads."""
    await open_home(page)
    await page.evaluate(
        """(password) => {
            authui.signIn("credentials", {username: "ada", password, redirectTo: "/#signed-in"});
        }""",
        PASSWORD,
    )
    await page.wait_for_function(
        "(name) => document.getElementById('session').textContent.includes(name)",
        arg=SIGNED_IN["name"],
    )
    assert page.url == e2e_server + "/#signed-in"


async def test_sign_out_without_redirect_ends_the_session(page: Page, e2e_server: str) -> None:
    await open_home(page)
    outcome = await page.evaluate(
        """async ([password]) => {
            await authui.signIn("credentials", {username: "ada", password, redirect: false});
            const before = await authui.getSession();
            const events = [];
            document.addEventListener("authui:session", (e) => events.push(e.detail));
            const result = await authui.signOut({redirect: false, redirectTo: "/welcome"});
            return {before, result, events, after: await authui.getSession()};
        }""",
        [PASSWORD],
    )
    assert outcome["before"]["user"] == SIGNED_IN
    assert outcome["result"] == {"url": e2e_server + "/welcome"}
    assert outcome["events"] == [{"trigger": "signout"}]
    assert outcome["after"] is None
    assert page.url == e2e_server + "/"


async def test_sign_out_with_redirect_reloads_the_page(page: Page, e2e_server: str) -> None:
    await open_home(page)
    await page.evaluate(
        "(password) => authui.signIn('credentials', {username: 'ada', password, redirect: false})",
        PASSWORD,
    )
    await page.reload()
    assert (await session_on_page(page))["user"] == SIGNED_IN

    async with page.expect_navigation(url=e2e_server + "/"):
        await page.evaluate("() => { authui.signOut(); }")
    assert await session_on_page(page) is None


async def test_sign_in_without_provider_opens_the_sign_in_page(page: Page, e2e_server: str) -> None:
    await open_home(page)
    await page.evaluate("() => { authui.signIn(); }")
    callback = quote(e2e_server + "/", safe="")
    await page.wait_for_url(f"{e2e_server}/auth/signin?callbackUrl={callback}")
    assert await page.locator("form#authui-form-credentials").count() == 1
    # The built-in page loads authui.js too, and it finds the base path from its own URL.
    assert await page.evaluate("authui.basePath") == "/auth"


async def test_unknown_provider_opens_the_sign_in_page(page: Page, e2e_server: str) -> None:
    await open_home(page)
    await page.evaluate("() => { authui.signIn('nope', {redirectTo: '/welcome'}); }")
    await page.wait_for_url(f"{e2e_server}/auth/signin?callbackUrl=%2Fwelcome")


async def test_csrf_token_and_providers(page: Page, e2e_server: str) -> None:
    await open_home(page)
    token = await page.evaluate("authui.getCsrfToken()")
    assert re.fullmatch("[0-9a-f]{64}", token)
    providers = await page.evaluate("authui.getProviders()")
    assert providers["credentials"]["type"] == "credentials"
    assert providers["credentials"]["callbackUrl"] == e2e_server + "/auth/callback/credentials"


async def test_base_path_sources(page: Page) -> None:
    """meta tag first, then the data attribute on <html>, then the script's own folder."""

    def serve(head: str, html_attributes: str = "") -> Any:
        async def handler(route: Route) -> None:
            await route.fulfill(
                content_type="text/html",
                body=f"<!DOCTYPE html><html {html_attributes}><head>{head}"
                f'<script src="{SCRIPT_URL}" defer></script></head><body></body></html>',
            )

        return handler

    cases = [
        ('<meta name="authui-base-path" content="/from-meta/">', 'data-authui-base-path="/x"'),
        ("", 'data-authui-base-path="/from-attribute"'),
        ("", ""),
    ]
    seen = []
    for head, attributes in cases:
        await page.route("**/fixture-page", serve(head, attributes))
        await page.goto("/fixture-page")
        await page.wait_for_function("() => window.authui !== undefined")
        seen.append(await page.evaluate("authui.basePath"))
        await page.unroute("**/fixture-page")
    assert seen == ["/from-meta", "/from-attribute", "/auth"]


async def test_html_form_sign_in_without_javascript(
    new_context: NewContext, e2e_server: str
) -> None:
    context = await new_context(java_script_enabled=False)
    page = await context.new_page()
    callback = quote(e2e_server + "/welcome", safe="")
    await page.goto(f"/auth/signin?callbackUrl={callback}")
    form = page.locator("form#authui-form-credentials")
    await form.locator("input[name=username]").fill("ada")
    await form.locator("input[name=password]").fill(PASSWORD)
    await form.locator("button[type=submit]").click()
    await page.wait_for_url(e2e_server + "/welcome")
    assert (await session_on_page(page))["user"] == SIGNED_IN
