"""The demo site signing in through a real OpenID provider (npm ``oidc-provider``): demo
variants started against their own provider, and the browser steps on the provider's
development login and consent pages.

Every variant is one demo process (hypercorn, its own SQLite database and secret) and one
provider process with one client, registered with that demo's redirect URI. Ordering: the
provider's socket is bound first (:func:`tests.peers.oidc_provider.reserved_oidc_provider`),
so its issuer URL is known and goes into the demo's environment; then the demo starts on
its own pre-bound port (:func:`tests.e2e.conftest.demo_site`); then the provider
process starts on its socket with the demo's callback URL as the client's redirect URI. The
demo fetches the provider's discovery document only when someone signs in, and a
connection made before the provider runs would just wait in the socket's backlog.

Hosts and cookies: both servers are on ``127.0.0.1`` (different ports). Cookies are per
host, not per port, so the browser sends both servers' cookies to both; their names do not
clash (the demo's are ``authjs.*``, ``theme`` and ``scheme``; the provider's are
``_session``, ``_interaction``, ``_interaction_resume`` and their ``.sig``), and
``context.clear_cookies(name=…)`` can remove one of the demo's cookies by name.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from tests.e2e.conftest import DemoWatch, demo_site
from tests.peers.oidc_provider import ClientAuth, OIDCProvider, client, reserved_oidc_provider

if TYPE_CHECKING:
    from playwright.async_api import (
        BrowserContext,
        ConsoleMessage,
        Page,
        Response,
        Route,
        WebError,
    )

PROVIDER_ID = "oidc"
SIGN_IN_BUTTON = "Continue with OpenID Connect"
PASSWORD = "any non-empty password"
"""The development login page accepts any login with any non-empty password."""


@dataclass(frozen=True)
class Variant:
    """One configuration of the demo and its provider."""

    id: str
    client_auth: ClientAuth
    """How the demo authenticates at the token endpoint (``none``: a public client, PKCE)."""
    claims_from_userinfo: bool
    """oidc-provider's ``conformIdTokenClaims``: ``True`` keeps ``name``/``email`` out of the
    id_token, so the demo completes the profile from userinfo; ``False`` puts them in the
    id_token."""
    session_strategy: Literal["database", "jwt"]
    framework: str = "quart"
    """The demo's integration (a key of ``DEMO_APPS``)."""
    federated_logout: bool = False
    """The demo's provider has ``federated_logout`` (``AUTH_OIDC_FEDERATED_LOGOUT``), and the
    provider's client registers the demo's ``/auth/signout/oidc`` as its post-logout
    redirect URI."""
    backchannel_logout: bool = False
    """The provider runs Back-Channel Logout and its client registers the demo's
    ``/auth/backchannel-logout/oidc``: a sign-out at the provider ends the demo's
    sessions."""
    refresh_tokens: bool = False
    """The provider issues refresh tokens that rotate, and access tokens of 30 seconds
    (under ``get_access_token``'s 60-second skew: every use refreshes first)."""


@dataclass(frozen=True)
class OIDCDemo:
    """A running demo variant and its provider."""

    variant: Variant
    url: str
    """``http://127.0.0.1:<port>``."""
    provider: OIDCProvider

    @property
    def issuer(self) -> str:
        return self.provider.issuer

    @property
    def callback_url(self) -> str:
        return f"{self.url}/auth/callback/{PROVIDER_ID}"

    @property
    def post_logout_redirect_uri(self) -> str:
        """Where the provider sends the browser back after a federated sign-out."""
        return f"{self.url}/auth/signout/{PROVIDER_ID}"

    @property
    def backchannel_logout_uri(self) -> str:
        """Where the provider posts its logout tokens."""
        return f"{self.url}/auth/backchannel-logout/{PROVIDER_ID}"


