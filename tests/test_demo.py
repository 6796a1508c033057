"""The demo app, through Quart's test client (and the Starlette and FastAPI variants through
httpx): pages, protection, theme switch, sign-in, what it logs."""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

# The demo reads AUTH_SECRET and AUTH_DATABASE_URL once, at import: with them set, it
# writes neither .authui-dev-secret nor .authui-demo.db in the work tree.
_DATABASE = Path(tempfile.mkdtemp(prefix="authui-demo-test-")) / "demo.db"
os.environ["AUTH_SECRET"] = secrets.token_urlsafe(32)
os.environ["AUTH_DATABASE_URL"] = f"sqlite+aiosqlite:///{_DATABASE}"
try:
    from demo import fastapi_app, starlette_app
    from demo.app import app
    from demo.settings import CONFIGS, seed_demo_user
finally:
    del os.environ["AUTH_SECRET"], os.environ["AUTH_DATABASE_URL"]


BROWSER = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
"""What a browser sends when it opens a page."""


async def started_client() -> Any:
    """A test client of the demo after its start-up hooks (the demo user is stored)."""
    await app.startup()
    return app.test_client()


async def csrf_from(html: str) -> str:
    match = re.search(r'name="csrfToken" value="([0-9a-f]{64})"', html)
    assert match is not None
    return match.group(1)


async def test_home_is_public_and_offers_sign_in() -> None:
    client = await started_client()
    html = await (await client.get("/")).get_data(as_text=True)
    assert "You are not signed in." in html
    assert 'href="/auth/signin?callbackUrl=%2F"' in html


async def test_protected_page_sends_to_sign_in_which_names_the_demo_user() -> None:
    client = await started_client()
    response = await client.get("/protected", headers=BROWSER)
    assert response.headers["Location"] == "/auth/signin?callbackUrl=%2Fprotected"
    page = await (await client.get(response.headers["Location"])).get_data(as_text=True)
    assert 'id="demo-hint"' in page
    assert 'name="username"' in page
    assert 'name="password"' in page


@pytest.mark.parametrize(
    ("accept", "username", "password", "hint"),
    [
        ("ar", "اسم المستخدم", "كلمة المرور", "المستخدم التجريبي:"),
        ("de-DE", "Benutzername", "Passwort", "Demo-Benutzer:"),
    ],
)
async def test_the_sign_in_page_speaks_the_browsers_language_the_demos_labels_too(
    accept: str, username: str, password: str, hint: str
) -> None:
    """authui's texts from its catalogue, the demo's "Username" from the demo's own."""
    client = await started_client()
    page = await client.get("/auth/signin", headers={"Accept-Language": accept})
    html = await page.get_data(as_text=True)
    assert f'<html lang="{accept[:2]}"' in html
    for label in (username, password):
        assert re.search(rf'<label class="authui-label" for="[^"]+">{label}</label>', html)
    assert ">Username<" not in html
    assert f'id="demo-hint">{hint} <strong>demo</strong>' in html


async def test_sign_in_profile_and_sign_out() -> None:
    client = await started_client()
    page = await (await client.get("/auth/signin?callbackUrl=%2Fprofile")).get_data(as_text=True)
    token = await csrf_from(page)
    wrong = await client.post(
        "/auth/callback/credentials",
        form={
            "csrfToken": token,
            "username": "demo",
            "password": "nope",
            "callbackUrl": "/profile",
        },
    )
    assert wrong.headers["Location"].endswith("error=CredentialsSignin&code=credentials")
    unknown = await client.post(
        "/auth/callback/credentials",
        form={"csrfToken": token, "username": "eve", "password": "x"},
    )
    assert unknown.headers["Location"].endswith("error=CredentialsSignin&code=unknown_user")
    ok = await client.post(
        "/auth/callback/credentials",
        form={
            "csrfToken": token,
            "username": "demo",
            "password": "demo",
            "callbackUrl": "/profile",
        },
    )
    assert ok.headers["Location"] == "http://localhost/profile"
    profile = await (await client.get("/profile")).get_data(as_text=True)
    assert '<dd id="profile-email">demo@example.com</dd>' in profile
    assert "Signed in as Demo User" in profile
    out = await client.post("/auth/signout", form={"csrfToken": await csrf_from(profile)})
    assert out.status_code == 302
    assert (await client.get("/profile", headers=BROWSER)).status_code == 302


async def test_theme_switcher_changes_the_pages() -> None:
    client = await started_client()
    switch = await client.get("/theme?theme=base&scheme=dark&next=/protected")
    assert (switch.status_code, switch.headers["Location"]) == (303, "http://localhost/protected")
    html = await (await client.get("/auth/signin")).get_data(as_text=True)
    assert 'data-color-scheme="dark"' in html
    assert len(CONFIGS) == 3 * len({pack for pack, _ in CONFIGS})


ACCOUNT_LINK = '<a class="authui-link" id="account-link" href="/auth/account">Account</a>'
"""The header's link to the account center."""

Fetch = Callable[[str, dict[str, str] | None], Awaitable[str]]
"""A browser of one demo variant: GET a path (or POST the form), the page's HTML."""


@contextlib.asynccontextmanager
async def demo_browser(variant: str) -> AsyncIterator[Fetch]:
    """A browser keeping its cookies, on the Quart demo or an ASGI variant."""
    await seed_demo_user()
    if variant == "quart":
        client = app.test_client()

        async def quart_fetch(path: str, form: dict[str, str] | None = None) -> str:
            if form is None:
                response = await client.get(path, headers=BROWSER)
            else:
                response = await client.post(path, form=form)
            text: str = await response.get_data(as_text=True)
            return text

        yield quart_fetch
        return
    asgi = {"starlette": starlette_app.app, "fastapi": fastapi_app.app}[variant]
    transport = httpx.ASGITransport(app=asgi)
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:

        async def asgi_fetch(path: str, form: dict[str, str] | None = None) -> str:
            if form is None:
                return (await http.get(path, headers=BROWSER)).text
            return (await http.post(path, data=form)).text

        yield asgi_fetch


