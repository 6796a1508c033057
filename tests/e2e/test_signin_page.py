"""The sign-in page with many providers, in Chromium: thirteen OAuth buttons become a grid
of marks (some brands without one, shown as monograms), every mark loads from authui's own
static route, the page is axe-clean in every pack, light and dark, on a phone (375 px) and a
desktop; and the provider a browser signed in with is marked "Last used" there.

The demo runs here with thirteen built-in OAuth providers configured (never pressed: the
services are offline), on its own server for this module.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from playwright.async_api import expect

from tests.e2e.conftest import (
    DEMO_USER,
    SCHEMES,
    SHIPPED_PACKS,
    choose_theme,
    demo_env,
    demo_page,
    demo_site,
    fill_sign_in,
)
from tests.e2e.test_accessibility import axe_source, failures, run_axe

if TYPE_CHECKING:
    from tests.e2e.conftest import NewContext

__all__ = ["axe_source"]  # the fixture, used by name

CROWD = (
    "azure-ad",
    "concept2",
    "discord",
    "freshbooks",
    "github",
    "gitlab",
    "google",
    "notion",
    "reddit",
    "spotify",
    "strava",
    "twitch",
    "zoom",
)
"""Providers with a mark and three without (azure-ad, concept2, freshbooks)."""
WITHOUT_MARK = {"azure-ad", "concept2", "freshbooks"}
VIEWPORTS = {"phone": (375, 812), "desktop": (1280, 900)}
ALL_MARKS_LOADED = """() => [...document.images].every((image) => image.complete
  && image.naturalWidth > 0 && new URL(image.currentSrc).origin === location.origin)"""


@pytest.fixture(scope="module")
def demo_server() -> Iterator[str]:
    """The Quart demo with the thirteen providers configured."""
    env_name = {p: p.upper().replace("-", "_") for p in CROWD}
    with tempfile.TemporaryDirectory(prefix="authui-demo-crowd-") as folder:
        env = demo_env(Path(folder) / "demo.db")
        for provider in CROWD:
            env[f"AUTH_{env_name[provider]}_ID"] = f"demo-{provider}-id"
            env[f"AUTH_{env_name[provider]}_SECRET"] = f"demo-{provider}-secret"
        with demo_site("quart", env) as url:
            yield url


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("pack", SHIPPED_PACKS)
async def test_a_crowded_sign_in_page_is_a_clean_grid_of_marks(
    new_demo_context: NewContext, axe_source: str, pack: str, scheme: str, viewport: str
) -> None:
    width, height = VIEWPORTS[viewport]
    page = await demo_page(
        new_demo_context, color_scheme=scheme, viewport={"width": width, "height": height}
    )
    await choose_theme(page, pack, scheme, then="/auth/signin")
    await page.wait_for_load_state("load")

    grid = page.locator(".authui-provider-grid")
    await expect(grid.get_by_role("button")).to_have_count(len(CROWD))
    for provider in CROWD:
        name = await page.locator(f".authui-provider-{provider}").get_attribute("title")
        assert name is not None
        assert name.startswith("Continue with ")
        await expect(grid.get_by_role("button", name=name, exact=True)).to_be_visible()
    monograms = page.locator(".authui-provider-monogram")
    await expect(monograms).to_have_count(len(WITHOUT_MARK))
    assert await page.evaluate(ALL_MARKS_LOADED), "a mark did not load from this site"
    assert await page.evaluate("() => document.images.length") == len(CROWD) - len(WITHOUT_MARK)
    # Nothing sticks out sideways on a phone.
    assert await page.evaluate("() => document.documentElement.scrollWidth") <= width

    problems = failures(
        f"/auth/signin ({pack}, {scheme}, {viewport})", await run_axe(page, axe_source)
    )
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("pack", SHIPPED_PACKS)
async def test_the_provider_signed_in_with_is_marked_last_used(
    new_demo_context: NewContext, demo_server: str, axe_source: str, pack: str
) -> None:
    page = await demo_page(new_demo_context)
    await choose_theme(page, pack, "light", then="/auth/signin")
    await expect(page.locator(".authui-last-used")).to_have_count(0)

    await fill_sign_in(page, DEMO_USER["username"], DEMO_USER["password"])
    await page.wait_for_url(f"{demo_server}/")
    await page.goto("/auth/signin")
    badge = page.locator(".authui-last-used")
    await expect(badge).to_have_count(1)
    await expect(badge).to_have_text("Last used")
    await expect(page.locator("form#authui-form-credentials .authui-last-used")).to_be_visible()
    cookies = {c["name"]: c for c in await page.context.cookies()}
    assert cookies["authui.last-used"]["value"] == "credentials"
    assert cookies["authui.last-used"]["httpOnly"]
    assert cookies["authui.last-used"]["sameSite"] == "Lax"

    problems = failures(f"/auth/signin, last used ({pack})", await run_axe(page, axe_source))
    assert not problems, "\n".join(problems)
