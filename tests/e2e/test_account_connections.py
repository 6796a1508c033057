"""The account center's connected accounts in Chromium, against a real OpenID provider (npm
``oidc-provider``): a user who signed up through the provider sees the account on the
page, unlinks it (the sign-in link to their address stays as a way in), links it again
through the provider's round trip, and finds both in the security activity. On the demo
of Quart and of Starlette, with JavaScript on (htmx swaps the card) and off (plain posts).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from playwright.async_api import expect

from tests.e2e.account_support import notice
from tests.e2e.oidc_support import OIDCDemo, Variant, consent, log_in_at_provider
from tests.e2e.test_oidc_flows import NewPage, first_sign_in, new_page, oidc_demos

if TYPE_CHECKING:
    from playwright.async_api import Page

    from tests.e2e.oidc_support import OIDCDemos

__all__ = ["new_page", "oidc_demos"]  # fixtures, used by name

PROVIDER = "OpenID Connect"


def variant(framework: str) -> Variant:
    return Variant(f"connections-{framework}", "client_secret_basic", False, "database", framework)


async def linked_names(page: Page) -> list[str]:
    """The providers the connections page lists as linked."""
    found = page.locator("#authui-connections .authui-account-item-label")
    return [" ".join(text.split()) for text in await found.all_inner_texts()]


async def back_from_provider(page: Page, demo: OIDCDemo, login: str) -> None:
    """Go through whatever the provider asks this time (its login page, its consent page,
    or nothing when it remembers both) until the browser is back on the demo."""
    interaction = f"{demo.issuer}/interaction/"
    await page.wait_for_url(
        lambda url: url.startswith(interaction) or url.startswith(f"{demo.url}/auth/account")
    )
    if page.url.startswith(interaction):
        if await page.get_by_role("heading", name="Sign-in").count():
            await log_in_at_provider(page, login)
        await consent(page, demo)


@pytest.mark.parametrize("javascript", [True, False], ids=["js-on", "js-off"])
@pytest.mark.parametrize("framework", ["quart", "starlette"])
async def test_unlinking_and_linking_the_provider_again(
    oidc_demos: OIDCDemos, new_page: NewPage, framework: str, javascript: bool
) -> None:
    demo = oidc_demos.get(variant(framework))
    page = await new_page(demo, javascript=javascript)
    login = f"connect{framework}{'js' if javascript else 'plain'}"
    await first_sign_in(page, demo, login)

    await page.get_by_role("link", name="Account", exact=True).click()
    await page.wait_for_url(f"{demo.url}/auth/account")
    await page.get_by_role("link", name="Connected accounts", exact=True).first.click()
    await page.wait_for_url(f"{demo.url}/auth/account/connections")
    assert await linked_names(page) == [PROVIDER]

    await page.get_by_role("button", name=f"Unlink {PROVIDER}").click()
    assert await notice(page) == "The account is unlinked."
    assert await linked_names(page) == []
    if javascript:  # htmx swapped the card in: the address is the page's own, no notice
        assert page.url == f"{demo.url}/auth/account/connections"
    else:
        assert page.url == f"{demo.url}/auth/account/connections?notice=unlinked"

    await page.get_by_role("button", name=f"Link {PROVIDER}").click()
    await back_from_provider(page, demo, login)
    await expect(page.get_by_role("heading", name="Connected accounts")).to_be_visible()
    assert await linked_names(page) == [PROVIDER]

    await page.get_by_role("link", name="Security activity", exact=True).first.click()
    await page.wait_for_url(f"{demo.url}/auth/account/activity")
    labels = page.locator("#authui-activity .authui-event-label")
    shown = [" ".join(text.split()) for text in await labels.all_inner_texts()]
    assert shown[:3] == [
        f"Account linked · {PROVIDER}",
        f"Account unlinked · {PROVIDER}",
        f"Signed in · {PROVIDER}",
    ]
