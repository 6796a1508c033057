"""Browser tests: a real ASGI server and Debian's Chromium driven by Playwright.

Fixtures:

- ``e2e_server``: ``tests.peers.e2e_app`` served by hypercorn on 127.0.0.1, on a free port
  (one server per session); its value is the base URL, ``http://127.0.0.1:<port>``.
- ``browser``: Chromium (``/usr/bin/chromium``, or ``$AUTHUI_E2E_CHROMIUM``; never a
  Playwright download), one per session. Missing Chromium or Playwright skips the test, or
  fails it under ``CI=true``.
- ``new_context``: makes fresh browser contexts (``base_url`` set to the server) with a guard
  that aborts every request leaving loopback; a test that tried one fails
  (``offsite_requests`` lists them).
- ``context``, ``page``: one fresh context and a page in it; ``page`` also fails the test on
  an uncaught JavaScript error.
- ``demo_server``, ``new_demo_context``, ``demo_watch``: the same for the demo site
  (``demo.app``), with contexts that also fail the test on a CSP violation or an auth page
  served without its CSP header (see "the demo app" below).

The tests use Playwright's async API on one session-wide event loop (the browser lives
across tests); the sync API cannot run beside pytest-asyncio in one process.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import secrets
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urlsplit

import pytest
import pytest_asyncio

from tests.peers.availability import peer_missing
from tests.peers.servers import Server, asgi_servers

if TYPE_CHECKING:
    from playwright.async_api import (
        Browser,
        BrowserContext,
        ConsoleMessage,
        Page,
        Request,
        Response,
        Route,
    )

ROOT = Path(__file__).resolve().parents[2]
E2E_DIR = Path(__file__).resolve().parent
APP = "tests.peers.e2e_app:app"
CHROMIUM = os.environ.get("AUTHUI_E2E_CHROMIUM", "/usr/bin/chromium")
"""Debian's Chromium; ``AUTHUI_E2E_CHROMIUM`` names another executable."""
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    # Keep the browser on loopback (without the last EXCLUDE even 127.0.0.1 fails to resolve).
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE *.localhost,"
    " EXCLUDE 127.0.0.1",
]
LOOPBACK = {"127.0.0.1", "localhost"}
TIMEOUT_MS = 30_000
"""Playwright's wait limit per step: everything here is local and takes well under a second,
but a machine four times slower than usual, under the whole suite, once took over 10 s for
one OIDC navigation (login, consent and callback through three servers)."""
INSTALL_HINT = (
    "install Debian's Chromium (apt-get install chromium) and the Playwright package "
    "(pip install playwright; never `playwright install`)"
)

NewContext = Callable[..., Awaitable["BrowserContext"]]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the browser tests on the session's event loop, where the browser lives."""
    session_loop = pytest.mark.asyncio(loop_scope="session")
    for item in items:
        if E2E_DIR in Path(str(item.path)).parents:
            item.add_marker(session_loop, append=False)


# --- the server -------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def e2e_server() -> Iterator[str]:
    """``tests.peers.e2e_app`` in hypercorn on 127.0.0.1 and a free port; yields its URL."""
    with asgi_servers(APP, 1, dict(os.environ)) as (url,):
        yield url


# --- the browser ------------------------------------------------------------------------------


def _missing_browser_reason() -> str | None:
    if importlib.util.find_spec("playwright") is None:
        return "the Playwright package is not installed"
    if not os.access(CHROMIUM, os.X_OK):
        return f"there is no Chromium at {CHROMIUM}"
    return None


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser() -> AsyncIterator[Browser]:
    """Chromium from Debian, launched once per session.

    Without Chromium or Playwright: skip, or fail when ``CI`` is ``"true"`` (CI must run them).
    """
    reason = _missing_browser_reason()
    if reason is not None:
        peer_missing(f"browser tests need a browser: {reason}; {INSTALL_HINT}")

    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield chromium
        finally:
            await chromium.close()


@pytest.fixture
def offsite_requests() -> list[str]:
    """The requests the guard of ``new_context`` aborted (``"GET http://…"``), in order.

    Left non-empty, they fail the test; a test of the guard itself clears them.
    """
    return []


async def guarded_context(
    browser: Browser, base_url: str, escaped: list[str], **kwargs: Any
) -> BrowserContext:
    """A fresh context on ``base_url`` that aborts every request off loopback and records
    it in ``escaped`` (the fixtures fail the test on any)."""
    context = await browser.new_context(base_url=base_url, **kwargs)
    context.set_default_timeout(TIMEOUT_MS)

    async def guard(route: Route, request: Request) -> None:
        if urlsplit(request.url).hostname in LOOPBACK or request.url.startswith("data:"):
            await route.fallback()
        else:
            escaped.append(f"{request.method} {request.url}")
            await route.abort("blockedbyclient")

    await context.route("**/*", guard)
    return context