def header_of(html: str) -> str:
    match = re.search(r'<header class="demo-header">.*?</header>', html, re.S)
    assert match is not None
    return match.group(0)


@pytest.mark.parametrize("variant", ["quart", "starlette", "fastapi"])
async def test_the_signed_in_header_links_to_the_account_center(variant: str) -> None:
    async with demo_browser(variant) as fetch:
        assert ACCOUNT_LINK not in header_of(await fetch("/", None))
        page = await fetch("/auth/signin", None)
        form = {"csrfToken": await csrf_from(page), "username": "demo", "password": "demo"}
        await fetch("/auth/callback/credentials", form)
        header = header_of(await fetch("/", None))
        assert "Signed in as Demo User" in header
        assert ACCOUNT_LINK in header
        account = await fetch("/auth/account", None)
        assert '<h1 class="authui-heading">Your account</h1>' in account
        assert "demo@example.com" in account


OFFSITE_NEXT = {
    "https://evil.example/": "http://localhost",
    "//evil.example/": "http://localhost//evil.example/",
    "/\\evil.example": "http://localhost/%5Cevil.example",
    "/\t/evil.example": "http://localhost/%09/evil.example",
    "/\nSet-Cookie: x=1": "http://localhost/%0ASet-Cookie:%20x=1",
    "javascript:alert(1)": "http://localhost",
}
"""``next`` values that must not lead off the site, and where the switcher sends them."""


async def quart_location(query: dict[str, str]) -> tuple[int, str]:
    response = await app.test_client().get("/theme", query_string=query)
    return response.status_code, response.headers["Location"]


def asgi_location(asgi: Any) -> Any:
    async def location(query: dict[str, str]) -> tuple[int, str]:
        transport = httpx.ASGITransport(app=asgi)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
            response = await client.get("/theme", params=query)
        return response.status_code, response.headers["Location"]

    return location


@pytest.mark.parametrize(
    "location",
    [quart_location, asgi_location(starlette_app.app), asgi_location(fastapi_app.app)],
    ids=["quart", "starlette", "fastapi"],
)
@pytest.mark.parametrize("target", sorted(OFFSITE_NEXT))
async def test_theme_switcher_stays_on_the_site(location: Any, target: str) -> None:
    status, where = await location({"theme": "base", "next": target})
    assert (status, where) == (303, OFFSITE_NEXT[target])


async def test_magic_link_through_the_development_mailbox() -> None:
    client = await started_client()
    page = await (await client.get("/auth/signin?callbackUrl=%2Fprofile")).get_data(as_text=True)
    assert 'name="email"' in page
    asked = await client.post(
        "/auth/signin/email",
        form={"csrfToken": await csrf_from(page), "email": "Grace@Example.com"},
    )
    assert (
        asked.headers["Location"]
        == "http://localhost/auth/verify-request?provider=email&type=email"
    )
    mailbox = await (await client.get("/dev/mailbox")).get_data(as_text=True)
    match = re.search(
        r'<strong class="demo-mailbox-to">grace@example.com</strong>.*?href="([^"]+)"',
        mailbox,
        re.S,
    )
    assert match is not None
    link = match.group(1).replace("&amp;", "&")
    confirm = await (await client.get(link.removeprefix("http://localhost"))).get_data(as_text=True)
    assert "Sign in as grace@example.com" in confirm
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', confirm))
    assert set(fields) == {"csrfToken", "callbackUrl", "token", "email"}
    done = await client.post("/auth/callback/email", form=fields)
    assert done.headers["Location"].startswith("http://localhost/auth/new-user?callbackUrl=")
    profile = await (await client.get("/profile")).get_data(as_text=True)
    assert '<dd id="profile-email">grace@example.com</dd>' in profile
    # No name yet: the pages name the user by their address.
    assert '<span id="signed-in-as">Signed in as grace@example.com</span>' in profile
    assert '<dd id="profile-name">(none)</dd>' in profile


START = """
import asyncio, json
from demo.app import app
from demo.settings import CONFIGS

async def main():
    await app.startup()
    client = app.test_client()
    for pack, scheme in CONFIGS:  # every theme's configuration, as visitors switch
        client.set_cookie("127.0.0.1", "theme", pack)
        client.set_cookie("127.0.0.1", "scheme", scheme)
        await client.get("/auth/signin", headers={"Host": "127.0.0.1:5077"})
    providers = await client.get("/auth/providers", headers={"Host": "127.0.0.1:5077"})
    print(json.dumps(await providers.get_json()))
    await app.shutdown()

asyncio.run(main())
"""
"""The demo as ``scripts/demo`` starts it, every theme visited, in a process of its own."""


def test_the_demo_runs_in_development_mode_at_its_auth_url(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTH_")}
    env |= {
        "AUTH_URL": "http://localhost:5077",
        "AUTH_SECRET": secrets.token_urlsafe(32),
        "AUTH_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'demo.db'}",
    }
    ran = subprocess.run(
        [sys.executable, "-c", START],
        cwd=Path(__file__).resolve().parent.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    providers = json.loads(ran.stdout)
    assert providers["credentials"]["signinUrl"] == (
        "http://localhost:5077/auth/signin/credentials"
    )
    warnings = re.findall(r"\[auth\]\[warn\]\[([\w-]+)\]", ran.stderr)
    assert "console-email" not in warnings  # the console sender is for development mode
    assert sorted(warnings) == sorted(set(warnings)), ran.stderr  # each one once
