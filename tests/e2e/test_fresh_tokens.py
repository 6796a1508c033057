"""The demo's "Call its userinfo with a fresh token" in Chromium, against a real OpenID
provider (npm ``oidc-provider``) whose access tokens last 30 seconds and whose refresh
tokens rotate: each call refreshes the token once (``get_access_token``) and the provider's
userinfo answers for the signed-in user; a refresh the provider refuses is said on the page,
never a server error. On every integration of the demo."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.e2e.oidc_support import OIDCDemos, Variant
from tests.e2e.test_oidc_flows import NewPage, first_sign_in, new_page, oidc_demos

if TYPE_CHECKING:
    from playwright.async_api import Page

__all__ = ["new_page", "oidc_demos"]  # fixtures, used by name


def variant(framework: str) -> Variant:
    return Variant(
        f"fresh-{framework}", "client_secret_basic", True, "jwt", framework, refresh_tokens=True
    )


async def call_userinfo(page: Page) -> tuple[str | None, str | None]:
    """Press the profile's button; what the page shows: userinfo, or the error."""
    await page.get_by_role("link", name="Call its userinfo with a fresh token").click()
    await page.wait_for_load_state()
    found = page.locator("#userinfo")
    error = page.locator("#userinfo-error")
    return (
        await found.inner_text() if await found.count() else None,
        await error.inner_text() if await error.count() else None,
    )


@pytest.mark.parametrize("framework", ["quart", "starlette", "fastapi"])
async def test_the_profile_calls_the_provider_with_a_fresh_token(
    oidc_demos: OIDCDemos, new_page: NewPage, framework: str
) -> None:
    demo = oidc_demos.get(variant(framework))
    page = await new_page(demo)
    login = f"fresh{framework}"
    assert (await first_sign_in(page, demo, login))["email"] == f"{login}@example.com"
    refreshes = demo.provider.grants("refresh_token")

    for turn in (1, 2):  # the second call spends the refresh token the first one got
        userinfo, error = await call_userinfo(page)
        assert error is None
        assert userinfo is not None
        assert f'"email": "{login}@example.com"' in userinfo
        assert demo.provider.grants("refresh_token") == refreshes + turn
    assert demo.provider.errors() == []