@pytest_asyncio.fixture(loop_scope="session")
async def new_context(
    browser: Browser, e2e_server: str, offsite_requests: list[str]
) -> AsyncIterator[NewContext]:
    """A factory of fresh contexts on the server (keyword arguments go to ``new_context``).

    Each context aborts requests to any host but loopback; if one was tried, the test fails.
    """
    contexts: list[BrowserContext] = []
    escaped = offsite_requests

    async def make(**kwargs: Any) -> BrowserContext:
        context = await guarded_context(browser, e2e_server, escaped, **kwargs)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        await context.close()
    if escaped:
        pytest.fail("the browser tried to leave loopback: " + ", ".join(escaped))


@pytest_asyncio.fixture(loop_scope="session")
async def context(new_context: NewContext) -> BrowserContext:
    """A fresh browser context (own cookies), guarded to loopback."""
    return await new_context()


@pytest_asyncio.fixture(loop_scope="session")
async def page(context: BrowserContext) -> AsyncIterator[Page]:
    """A page in a fresh context; an uncaught JavaScript error in it fails the test."""
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    if errors:
        pytest.fail("uncaught JavaScript errors: " + "; ".join(errors))


# --- the demo app -----------------------------------------------------------------------------
#
# Fixtures for ``demo.app`` (the Quart demo site), beside the ones above:
#
# - ``demo_server``: the demo in hypercorn on 127.0.0.1 and a free port, with a random
#   ``AUTH_SECRET`` (so it writes no ``.authui-dev-secret``); its value is the base URL.
# - ``demo_watch``: what the browser saw in the demo's contexts (CSP violations, uncaught
#   errors, the auth pages' documents); checked when the test ends.
# - ``new_demo_context``: fresh contexts on the demo, guarded to loopback like
#   ``new_context``; every one reports CSP violations and page errors to ``demo_watch``.
#   At the end of the test, every auth page (a document under ``/auth/``) must have carried
#   a Content-Security-Policy header, and no violation or uncaught error may have happened.

DEMO_APP = "demo.app:app"
SHIPPED_PACKS = tuple(sorted(d.name for d in (ROOT / "themes").iterdir() if d.is_dir()))
"""The theme packs shipped in ``themes/`` (base, default, terminal)."""
SCHEMES = ("light", "dark")
DEMO_USER = {"username": "demo", "password": "demo", "name": "Demo User"}
DEMO_EMAIL = "demo@example.com"
CSP_REPORTER = """
document.addEventListener("securitypolicyviolation", (event) => {
  console.error(`securitypolicyviolation: ${event.violatedDirective} blocked `
    + `${event.blockedURI || "inline"} in ${event.documentURI}`);
});
"""
"""An init script: each ``securitypolicyviolation`` event becomes a console error."""


@dataclass
class DemoWatch:
    """What the browser reported in the demo's contexts during one test."""

    csp_violations: list[str] = field(default_factory=list)
    """Console messages about the Content Security Policy, in order."""
    page_errors: list[str] = field(default_factory=list)
    """Uncaught JavaScript errors."""
    auth_documents: list[Response] = field(default_factory=list)
    """Responses to page loads under ``/auth/`` that were not redirects."""

    def on_console(self, message: ConsoleMessage) -> None:
        text = message.text
        if "Content Security Policy" in text or text.startswith("securitypolicyviolation"):
            self.csp_violations.append(f"{message.page.url if message.page else '?'}: {text}")

    def on_response(self, response: Response) -> None:
        request = response.request
        if (
            request.resource_type == "document"
            and urlsplit(response.url).path.startswith("/auth/")
            and not 300 <= response.status < 400
        ):
            self.auth_documents.append(response)

    async def problems(self) -> list[str]:
        """Everything wrong: violations, errors and auth pages without a CSP header."""
        found = [f"CSP violation: {v}" for v in self.csp_violations]
        found += [f"uncaught JavaScript error: {e}" for e in self.page_errors]
        for response in self.auth_documents:
            csp = await response.header_value("content-security-policy")
            if not csp or "script-src 'self' 'nonce-" not in csp:
                found.append(f"no nonce-based CSP header on {response.status} {response.url}")
        return found


DEMO_OAUTH = {
    f"AUTH_{name}_{part}": f"demo-{name.lower()}-{part.lower()}"
    for name in ("GITHUB", "GOOGLE", "GITLAB", "DISCORD")
    for part in ("ID", "SECRET")
}
"""Built-in providers the demo shows as buttons (never clicked: the services are offline),
so that the accessibility checks and the gallery cover provider buttons in every pack."""


@dataclass(frozen=True)
class DemoApp:
    """One variant of the demo site: its ASGI app and the server it runs on."""

    app: str
    server: Server


DEMO_APPS = {
    "quart": DemoApp(DEMO_APP, "hypercorn"),
    "starlette": DemoApp("demo.starlette_app:app", "uvicorn"),
    "fastapi": DemoApp("demo.fastapi_app:app", "uvicorn"),
}
"""The demo on each integration, each on the server recommended for it."""


