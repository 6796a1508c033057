"""Signing in to the demo site through a real OpenID provider (npm ``oidc-provider``) in
Chromium: the demo's button, the provider's login and consent pages, the callback, and
what the user sees after: the profile, the new-user page, or an error.

Demo variants (see ``oidc_support``) cover every client authentication
(``client_secret_basic``, ``client_secret_post``, a public client with PKCE), both places
the claims come from (the id_token, or userinfo only: oidc-provider's
``conformIdTokenClaims``) and both session strategies (database, JWT). Each variant starts
once per module, on first use. Every scenario runs in a fresh browser context (the
provider's single sign-on would otherwise skip its login page), guarded to loopback and
watched like the demo's other browser tests on the demo's pages (CSP violations, uncaught
errors, auth pages without their CSP header). Logins are distinct per test: the variants'
databases live as long as the module.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import TYPE_CHECKING
from urllib.parse import urlencode

import httpx
import pytest
import pytest_asyncio

from tests.e2e.conftest import (
    CSP_REPORTER,
    DEMO_EMAIL,
    DEMO_USER,
    DemoWatch,
    fill_sign_in,
    guarded_context,
)
from tests.e2e.oidc_support import (
    SIGN_IN_BUTTON,
    OIDCDemo,
    OIDCDemos,
    Variant,
    choose_oidc,
    consent,
    deny,
    leave_new_user_page,
    log_in_at_provider,
    open_sign_in,
    profile,
    sign_in_with_oidc,
    tamper_with_the_return,
    watch_demo_pages,
)

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Page, Response

MAIN = Variant("basic-idtoken-database", "client_secret_basic", False, "database")
"""The variant of the scenarios that do not depend on the configuration."""
JWT = Variant("post-idtoken-jwt", "client_secret_post", False, "jwt")
PUBLIC = Variant("public-userinfo-jwt", "none", True, "jwt")
FASTAPI = Variant(
    "fastapi-basic-idtoken-database", "client_secret_basic", False, "database", "fastapi"
)
"""MAIN on the FastAPI demo."""
FASTAPI_PUBLIC = Variant("fastapi-public-userinfo-jwt", "none", True, "jwt", "fastapi")
VARIANTS = [
    MAIN,
    JWT,
    PUBLIC,
    Variant("basic-userinfo-database", "client_secret_basic", True, "database"),
    FASTAPI,
    FASTAPI_PUBLIC,
]
"""Every client authentication, both claims sources and both session strategies, with every
(claims source, session strategy) pair; on Quart, and two of them on FastAPI."""
SESSION_STRATEGIES = pytest.mark.parametrize(
    "variant", [MAIN, JWT], ids=[MAIN.session_strategy, JWT.session_strategy]
)

CONNECT_BUTTON = "Connect OpenID Connect"
"""The profile page's button that links another account to the signed-in user."""
NOT_LINKED = "To confirm your identity, sign in with the same account you used originally."
TRY_ANOTHER = "Try signing in with a different account."
SERVER_ERROR = (
    "There is a problem with the server configuration. Check the server logs for more information."
)

NewPage = Callable[..., Awaitable["Page"]]


# --- fixtures ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def oidc_demos() -> Iterator[OIDCDemos]:
    """The demo variants of this module, each started on first use."""
    demos = OIDCDemos()
    try:
        yield demos
    finally:
        demos.close()


@pytest_asyncio.fixture(loop_scope="session")
async def new_page(
    browser: Browser, offsite_requests: list[str], demo_watch: DemoWatch
) -> AsyncIterator[NewPage]:
    """``await new_page(demo, javascript=True)``: a page in a fresh context on ``demo``,
    guarded to loopback and watched on the demo's pages; the test fails on a request off
    loopback, a CSP violation, an uncaught error, or an auth page without its CSP header.
    The provider's error lines logged meanwhile are printed (pytest shows them when a test
    fails)."""
    contexts: list[BrowserContext] = []
    errors_before: dict[OIDCDemo, int] = {}

    async def make(demo: OIDCDemo, *, javascript: bool = True) -> Page:
        context = await guarded_context(
            browser, demo.url, offsite_requests, java_script_enabled=javascript
        )
        contexts.append(context)
        errors_before.setdefault(demo, len(demo.provider.errors()))
        await context.add_init_script(CSP_REPORTER)
        watch_demo_pages(context, demo_watch, demo.url)
        return await context.new_page()

    yield make
    problems = await demo_watch.problems()
    for context in contexts:
        await context.close()
    for demo, before in errors_before.items():
        for line in demo.provider.errors()[before:]:
            print(f"[{demo.variant.id}] {line}")
    if offsite_requests:
        problems.append("the browser tried to leave loopback: " + ", ".join(offsite_requests))
    if problems:
        pytest.fail("\n".join(problems))


