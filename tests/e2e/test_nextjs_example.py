"""The Next.js + FastAPI example (``examples/nextjs-fastapi``), built and used in Chromium.

The real Next.js app (``next build``, then ``next start``: a production server, over plain
HTTP) signs users in with next-auth; the real FastAPI service reads its sessions with authui.
The browser reaches them only through a reverse proxy on another port and host name, which
passes requests on with Next.js's own ``Host``: the app knows its public origin only from
``AUTH_URL``. The code that ``docs/how-to/nextjs-session.md`` shows is the example's.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest
import pytest_asyncio
from playwright.async_api import expect

from authui.jwt import encode
from tests.e2e.conftest import ROOT, guarded_context
from tests.peers import nextjs
from tests.peers.availability import peer_missing
from tests.peers.servers import asgi_servers

if TYPE_CHECKING:
    from playwright.async_api import Browser, Page

DOC = ROOT / "docs" / "how-to" / "nextjs-session.md"
USER = {"username": "demo", "password": "demo", "name": "Demo User", "email": "demo@example.com"}
REFUSED = re.compile(r'^401 \{"detail":"Sign in to access this resource\."\}$')


@dataclass(frozen=True)
class Example:
    """The example running behind the proxy."""

    url: str
    """The public origin, ``http://localhost:<port>``: the proxy, and ``AUTH_URL``."""
    secret: str
    """``AUTH_SECRET``, shared by both sides."""


def api_env(secret: str, auth_url: str) -> dict[str, str]:
    """The FastAPI service's environment: the shared secret and the public origin."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTH_", "NEXTAUTH_"))}
    return {**env, "AUTH_SECRET": secret, "AUTH_URL": auth_url}


@pytest.fixture(scope="module")
def example() -> Iterator[Example]:
    """The example built once (``npm ci`` when needed, ``next build``) and served behind the
    proxy; without node or npm, skip, or fail under ``CI=true``."""
    reason = nextjs.missing()
    if reason is not None:
        peer_missing(
            f"the Next.js example cannot run: {reason}; install Node.js 20.9 or newer, with npm"
        )
    secret = secrets.token_urlsafe(32)
    with contextlib.ExitStack() as stack:
        listener = stack.enter_context(nextjs.listening_socket())
        public = f"http://localhost:{listener.getsockname()[1]}"
        (api,) = stack.enter_context(
            asgi_servers(
                nextjs.API_APP, 1, api_env(secret, public), server="uvicorn", cwd=nextjs.API
            )
        )
        nextjs.install()
        nextjs.build(api)
        web = stack.enter_context(
            nextjs.next_server({"AUTH_SECRET": secret, "AUTH_URL": public, "API_URL": api})
        )
        stack.enter_context(nextjs.reverse_proxy(listener, web))
        yield Example(url=public, secret=secret)


@pytest_asyncio.fixture(loop_scope="session")
async def page(
    browser: Browser, example: Example, offsite_requests: list[str]
) -> AsyncIterator[Page]:
    """A page in a fresh context on the public origin; the test fails on an uncaught
    JavaScript error or a request off loopback."""
    context = await guarded_context(browser, example.url, offsite_requests)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    await context.close()
    if offsite_requests:
        pytest.fail("the browser tried to leave loopback: " + ", ".join(offsite_requests))
    if errors:
        pytest.fail("uncaught JavaScript errors: " + "; ".join(errors))


async def sign_in(page: Page, password: str = USER["password"]) -> None:
    """Fill and send next-auth's own sign-in form, which ``page`` shows."""
    await page.get_by_label("Username").fill(USER["username"])
    await page.get_by_label("Password").fill(password)
    await page.get_by_role("button", name="Sign in with Credentials").click()


async def expect_signed_out(page: Page) -> None:
    """The greeting for nobody, and both calls refused by FastAPI."""
    await expect(page.get_by_role("heading", level=1)).to_have_text("Hello, stranger!")
    await expect(page.get_by_text("Not signed in.")).to_be_visible()
    await expect(page.locator("#server-me")).to_have_text(REFUSED)
    await expect(page.locator("#client-me")).to_have_text(REFUSED)


async def expect_signed_in(page: Page) -> None:
    """The greeting, and both calls answered by FastAPI with the user's session."""
    await expect(page.get_by_role("heading", level=1)).to_have_text(f"Hello, {USER['name']}!")
    await expect(page.get_by_text(f"Signed in as {USER['email']}.")).to_be_visible()
    for call in ("#server-me", "#client-me"):
        answer = page.locator(call)
        await expect(answer).to_have_text(re.compile(r"^200 \{"))
        await expect(answer).to_contain_text(f'"name":"{USER["name"]}"')
        await expect(answer).to_contain_text(f'"email":"{USER["email"]}"')