@contextlib.contextmanager
def demo_site(framework: str, env: dict[str, str]) -> Iterator[str]:
    """The demo on ``framework`` with ``env``, on 127.0.0.1 and a free port; yields its URL."""
    demo = DEMO_APPS[framework]
    with asgi_servers(demo.app, 1, env, server=demo.server) as (url,):
        yield url


def demo_env(database: Path) -> dict[str, str]:
    """The demo's environment: its own secret and database, and the dummy OAuth buttons."""
    return {
        # the caller's AUTH_* settings could turn on OAuth providers or another strategy
        **{k: v for k, v in os.environ.items() if not k.startswith("AUTH_")},
        **DEMO_OAUTH,
        "AUTH_SECRET": secrets.token_urlsafe(32),  # 43 characters
        "AUTH_DATABASE_URL": f"sqlite+aiosqlite:///{database}",
    }


class DemoSites:
    """Demo sites, one per framework, each started on first use with a fresh SQLite
    database and kept until :meth:`close`."""

    def __init__(self) -> None:
        self._stack = contextlib.ExitStack()
        self._running: dict[str, tuple[str, Path]] = {}

    def url(self, framework: str) -> str:
        return self._site(framework)[0]

    def database(self, framework: str) -> Path:
        """The SQLite file of the demo on ``framework`` (started if it is not running)."""
        return self._site(framework)[1]

    def _site(self, framework: str) -> tuple[str, Path]:
        if framework not in self._running:
            folder = self._stack.enter_context(
                tempfile.TemporaryDirectory(prefix=f"authui-demo-{framework}-")
            )
            database = Path(folder) / "demo.db"
            url = self._stack.enter_context(demo_site(framework, demo_env(database)))
            self._running[framework] = (url, database)
        return self._running[framework]

    def close(self) -> None:
        self._stack.close()


@pytest.fixture(scope="session")
def demo_sites() -> Iterator[DemoSites]:
    """The demo on each framework, started when a test first asks for it."""
    sites = DemoSites()
    try:
        yield sites
    finally:
        sites.close()


@pytest.fixture(scope="session")
def demo_server(demo_sites: DemoSites) -> str:
    """The Quart demo's URL (a module may override this fixture to run on every framework,
    see ``test_demo_flows``)."""
    return demo_sites.url("quart")


@pytest.fixture(scope="session")
def demo_database(demo_sites: DemoSites) -> Path:
    """The SQLite file of ``demo_server``'s demo, to read what the server stored."""
    return demo_sites.database("quart")


@pytest.fixture
def demo_watch() -> DemoWatch:
    """What the demo's contexts reported; a test of the watch itself clears what it caused."""
    return DemoWatch()


@pytest_asyncio.fixture(loop_scope="session")
async def new_demo_context(
    browser: Browser, demo_server: str, offsite_requests: list[str], demo_watch: DemoWatch
) -> AsyncIterator[NewContext]:
    """A factory of fresh, watched contexts on the demo (keyword arguments go to
    ``new_context``); the test fails on a request off loopback, a CSP violation, an uncaught
    error, or an auth page without its CSP header."""
    contexts: list[BrowserContext] = []
    escaped = offsite_requests

    async def make(**kwargs: Any) -> BrowserContext:
        context = await guarded_context(browser, demo_server, escaped, **kwargs)
        contexts.append(context)
        await context.add_init_script(CSP_REPORTER)
        context.on("console", demo_watch.on_console)
        context.on("weberror", lambda error: demo_watch.page_errors.append(str(error.error)))
        context.on("response", demo_watch.on_response)
        return context

    yield make
    problems = await demo_watch.problems()
    for context in contexts:
        await context.close()
    if escaped:
        problems.append("the browser tried to leave loopback: " + ", ".join(escaped))
    if problems:
        pytest.fail("\n".join(problems))


async def demo_page(
    new_demo_context: NewContext, *, javascript: bool = True, **kwargs: Any
) -> Page:
    """A page in a fresh demo context, JavaScript on or off."""
    context = await new_demo_context(java_script_enabled=javascript, **kwargs)
    return await context.new_page()


async def choose_theme(page: Page, pack: str, scheme: str, then: str = "/") -> None:
    """Pick ``pack`` and ``scheme`` with the demo's theme switcher, then open ``then``."""
    query = urlencode({"theme": pack, "scheme": scheme, "next": then})
    response = await page.goto(f"/theme?{query}")
    assert response is not None
    assert response.ok, f"{response.status} {response.url}"


async def fill_sign_in(page: Page, username: str, password: str) -> None:
    """Fill the credentials form on the sign-in page and press its button."""
    form = page.locator("form#authui-form-credentials")
    await form.get_by_label("Username").fill(username)
    await form.get_by_label("Password").fill(password)
    await form.get_by_role("button", name="Sign in", exact=True).click()


async def sign_in_demo(page: Page, demo_server: str, then: str = "/profile") -> None:
    """Sign in as the demo user through the sign-in page and land on ``then``."""
    await page.goto("/auth/signin?" + urlencode({"callbackUrl": then}))
    await fill_sign_in(page, DEMO_USER["username"], DEMO_USER["password"])
    await page.wait_for_url(demo_server + then)