# --- helpers ----------------------------------------------------------------------------------


async def alert_text(page: Page) -> str:
    alert = page.get_by_role("alert")
    await alert.wait_for()
    return " ".join((await alert.inner_text()).split())


async def assert_signed_out(page: Page, demo: OIDCDemo) -> None:
    shown = await profile(page, demo)
    assert shown["url"].startswith(f"{demo.url}/auth/signin"), shown
    assert shown["signed_in_as"] is None


async def first_sign_in(page: Page, demo: OIDCDemo, login: str) -> dict[str, object]:
    """A new user's sign-in: the new-user page (name suggested from the claims), then the
    profile; returns what the profile shows."""
    landed = await sign_in_with_oidc(page, demo, login)
    assert landed == f"{demo.url}/auth/new-user?" + urlencode(
        {"callbackUrl": demo.url + "/profile"}
    )
    assert await page.get_by_label("Display name").input_value() == login.capitalize()
    assert await leave_new_user_page(page, demo) == f"{demo.url}/profile"
    return await profile(page, demo)


def callback_statuses(page: Page, demo: OIDCDemo) -> list[int]:
    """The statuses of the demo's callback responses on ``page``, as they arrive."""
    statuses: list[int] = []

    def on_response(response: Response) -> None:
        if response.url.startswith(demo.callback_url):
            statuses.append(response.status)

    page.on("response", on_response)
    return statuses


async def assert_refused(page: Page, demo: OIDCDemo, landed: str, statuses: list[int]) -> None:
    """The callback answered with a redirect (not a server failure) to the error page, which
    shows the configuration error; nobody is signed in."""
    assert statuses, "the callback was never requested"
    assert all(300 <= s < 400 for s in statuses), statuses
    assert landed == f"{demo.url}/auth/error?error=Configuration"
    assert await page.get_by_role("heading", name="Server error").is_visible()
    assert SERVER_ERROR in " ".join((await page.inner_text("body")).split())
    await assert_signed_out(page, demo)


# --- the provider -----------------------------------------------------------------------------


async def test_the_provider_publishes_its_discovery_document(oidc_demos: OIDCDemos) -> None:
    """The peer itself: the metadata the demo reads (a failure here is not the demo's)."""
    demo = oidc_demos.get(MAIN)
    url = f"{demo.issuer}/.well-known/openid-configuration"
    async with httpx.AsyncClient(timeout=5) as client:
        answer = await client.get(url)
    assert answer.status_code == 200
    metadata = answer.json()
    assert metadata["issuer"] == demo.issuer
    assert metadata["authorization_response_iss_parameter_supported"] is True
    assert {"openid", "profile", "email"} <= set(metadata["scopes_supported"])
    assert {"client_secret_basic", "client_secret_post", "none"} <= set(
        metadata["token_endpoint_auth_methods_supported"]
    )
    for endpoint in ("authorization_endpoint", "token_endpoint", "userinfo_endpoint", "jwks_uri"):
        assert metadata[endpoint].startswith(demo.issuer + "/")


# --- signing in -------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS, ids=[v.id for v in VARIANTS])
async def test_sign_in_through_login_and_consent(
    oidc_demos: OIDCDemos, new_page: NewPage, variant: Variant
) -> None:
    demo = oidc_demos.get(variant)
    page = await new_page(demo)
    shown = await first_sign_in(page, demo, "ada")
    assert shown["name"] == "Ada"
    assert shown["email"] == "ada@example.com"
    assert shown["signed_in_as"] == "Signed in as Ada"
    assert shown["id"]


@pytest.mark.parametrize("variant", [MAIN, FASTAPI], ids=["quart", "fastapi"])
async def test_sign_in_without_javascript(
    oidc_demos: OIDCDemos, new_page: NewPage, variant: Variant
) -> None:
    demo = oidc_demos.get(variant)
    page = await new_page(demo, javascript=False)
    shown = await first_sign_in(page, demo, "nojs")
    assert shown["name"] == "Nojs"
    assert shown["email"] == "nojs@example.com"


@SESSION_STRATEGIES
async def test_a_second_sign_in_finds_the_linked_account(
    oidc_demos: OIDCDemos, new_page: NewPage, variant: Variant
) -> None:
    demo = oidc_demos.get(variant)
    first = await first_sign_in(await new_page(demo), demo, "grace")

    # A new browser: the provider asks for the login again; the demo knows the account.
    page = await new_page(demo)
    assert await sign_in_with_oidc(page, demo, "grace") == f"{demo.url}/profile"
    again = await profile(page, demo)
    assert again["id"] == first["id"]
    assert again["email"] == "grace@example.com"
    assert again["name"] == "Grace"


