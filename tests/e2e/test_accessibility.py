"""axe-core on every page of every shipped theme pack, light and dark: the sign-in pages,
the demo's own, and the account center's (a refused form too).

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

from tests.e2e.conftest import ROOT, SCHEMES, SHIPPED_PACKS, choose_theme, demo_page, sign_in_demo
from tests.peers.availability import peer_missing

if TYPE_CHECKING:
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
SIGNED_OUT_PAGES = (
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
