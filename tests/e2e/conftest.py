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

The tests use Playwright's async API on one session-wide event loop (the browser lives
across tests); the sync API cannot run beside pytest-asyncio in one process.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest
import pytest_asyncio

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Page, Request, Route

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
START_TIMEOUT = 30.0
TIMEOUT_MS = 10_000
"""Playwright's wait limit per step: everything here is local and takes well under a second."""
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


def _wait_until_up(url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if server.poll() is not None:
            raise RuntimeError(f"the e2e server exited ({server.returncode}):\n{log.read_text()}")
        try:
            with urllib.request.urlopen(url + "/auth/providers", timeout=2) as answer:  # noqa: S310
                if answer.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"the e2e server did not answer in time:\n{log.read_text()}")
        time.sleep(0.05)


@pytest.fixture(scope="session")
def e2e_server() -> Iterator[str]:
    """``tests.peers.e2e_app`` in hypercorn on 127.0.0.1 and a free port; yields its URL.

    The listening socket is made here and handed to hypercorn (``fd://``), so the port is
    free and ours, with no window for another process to take it.
    """
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    port = listener.getsockname()[1]
    fd = listener.fileno()
    with tempfile.TemporaryDirectory(prefix="authui-e2e-") as tmp:
        log = Path(tmp) / "server.log"
        with log.open("wb") as log_file:
            server = subprocess.Popen(
                [sys.executable, "-m", "hypercorn", "--bind", f"fd://{fd}", APP],
                cwd=ROOT,
                pass_fds=[fd],
                stdout=log_file,
                stderr=subprocess.STDOUT,
            )
        listener.close()
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_until_up(url, server, log)
            yield url
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


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
        message = f"browser tests need a browser: {reason}; {INSTALL_HINT}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)

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


@pytest_asyncio.fixture(loop_scope="session")
async def new_context(
    browser: Browser, e2e_server: str, offsite_requests: list[str]
) -> AsyncIterator[NewContext]:
    """A factory of fresh contexts on the server (keyword arguments go to ``new_context``).

    Each context aborts requests to any host but loopback; if one was tried, the test fails.
    """
    contexts: list[BrowserContext] = []
    escaped = offsite_requests

    async def guard(route: Route, request: Request) -> None:
        if urlsplit(request.url).hostname in LOOPBACK or request.url.startswith("data:"):
            await route.fallback()
        else:
            escaped.append(f"{request.method} {request.url}")
            await route.abort("blockedbyclient")

    async def make(**kwargs: Any) -> BrowserContext:
        context = await browser.new_context(base_url=e2e_server, **kwargs)
        contexts.append(context)
        context.set_default_timeout(TIMEOUT_MS)
        await context.route("**/*", guard)
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