@pytest.mark.parametrize(
    ("variant", "start_on", "button"),
    [
        pytest.param(MAIN, "/profile", CONNECT_BUTTON, id="database-connect-on-profile"),
        pytest.param(JWT, "/auth/signin", SIGN_IN_BUTTON, id="jwt-sign-in-page"),
        pytest.param(FASTAPI, "/profile", CONNECT_BUTTON, id="fastapi-connect-on-profile"),
    ],
)
async def test_signing_in_while_signed_in_links_the_account(
    oidc_demos: OIDCDemos, new_page: NewPage, variant: Variant, start_on: str, button: str
) -> None:
    demo = oidc_demos.get(variant)
    page = await new_page(demo)
    await page.goto("/auth/signin?" + urlencode({"callbackUrl": "/profile"}))
    await fill_sign_in(page, DEMO_USER["username"], DEMO_USER["password"])
    await page.wait_for_url(f"{demo.url}/profile")
    demo_user = await profile(page, demo)
    assert demo_user["email"] == DEMO_EMAIL

    # The demo user connects the provider's account "someoneelse" (another email).
    if start_on == "/auth/signin":
        await open_sign_in(page, demo)
    await choose_oidc(page, demo, button)
    await log_in_at_provider(page, "someoneelse")
    assert await consent(page, demo) == f"{demo.url}/profile"
    assert await profile(page, demo) == demo_user

    # That account now signs in as the demo user, in a new browser too.
    page = await new_page(demo)
    assert await sign_in_with_oidc(page, demo, "someoneelse") == f"{demo.url}/profile"
    linked = await profile(page, demo)
    assert (linked["id"], linked["name"], linked["email"]) == (
        demo_user["id"],
        DEMO_USER["name"],
        DEMO_EMAIL,
    )


# --- refused sign-ins -------------------------------------------------------------------------


async def test_an_email_of_another_user_is_not_linked(
    oidc_demos: OIDCDemos, new_page: NewPage
) -> None:
    """Login ``demo`` at the provider has the email of the demo's credentials user."""
    demo = oidc_demos.get(MAIN)
    page = await new_page(demo)
    landed = await sign_in_with_oidc(page, demo, "demo")
    assert landed == f"{demo.url}/auth/signin?error=OAuthAccountNotLinked"
    assert await alert_text(page) == NOT_LINKED
    await assert_signed_out(page, demo)


async def test_denied_consent(oidc_demos: OIDCDemos, new_page: NewPage) -> None:
    demo = oidc_demos.get(MAIN)
    page = await new_page(demo)
    await open_sign_in(page, demo)
    await choose_oidc(page, demo)
    await log_in_at_provider(page, "linus")
    landed = await deny(page, demo)
    assert landed == f"{demo.url}/auth/signin?error=OAuthCallbackError"
    assert await alert_text(page) == TRY_ANOTHER
    await assert_signed_out(page, demo)


async def test_a_tampered_state_is_refused(oidc_demos: OIDCDemos, new_page: NewPage) -> None:
    demo = oidc_demos.get(MAIN)
    page = await new_page(demo)
    statuses = callback_statuses(page, demo)
    await tamper_with_the_return(page, demo, state="tampered-state")
    landed = await sign_in_with_oidc(page, demo, "mallory")
    await assert_refused(page, demo, landed, statuses)

    # Nothing was stored: the same login, untampered, in a new browser is a new user.
    shown = await first_sign_in(await new_page(demo), demo, "mallory")
    assert shown["email"] == "mallory@example.com"


async def test_a_wrong_issuer_is_refused(oidc_demos: OIDCDemos, new_page: NewPage) -> None:
    demo = oidc_demos.get(MAIN)
    page = await new_page(demo)
    statuses = callback_statuses(page, demo)
    await tamper_with_the_return(page, demo, iss="http://127.0.0.1:1")
    landed = await sign_in_with_oidc(page, demo, "trudy")
    await assert_refused(page, demo, landed, statuses)


async def test_a_lost_pkce_verifier_is_refused(oidc_demos: OIDCDemos, new_page: NewPage) -> None:
    """The public client, for which PKCE is the only proof of the code's requester."""
    demo = oidc_demos.get(PUBLIC)
    page = await new_page(demo)
    statuses = callback_statuses(page, demo)
    await open_sign_in(page, demo)
    await choose_oidc(page, demo)
    context = page.context
    assert [c for c in await context.cookies() if c["name"] == "authjs.pkce.code_verifier"]
    await context.clear_cookies(name="authjs.pkce.code_verifier")
    await log_in_at_provider(page, "eve")
    landed = await consent(page, demo)
    await assert_refused(page, demo, landed, statuses)
