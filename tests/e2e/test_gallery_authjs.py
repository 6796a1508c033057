"""The gallery beside Auth.js: Auth.js's own default sign-in page next to authui's.

Auth.js is the real thing, ``@auth/express`` on Express (``tests/peers/authjs/pages.mjs``,
run by :func:`tests.peers.authjs_pages.authjs_pages`), configured with the sign-in options
the demo shows: GitHub, Google, GitLab and Discord, sign-in links by email, passkeys and
credentials (Username, Password). authui's side is the demo's sign-in page in the default
pack. Each run writes, for each scheme (light, dark) and size (desktop 900 wide, phone 375
wide), ``docs/assets/gallery/compare-authjs-<scheme>-<size>.png`` and
``compare-authui-<scheme>-<size>.png``: whole pages, with the stabilising and the PNG
recompression of ``test_gallery.py``. ``docs/gallery.md`` shows them.

Auth.js's page asks ``https://authjs.dev`` for the providers' logos and ``unpkg.com`` for
the passkey script; the test machine is offline, so those requests get an empty answer here
(the logos stay blank) instead of reaching the loopback guard. Auth.js's page is not ours:
it runs in a plain guarded context, outside the demo's CSP watch.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest
import pytest_asyncio

from tests.e2e.conftest import SCHEMES, choose_theme, demo_page, guarded_context
from tests.e2e.test_gallery import GALLERY, check_png, screenshot
from tests.peers.authjs_pages import authjs_pages

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator
    from pathlib import Path

    from playwright.async_api import Browser, BrowserContext, Page, Route

    from tests.e2e.conftest import NewContext

SIZES = {"desktop": (900, 900), "phone": (375, 812)}
"""The viewports (width, height); the pictures show the whole page at that width."""
OAUTH_NAMES = {"GitHub", "Google", "GitLab", "Discord"}
"""The OAuth providers on both pages: the demo's (``DEMO_OAUTH``) and ``pages.mjs``'s."""
OFFLINE_HOSTS = {"authjs.dev": "image/svg+xml", "unpkg.com": "text/javascript"}
"""Hosts Auth.js's page loads from (provider logos; the passkey script), answered empty."""
BLANK = {"image/svg+xml": '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24"/>'}


def compare_file(side: str, scheme: str, size: str) -> Path:
    return GALLERY / f"compare-{side}-{scheme}-{size}.png"


@pytest.fixture(scope="module")
def authjs_server() -> Iterator[str]:
    """Auth.js on Express; its base URL (skips, or fails under CI, without the npm peer)."""
    with authjs_pages() as url:
        yield url


@pytest_asyncio.fixture(loop_scope="session")
async def new_authjs_context(
    browser: Browser, authjs_server: str, offsite_requests: list[str]
) -> AsyncIterator[NewContext]:
    """Fresh contexts on Auth.js, guarded to loopback, where the requests to
    ``OFFLINE_HOSTS`` get an empty answer; any other request off loopback fails the test."""
    contexts: list[BrowserContext] = []

    async def make(**kwargs: Any) -> BrowserContext:
        context = await guarded_context(browser, authjs_server, offsite_requests, **kwargs)
        contexts.append(context)

        async def empty(route: Route) -> None:
            kind = OFFLINE_HOSTS[urlsplit(route.request.url).hostname or ""]
            await route.fulfill(status=200, content_type=kind, body=BLANK.get(kind, ""))

        # routes added later are asked first: this one before the guard
        await context.route(lambda url: urlsplit(url).hostname in OFFLINE_HOSTS, empty)
        return context

    yield make
    for context in contexts:
        await context.close()
    if offsite_requests:
        pytest.fail("the browser tried to leave loopback: " + ", ".join(offsite_requests))


async def button_names(page: Page) -> list[str]:
    names: list[str] = await page.get_by_role("button").evaluate_all(
        "buttons => buttons.map(b => b.innerText.trim())"
    )
    return names


async def take(page: Page, target: Path, width: int, height: int, started: float) -> None:
    """The whole page at ``width`` into ``target``, checked."""
    full_height = await page.evaluate("document.documentElement.scrollHeight")
    await screenshot(page, target, full_page=True)
    check_png(target, started - 1, (width, max(height, full_height)))


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("scheme", SCHEMES)
async def test_beside_authjs(
    new_authjs_context: NewContext,
    new_demo_context: NewContext,
    authjs_server: str,
    demo_server: str,
    scheme: str,
    size: str,
) -> None:
    started = time.time()
    width, height = SIZES[size]
    options: dict[str, Any] = {
        "viewport": {"width": width, "height": height},
        "device_scale_factor": 1,
        "color_scheme": scheme,
        "reduced_motion": "reduce",
    }

    # Auth.js: its own default page, from the real server
    context = await new_authjs_context(**options)
    answer = await context.request.get("/auth/providers")
    assert answer.ok
    providers = (await answer.json()).values()
    assert {p["name"] for p in providers if p["type"] in ("oauth", "oidc")} == OAUTH_NAMES
    authjs = await context.new_page()
    response = await authjs.goto("/auth/signin")
    assert response is not None
    assert response.status == 200
    assert response.url == authjs_server + "/auth/signin"
    assert await response.header_value("x-powered-by") == "Express"
    authjs_buttons = await button_names(authjs)
    for name in OAUTH_NAMES:
        assert authjs_buttons.count(f"Sign in with {name}") == 1, authjs_buttons
    assert await authjs.get_by_label("Username").count() == 1
    assert await authjs.get_by_label("Password").count() == 1
    await take(authjs, compare_file("authjs", scheme, size), width, height, started)

    # authui: the demo's sign-in page, default pack
    page = await demo_page(new_demo_context, **options)
    await choose_theme(page, "default", scheme)
    response = await page.goto("/auth/signin")
    assert response is not None
    assert response.status == 200
    assert page.url == demo_server + "/auth/signin"
    authui_buttons = await button_names(page)
    offered = {m[1] for b in authui_buttons if (m := re.fullmatch(r"Continue with (.+)", b))}
    assert offered == OAUTH_NAMES, authui_buttons
    assert await page.get_by_label("Username").count() == 1
    assert await page.get_by_label("Password").count() == 2  # and the password accounts' form
    await take(page, compare_file("authui", scheme, size), width, height, started)
