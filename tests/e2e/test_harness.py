"""The browser harness itself: the loopback guard."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.async_api import Page, Route


async def test_requests_leaving_loopback_are_aborted_and_recorded(
    page: Page, offsite_requests: list[str]
) -> None:
    async def fixture_page(route: Route) -> None:
        await route.fulfill(
            content_type="text/html",
            body='<!DOCTYPE html><img src="https://example.com/pixel.png" alt="">',
        )

    await page.route("**/fixture-page", fixture_page)
    async with page.expect_event("requestfailed") as failed:
        await page.goto("/fixture-page")
    assert (await failed.value).url == "https://example.com/pixel.png"
    assert offsite_requests == ["GET https://example.com/pixel.png"]
    offsite_requests.clear()  # seen and expected: don't fail this test for it