async def test_signed_out_the_api_refuses_and_greets_a_stranger(page: Page) -> None:
    await page.goto("/")
    await expect_signed_out(page)


async def test_sign_in_and_out_through_the_public_origin(page: Page, example: Example) -> None:
    await page.goto("/")
    await page.get_by_role("link", name="Sign in").click()
    await page.wait_for_url(f"{example.url}/api/auth/signin**")
    await sign_in(page)

    # Back on the public origin, not on Next.js's own address: AUTH_URL at work.
    await page.wait_for_url(f"{example.url}/")
    await expect_signed_in(page)

    await page.get_by_role("link", name="Sign out").click()
    await page.wait_for_url(f"{example.url}/api/auth/signout")
    await page.get_by_role("button", name="Sign out").click()
    await page.wait_for_url(f"{example.url}/")
    await expect_signed_out(page)


async def test_a_wrong_password_signs_nobody_in(page: Page, example: Example) -> None:
    await page.goto("/api/auth/signin")
    await sign_in(page, password="not-demo")
    await page.wait_for_url(re.compile(r"error=CredentialsSignin"))
    assert page.url.startswith(example.url)
    await page.goto("/")
    await expect_signed_out(page)


async def test_the_production_build_over_http_forwards_the_token(
    page: Page, example: Example
) -> None:
    """``next start`` runs with ``NODE_ENV=production``; over HTTP the cookie has no
    ``__Secure-`` prefix, and the bearer helper still finds it (secureCookie follows
    ``AUTH_URL``'s scheme, not ``NODE_ENV``)."""
    await page.goto("/api/auth/signin")
    await sign_in(page)
    await page.wait_for_url(f"{example.url}/")

    names = {cookie["name"] for cookie in await page.context.cookies()}
    assert "authjs.session-token" in names
    assert not any(name.startswith("__Secure-") for name in names)
    await expect(page.locator("#server-me")).to_contain_text(f'"email":"{USER["email"]}"')


async def test_over_https_the_helper_forwards_the_secure_cookie(
    browser: Browser, example: Example, offsite_requests: list[str]
) -> None:
    """With an ``https:`` AUTH_URL, the same build reads ``__Secure-authjs.session-token``
    and forwards it, and an API configured the same way accepts it. (No TLS here: the
    browser talks to Next.js directly, with the cookie set as it would be over HTTPS.)"""
    https = "https://app.example.test"
    secure_name = "__Secure-authjs.session-token"
    claims = {"sub": "1", "name": USER["name"], "email": USER["email"]}
    with (
        asgi_servers(
            nextjs.API_APP, 1, api_env(example.secret, https), server="uvicorn", cwd=nextjs.API
        ) as (api,),
        nextjs.next_server(
            {"AUTH_SECRET": example.secret, "AUTH_URL": https, "API_URL": api}
        ) as web,
    ):
        # Chromium sends a Secure cookie over plain HTTP to localhost, a trustworthy origin.
        web = web.replace("127.0.0.1", "localhost")
        context = await guarded_context(browser, web, offsite_requests)
        try:
            token = encode(token=claims, secret=example.secret, salt=secure_name)
            await context.add_cookies(
                [
                    {
                        "name": secure_name,
                        "value": token,
                        "domain": "localhost",
                        "path": "/",
                        "secure": True,
                    }
                ]
            )
            page = await context.new_page()
            await page.goto("/")
            server_me = page.locator("#server-me")
            await expect(server_me).to_have_text(re.compile(r"^200 \{"))
            await expect(server_me).to_contain_text(f'"email":"{USER["email"]}"')

            # The unprefixed cookie of an HTTP deployment is not the session here.
            await context.clear_cookies()
            plain = encode(token=claims, secret=example.secret, salt="authjs.session-token")
            await context.add_cookies(
                [{"name": "authjs.session-token", "value": plain, "url": web}]
            )
            await page.goto("/")
            await expect(server_me).to_have_text(REFUSED)
        finally:
            await context.close()
    assert offsite_requests == []


def code_blocks(markdown: str) -> list[str]:
    """The text of every fenced code block."""
    return [m.group(1) for m in re.finditer(r"^```\w*\n(.*?)^```$", markdown, re.M | re.S)]


@pytest.mark.parametrize("path", ["api/main.py", "web/next.config.mjs", "web/api.ts"])
async def test_the_doc_shows_the_examples_code(path: str) -> None:
    """The recipe's code blocks are the example's files, whole: the doc cannot drift.
    (Async only because every test in tests/e2e runs on the browser's event loop.)"""
    code = (nextjs.EXAMPLE / path).read_text(encoding="utf-8")
    assert code in code_blocks(DOC.read_text(encoding="utf-8"))
