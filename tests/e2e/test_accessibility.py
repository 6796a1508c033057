"""axe-core on every page of every shipped theme pack, light and dark: the sign-in pages,
the demo's own, the password pages, and the account center's (a refused form too); the
two-step verification pages, in their states (the set-up with its QR code, a refused code,
the recovery codes shown, the second step's page in its three ways).

axe-core is the npm peer in ``tests/peers/axe`` (``npm ci`` there; ``scripts/test`` does it).
The pages forbid inline scripts (a nonce-based CSP), so axe is not added as a ``<script>``:
``page.evaluate`` runs its source through the DevTools protocol, which the page's CSP does not
govern. The theme comes from the demo's ``/theme`` switcher. A violation of impact "serious"
or "critical" fails the test, listed by rule, page and element.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from playwright.async_api import expect

from tests.e2e.conftest import ROOT, SCHEMES, SHIPPED_PACKS, choose_theme, demo_page, sign_in_demo
from tests.e2e.password_support import (
    ACCOUNT_CARD,
    COMMON_PASSWORD,
    ENTRANCE_CARD,
    MFA_PAGE,
    PASSWORD,
    SECURE_PAGE,
    AuthenticatorApp,
    fill_password_sign_in,
    open_sign_in,
    press,
    read_key,
    recovery_codes,
    sign_out,
    stored_password_user,
)
from tests.peers.availability import peer_missing

if TYPE_CHECKING:
    from pathlib import Path

    from playwright.async_api import Page, Route

    from tests.e2e.conftest import DemoWatch, NewContext

AXE_PEER = ROOT / "tests" / "peers" / "axe"
AXE_SCRIPT = AXE_PEER / "node_modules" / "axe-core" / "axe.min.js"
FAILING_IMPACTS = ("serious", "critical")
CONFIRM_SIGN_IN = f"/auth/callback/email?token={'0' * 64}&email=ada%40example.com"
"""A sign-in link: it opens the confirmation page (the token is not looked at until the
page's button is pressed)."""
CONFIRM_EMAIL = f"/auth/account/email?user=1&email=ada%40example.com&token={'0' * 64}"
"""An address-change link: it opens the confirmation page (the token is not looked at until
the page's button is pressed)."""
NO_TOKEN = "0" * 64
PASSWORD_PAGES = (
    "/auth/password/signup",
    "/auth/password/forgot",
    "/auth/password/sent?kind=signup",
    "/auth/password/sent?kind=reset",
    f"/auth/password/reset?user=1&token={NO_TOKEN}",
    f"/auth/password/verify?email=ada%40example.com&token={NO_TOKEN}",
)
"""The password pages a signed-out visitor sees; the links' pages open their forms (the
tokens are not looked at until the forms are sent)."""
SIGNED_OUT_PAGES = (
    *PASSWORD_PAGES,
    "/",
    "/auth/signin",
    "/auth/signin?error=CredentialsSignin",
    "/auth/signout",
    "/auth/error?error=AccessDenied",
    "/auth/error?error=Configuration",
    "/auth/verify-request",
    CONFIRM_SIGN_IN,
    CONFIRM_EMAIL,
    "/auth/account/deleted",
)
ACCOUNT_PAGES = (
    "/auth/account",
    "/auth/account/profile",
    "/auth/account/connections",
    "/auth/account/passkeys",
    "/auth/account/password",
    "/auth/account/two-factor",
    "/auth/account/sessions",
    "/auth/account/activity",
    "/auth/account/delete",
    "/auth/account/reauthenticate?callbackUrl=/auth/account/delete",
)
"""The account center's pages (the demo offers connections: it has OAuth providers)."""
SIGNED_IN_PAGES = ("/auth/new-user", "/profile", "/", *ACCOUNT_PAGES, "/auth/signout")
PAINT_CANVAS = """() => {
  const bare = (element) => {
    const style = getComputedStyle(element);
    return style.backgroundColor === "rgba(0, 0, 0, 0)" && style.backgroundImage === "none";
  };
  const root = document.documentElement;
  if (!bare(root) || (document.body && !bare(document.body))) return null;
  root.style.backgroundColor = "Canvas";
  return getComputedStyle(root).backgroundColor;
}"""
"""Paint the root with the canvas colour the browser already shows, if no element paints one.

axe takes an unpainted page for white (dequelabs/axe-core#3605, #4608), but under
``color-scheme: dark`` Chromium paints the canvas dark (``Canvas``, #121212): the base pack,
which has no stylesheet, is shown light-on-dark. Naming that same colour on the root (through
the CSSOM, which the CSP allows) changes nothing on screen and lets axe see the real
background; a page that paints its own background is left alone.
"""
RUN_AXE = """async () => {
  const results = await axe.run(document, {resultTypes: ["violations"]});
  return {
    version: axe.version,
    passes: results.passes.length,
    violations: results.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({
        target: n.target.join(" "),
        impact: n.impact,
        summary: (n.failureSummary || "").split("\\n").slice(1).join(" ").trim(),
      })),
    })),
  };
}"""


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe-core's ``axe.min.js`` from the npm peer (skip without it, fail under CI)."""
    if not AXE_SCRIPT.is_file():
        peer_missing(f"no axe-core at {AXE_SCRIPT}: run `npm ci` in {AXE_PEER}")
    return AXE_SCRIPT.read_text("utf-8")


def pinned_axe_version() -> str:
    version: str = json.loads((AXE_PEER / "package.json").read_text())["dependencies"]["axe-core"]
    return version


async def run_axe(page: Page, axe_source: str) -> dict[str, Any]:
    """axe-core's findings on the page as it is now (axe is injected first)."""
    await page.evaluate(PAINT_CANVAS)
    await page.evaluate(axe_source)
    results: dict[str, Any] = await page.evaluate(RUN_AXE)
    assert results["version"] == pinned_axe_version()
    assert results["passes"] > 0, "axe ran no check: was it injected?"
    return results


def failures(page_url: str, results: dict[str, Any]) -> list[str]:
    """Readable lines for the serious and critical violations in ``results``."""
    lines = []
    for violation in results["violations"]:
        if violation["impact"] not in FAILING_IMPACTS:
            continue
        lines.append(f"{page_url}: {violation['id']} ({violation['impact']}): {violation['help']}")
        lines += [f"    {node['target']}: {node['summary']}" for node in violation["nodes"]]
    return lines


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("pack", SHIPPED_PACKS)
async def test_pages_have_no_serious_violations(
    new_demo_context: NewContext, demo_server: str, axe_source: str, pack: str, scheme: str
) -> None:
    page = await demo_page(new_demo_context, color_scheme=scheme)
    await choose_theme(page, pack, scheme)
    problems: list[str] = []

    async def check(path: str) -> None:
        response = await page.goto(path)
        assert response is not None
        assert page.url == demo_server + path, f"{path} went to {page.url}"
        html_scheme = await page.get_attribute("html", "data-color-scheme")
        assert html_scheme == scheme, f"{path} is shown in {html_scheme}, not {scheme}"
        problems.extend(failures(path, await run_axe(page, axe_source)))

    for path in SIGNED_OUT_PAGES:
        await check(path)
    await sign_in_demo(page, demo_server, "/profile")
    for path in SIGNED_IN_PAGES:
        await check(path)
    # A refused form of the account center, as htmx swaps it in: the field marked invalid
    # and described by its error.
    await page.goto("/auth/account/profile")
    await page.wait_for_function("() => window.htmx !== undefined")
    await page.get_by_label("Picture (an https:// address)").fill("http://pictures.example.com/")
    await page.get_by_role("button", name="Save", exact=True).click()
    await page.locator('#authui-profile-image[aria-invalid="true"]').wait_for()
    problems.extend(failures("/auth/account/profile (refused)", await run_axe(page, axe_source)))

    assert not problems, (
        f"axe-core found serious or critical violations in the {pack} pack ({scheme}):\n"
        + "\n".join(problems)
    )


async def test_axe_runs_under_the_csp_and_reports_violations(
    new_demo_context: NewContext, demo_watch: DemoWatch, axe_source: str
) -> None:
    """The injection works on a page whose CSP blocks inline scripts, and planted problems
    are found."""

    async def fixture_page(route: Route) -> None:
        await route.fulfill(
            content_type="text/html",
            headers={"Content-Security-Policy": "default-src 'self'; img-src data:"},
            body='<!DOCTYPE html><html lang="en"><title>x</title><main>'
            '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">'
            "<input type=text><script>window.inlineRan = true;</script></main></html>",
        )

    page = await demo_page(new_demo_context)
    await page.route("**/fixture-page", fixture_page)
    await page.goto("/fixture-page")
    assert await page.evaluate("() => window.inlineRan === undefined"), "the CSP is not in force"
    assert demo_watch.csp_violations, "the blocked inline script was not reported"
    demo_watch.csp_violations.clear()  # seen and expected: don't fail this test for it

    lines = failures("/fixture-page", await run_axe(page, axe_source))
    assert any(line.startswith("/fixture-page: image-alt (critical)") for line in lines), lines
    assert any(line.startswith("/fixture-page: label (critical)") for line in lines), lines


async def axe_here(page: Page, axe_source: str, scheme: str, label: str) -> list[str]:
    """axe's failures on the page as it is now (``label`` names it in the report)."""
    html_scheme = await page.get_attribute("html", "data-color-scheme")
    assert html_scheme == scheme, f"{label} is shown in {html_scheme}, not {scheme}"
    return failures(label, await run_axe(page, axe_source))


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("pack", SHIPPED_PACKS)
async def test_two_step_pages_have_no_serious_violations(
    new_demo_context: NewContext,
    demo_database: Path,
    axe_source: str,
    pack: str,
    scheme: str,
) -> None:
    """A user with a password (and a passkey) sets up two-step verification, then signs
    in with it: every state of the pages on the way."""
    email = f"axe.{pack}.{scheme}@example.com"
    await stored_password_user(f"sqlite+aiosqlite:///{demo_database}", email, passkey=True)
    page = await demo_page(new_demo_context, color_scheme=scheme)
    await choose_theme(page, pack, scheme)
    problems: list[str] = []

    async def check(label: str) -> None:
        problems.extend(await axe_here(page, axe_source, scheme, label))

    async def send(button: str, card: str) -> None:
        await press(page, True, page.get_by_role("button", name=button), card)

    await open_sign_in(page, "/auth/account/password")
    await fill_password_sign_in(page, email, PASSWORD)
    await page.wait_for_url("**/auth/account/password")
    await page.get_by_label("New password").fill(COMMON_PASSWORD)
    await send("Change password", ACCOUNT_CARD)
    await page.locator('#authui-password-new[aria-invalid="true"]').wait_for()
    await check("/auth/account/password (refused)")

    await page.goto("/auth/account/two-factor")
    await send("Set up an authenticator app", ACCOUNT_CARD)
    await page.locator("svg.authui-qr").wait_for()
    await check("/auth/account/two-factor (set-up)")
    app = AuthenticatorApp(await read_key(page))
    await page.get_by_label("Code from the app").fill(app.wrong_code())
    await send("Confirm and turn on", ACCOUNT_CARD)
    await page.locator('#authui-totp-code[aria-invalid="true"]').wait_for()
    await check("/auth/account/two-factor (refused code)")
    await page.get_by_label("Code from the app").fill(await app.next_code())
    await send("Confirm and turn on", ACCOUNT_CARD)
    await recovery_codes(page)
    await check("/auth/account/two-factor (recovery codes)")
    await send("Use my passkeys as the second step", ACCOUNT_CARD)
    await page.get_by_text("On: one of your passkeys can confirm a sign-in.").wait_for()
    await check("/auth/account/two-factor (on)")

    await sign_out(page)
    await open_sign_in(page, SECURE_PAGE)
    await fill_password_sign_in(page, email, PASSWORD)
    await page.wait_for_url(f"**{MFA_PAGE}")
    await check(f"{MFA_PAGE} (authenticator app)")
    await page.get_by_label("Code", exact=True).fill(app.wrong_code())
    await send("Verify", ENTRANCE_CARD)
    await page.locator('#authui-mfa-code[aria-invalid="true"]').wait_for()
    await check(f"{MFA_PAGE} (refused code)")
    for method in ("recovery", "passkey"):
        await page.goto(f"{MFA_PAGE}?method={method}")
        await check(f"{MFA_PAGE}?method={method}")
    await expect(page.get_by_role("button", name="Use a passkey")).to_be_visible()

    assert not problems, (
        f"axe-core found serious or critical violations in the {pack} pack ({scheme}):\n"
        + "\n".join(problems)
    )
