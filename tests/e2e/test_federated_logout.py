"""Federated sign-out (OpenID Connect RP-Initiated Logout 1.0) in Chromium against a real
OpenID provider (npm ``oidc-provider``): the demo signs in through the provider, its
built-in sign-out page sends the browser to the provider's logout confirmation, and back.

The demo variant here has ``AUTH_OIDC_FEDERATED_LOGOUT=true`` and its client at the
provider registers ``<demo>/auth/signout/oidc`` as a post-logout redirect URI (see
``oidc_support``). Both ends are checked: the demo's session is gone, and so is the
provider's (a new sign-in asks for the login again). The control: the ordinary sign-out,
which leaves the provider's session, so that the next sign-in goes straight through.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest

from tests.e2e.oidc_support import (
    SIGN_IN_BUTTON,
    OIDCDemos,
    Variant,
    back_on_demo,
    choose_oidc,
    open_sign_in,
)
from tests.e2e.test_oidc_flows import (
    NewPage,
    assert_signed_out,
    first_sign_in,
    new_page,
    oidc_demos,
)

if TYPE_CHECKING:
    from playwright.async_api import Page, Request

__all__ = ["new_page", "oidc_demos"]  # fixtures, used by name

FEDERATED = Variant(
    "federated-basic-idtoken-jwt", "client_secret_basic", False, "jwt", federated_logout=True
)
"""A confidential client with JWT sessions, whose provider has ``federated_logout``."""
BACKCHANNEL = Variant(
    "backchannel-basic-idtoken-database",
    "client_secret_basic",
    False,
    "database",
    backchannel_logout=True,
)
"""A confidential client with database sessions, whose provider sends logout tokens."""
PROVIDER_NAME = "OpenID Connect"
"""The demo's label of its ``oidc`` provider (``AUTH_OIDC_NAME`` unset)."""


def requests_to(page: Page, prefix: str) -> list[tuple[str, str, dict[str, str]]]:
    """The requests of ``page`` to URLs starting with ``prefix``: (method, path, query), in
    order, as they are sent."""
    seen: list[tuple[str, str, dict[str, str]]] = []

    def on_request(request: Request) -> None:
        if request.url.startswith(prefix):
            parts = urlsplit(request.url)
            seen.append((request.method, parts.path, dict(parse_qsl(parts.query))))

    page.on("request", on_request)
    return seen


@pytest.mark.parametrize("javascript", [True, False], ids=["htmx", "no-javascript"])
async def test_signing_out_of_the_provider_too(
    oidc_demos: OIDCDemos, new_page: NewPage, javascript: bool
) -> None:
    demo = oidc_demos.get(FEDERATED)
    page = await new_page(demo, javascript=javascript)
    login = "fedora" if javascript else "fedoranojs"
    assert (await first_sign_in(page, demo, login))["email"] == f"{login}@example.com"

    # The built-in sign-out page says where else the user is signed out, and posts it.
    await page.goto(f"{demo.url}/auth/signout?{urlencode({'callbackUrl': '/'})}")
    to_demo = requests_to(page, f"{demo.url}/auth/signout")
    to_provider = requests_to(page, f"{demo.issuer}/session/end")
    text = " ".join((await page.inner_text("body")).split())
    assert f"You will also be signed out of {PROVIDER_NAME}." in text
    await page.get_by_role("button", name="Sign out").click()

    # The provider asks to confirm; the browser comes back through the demo's return.
    await page.wait_for_url(f"{demo.issuer}/session/end**")
    await page.get_by_role("button", name="Yes, sign me out").click()
    assert await back_on_demo(page, demo) == f"{demo.url}/"
    [ending, *_] = to_provider
    assert ending[:2] == ("GET", "/session/end")
    sent = ending[2]
    assert set(sent) == {"id_token_hint", "client_id", "post_logout_redirect_uri", "state"}
    assert sent["client_id"] == f"authui-demo-{FEDERATED.id}"
    assert sent["post_logout_redirect_uri"] == demo.post_logout_redirect_uri
    assert to_demo == [
        ("POST", "/auth/signout", {}),
        ("GET", "/auth/signout/oidc", {"state": sent["state"]}),
    ]

    # Signed out of the demo, and of the provider: a new sign-in asks for the login.
    await assert_signed_out(page, demo)
    await open_sign_in(page, demo)
    await choose_oidc(page, demo)  # waits for the provider's login page
    assert demo.provider.errors() == []


async def test_an_ordinary_sign_out_leaves_the_provider_signed_in(
    oidc_demos: OIDCDemos, new_page: NewPage
) -> None:
    """The control: the demo's own "Sign out" button does not ask for the federated
    sign-out, so the provider's session stays and the next sign-in needs no login."""
    demo = oidc_demos.get(FEDERATED)
    page = await new_page(demo)
    await first_sign_in(page, demo, "stayer")

    await page.get_by_role("button", name="Sign out").click()
    await page.wait_for_url(f"{demo.url}/")
    await assert_signed_out(page, demo)

    await open_sign_in(page, demo)
    to_provider = requests_to(page, f"{demo.issuer}/")
    await page.get_by_role("button", name=SIGN_IN_BUTTON).click()
    await page.wait_for_url(f"{demo.url}/profile")  # no login page, no consent page
    assert ("GET", "/auth") in [(method, path) for method, path, _ in to_provider]
    signed_in_as = page.locator("#signed-in-as")
    assert await signed_in_as.text_content() == "Signed in as Stayer"


async def test_signing_out_at_the_provider_ends_the_app_s_sessions(
    oidc_demos: OIDCDemos, new_page: NewPage
) -> None:
    """Back-Channel Logout: the user signs out on the provider's own page; the provider
    posts a logout token to the demo, which ends the user's database session there."""
    demo = oidc_demos.get(BACKCHANNEL)
    page = await new_page(demo)
    assert (await first_sign_in(page, demo, "backie"))["email"] == "backie@example.com"

    await page.goto(f"{demo.issuer}/session/end")  # at the provider, not through the app
    await page.get_by_role("button", name="Yes, sign me out").click()
    await page.wait_for_load_state()

    await assert_signed_out(page, demo)  # the demo's cookie is still there; its session is not
    assert demo.provider.errors() == []


async def test_the_browser_client_signs_out_of_the_provider_too(
    oidc_demos: OIDCDemos, new_page: NewPage
) -> None:
    """``authui.signOut({federated: true})`` (here on an auth page, which loads authui.js):
    the provider's confirmation, then back on the app, signed out of both."""
    demo = oidc_demos.get(FEDERATED)
    page = await new_page(demo)
    await first_sign_in(page, demo, "scripted")
    await page.goto(f"{demo.url}/auth/signout")
    await page.wait_for_function("() => window.authui !== undefined")

    await page.evaluate("() => { authui.signOut({federated: true, redirectTo: '/'}); }")
    await page.wait_for_url(f"{demo.issuer}/session/end**")
    await page.get_by_role("button", name="Yes, sign me out").click()
    assert await back_on_demo(page, demo) == f"{demo.url}/"

    await assert_signed_out(page, demo)
    await open_sign_in(page, demo)
    await choose_oidc(page, demo)  # the provider asks for the login again