def _demo_env(variant: Variant, issuer: str, database: Path, secret: str | None) -> dict[str, str]:
    """The demo's environment: ours, without any ``AUTH_*`` setting of the caller's (which
    could enable other providers), plus this variant's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTH_")}
    env |= {
        "AUTH_SECRET": secrets.token_urlsafe(32),
        "AUTH_DATABASE_URL": f"sqlite+aiosqlite:///{database}",
        "AUTH_SESSION_STRATEGY": variant.session_strategy,
        "AUTH_OIDC_ID": f"authui-demo-{variant.id}",
        "AUTH_OIDC_ISSUER": issuer,
    }
    if secret is not None:
        env["AUTH_OIDC_SECRET"] = secret
    if variant.client_auth == "client_secret_post":
        env["AUTH_OIDC_CLIENT_AUTH"] = "client_secret_post"
    if variant.federated_logout:
        env["AUTH_OIDC_FEDERATED_LOGOUT"] = "true"
    return env


@contextlib.contextmanager
def oidc_demo(variant: Variant) -> Iterator[OIDCDemo]:
    """The demo configured by ``variant`` and its provider, both running; stopped on exit."""
    secret = None if variant.client_auth == "none" else secrets.token_urlsafe(24)
    with (
        tempfile.TemporaryDirectory(prefix="authui-oidc-demo-") as folder,
        reserved_oidc_provider() as provider,
    ):
        env = _demo_env(variant, provider.issuer, Path(folder) / "demo.db", secret)
        with demo_site(variant.framework, env) as url:
            demo = OIDCDemo(variant, url, provider)
            more: dict[str, Any] = {}
            if variant.federated_logout:
                more["post_logout_redirect_uris"] = [demo.post_logout_redirect_uri]
            if variant.backchannel_logout:
                more["backchannel_logout_uri"] = demo.backchannel_logout_uri
            registered = client(
                env["AUTH_OIDC_ID"],
                demo.callback_url,
                variant.client_auth,
                secret,
                refresh=variant.refresh_tokens,
                **more,
            )
            refresh = {"rotate": True, "accessTokenTtl": 30} if variant.refresh_tokens else None
            provider.start(
                [registered],
                conform_id_token_claims=variant.claims_from_userinfo,
                backchannel_logout=variant.backchannel_logout,
                refresh_tokens=refresh,
            )
            yield demo


class OIDCDemos:
    """Demo variants started on first use and kept until :meth:`close`."""

    def __init__(self) -> None:
        self._stack = contextlib.ExitStack()
        self._running: dict[Variant, OIDCDemo] = {}

    def get(self, variant: Variant) -> OIDCDemo:
        """The running demo of ``variant`` (started now if it is not running yet)."""
        if variant not in self._running:
            self._running[variant] = self._stack.enter_context(oidc_demo(variant))
        return self._running[variant]

    def close(self) -> None:
        self._stack.close()


# --- the browser ------------------------------------------------------------------------------


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def watch_demo_pages(context: BrowserContext, watch: DemoWatch, demo_url: str) -> None:
    """Report what happens on the demo's pages (not the provider's) to ``watch``: CSP
    violations, uncaught errors, and the auth pages' documents (checked for their CSP)."""
    origin = origin_of(demo_url)

    def on_console(message: ConsoleMessage) -> None:
        if message.page is not None and origin_of(message.page.url) == origin:
            watch.on_console(message)

    def on_response(response: Response) -> None:
        if origin_of(response.url) == origin:
            watch.on_response(response)

    def on_error(error: WebError) -> None:
        if error.page is None or origin_of(error.page.url) == origin:
            watch.page_errors.append(str(error.error))

    context.on("console", on_console)
    context.on("response", on_response)
    context.on("weberror", on_error)


async def open_sign_in(page: Page, demo: OIDCDemo, then: str = "/profile") -> None:
    """Open the demo's sign-in page, asking to come back to ``then``."""
    response = await page.goto(f"{demo.url}/auth/signin?{urlencode({'callbackUrl': then})}")
    assert response is not None
    assert response.ok, f"{response.status} {response.url}"


async def choose_oidc(page: Page, demo: OIDCDemo, label: str = SIGN_IN_BUTTON) -> None:
    """Press the demo's OpenID Connect button; the provider's login page opens."""
    await page.get_by_role("button", name=label).click()
    await page.wait_for_url(f"{demo.issuer}/interaction/**")
    await page.get_by_role("heading", name="Sign-in").wait_for()


async def log_in_at_provider(page: Page, login: str) -> None:
    """Fill the provider's development login page and submit it; its consent page opens."""
    await page.fill("input[name=login]", login)
    await page.fill("input[name=password]", PASSWORD)
    await page.click("button[type=submit]")
    await page.get_by_role("heading", name="Authorize").wait_for()


async def consent(page: Page, demo: OIDCDemo) -> str:
    """Allow the demo on the consent page; wait until the browser is back on the demo
    (past the callback's redirect) and return that URL."""
    scopes = page.locator(".login-card li")
    assert {s.strip() for s in await scopes.all_inner_texts()} >= {"profile", "email"}
    await page.get_by_role("button", name="Continue").click()
    return await back_on_demo(page, demo)


async def deny(page: Page, demo: OIDCDemo) -> str:
    """Cancel on the consent page (the provider answers ``access_denied``); return the demo
    URL the browser lands on."""
    await page.get_by_role("link", name="[ Cancel ]").click()
    return await back_on_demo(page, demo)


async def back_on_demo(page: Page, demo: OIDCDemo) -> str:
    await page.wait_for_url(
        lambda url: url.startswith(demo.url + "/") and not url.startswith(demo.callback_url)
    )
    return page.url


async def sign_in_with_oidc(page: Page, demo: OIDCDemo, login: str, then: str = "/profile") -> str:
    """The whole round trip from the demo's sign-in page: the button, the provider's login
    and consent pages; return the demo URL the browser lands on."""
    await open_sign_in(page, demo, then)
    await choose_oidc(page, demo)
    await log_in_at_provider(page, login)
    return await consent(page, demo)


async def leave_new_user_page(page: Page, demo: OIDCDemo) -> str:
    """Keep the suggested display name on the new-user page; return where it leads."""
    await page.get_by_role("button", name="Continue").click()
    await page.wait_for_url(lambda url: not url.startswith(f"{demo.url}/auth/new-user"))
    return page.url


async def profile(page: Page, demo: OIDCDemo) -> dict[str, Any]:
    """Open the demo's profile page; what it shows (``None`` values when signed out, which
    sends the browser to the sign-in page instead)."""
    await page.goto(f"{demo.url}/profile")
    if not page.url.startswith(f"{demo.url}/profile"):
        return {"url": page.url, "name": None, "email": None, "id": None, "signed_in_as": None}
    marker = page.locator("#signed-in-as")
    return {
        "url": page.url,
        "name": await page.text_content("#profile-name"),
        "email": await page.text_content("#profile-email"),
        "id": await page.text_content("#profile-id"),
        "signed_in_as": await marker.text_content() if await marker.count() else None,
    }


async def tamper_with_the_return(page: Page, demo: OIDCDemo, **changes: str) -> None:
    """Change the query parameters (``state``, ``iss``, …) of the demo callback URL that the
    provider sends the browser to after consent.

    Playwright does not route the hops of a redirect chain, and the provider reaches the
    callback through one (consent POST → 303 ``/auth/<uid>`` → 303 callback). So the
    consent POST is routed instead: it and the following hops are sent here, without
    following redirects (sharing the context's cookies), until one points at the callback;
    the browser then gets a 303 to that URL with ``changes`` applied."""

    async def on_submit(route: Route) -> None:
        request = route.request
        if request.method != "POST" or "prompt=consent" not in (request.post_data or ""):
            await route.fallback()
            return
        answer = await route.fetch(max_redirects=0)
        location = urljoin(request.url, answer.headers.get("location", ""))
        for _ in range(5):
            if location.startswith(demo.callback_url):
                break
            answer = await page.context.request.get(location, max_redirects=0)
            location = urljoin(location, answer.headers.get("location", ""))
        else:
            raise AssertionError(f"the provider did not send the browser back: {location}")
        parts = urlsplit(location)
        query = urlencode(dict(parse_qsl(parts.query)) | changes)
        await route.fulfill(
            status=303, headers={"Location": urlunsplit(parts._replace(query=query))}
        )

    await page.route(f"{demo.issuer}/interaction/**", on_submit)
