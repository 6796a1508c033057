"""The demo app, through Quart's test client: pages, protection, theme switch, sign-in."""

from __future__ import annotations

import os
import re
import secrets
import tempfile
from pathlib import Path
from typing import Any

# The demo reads AUTH_SECRET and AUTH_DATABASE_URL once, at import: with them set, it
# writes neither .authui-dev-secret nor .authui-demo.db in the work tree.
_DATABASE = Path(tempfile.mkdtemp(prefix="authui-demo-test-")) / "demo.db"
os.environ["AUTH_SECRET"] = secrets.token_urlsafe(32)
os.environ["AUTH_DATABASE_URL"] = f"sqlite+aiosqlite:///{_DATABASE}"
try:
    from demo.app import app
    from demo.settings import CONFIGS
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
    assert (switch.status_code, switch.headers["Location"]) == (303, "/protected")
    html = await (await client.get("/auth/signin")).get_data(as_text=True)
    assert 'data-color-scheme="dark"' in html
    bad = await client.get("/theme?theme=nope&next=https://evil.com")
    assert bad.headers["Location"] == "/"
    assert len(CONFIGS) == 3 * len({pack for pack, _ in CONFIGS})


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
    done = await client.get(link.removeprefix("http://localhost"))
    assert done.headers["Location"].startswith("http://localhost/auth/new-user?callbackUrl=")
    profile = await (await client.get("/profile")).get_data(as_text=True)
    assert '<dd id="profile-email">grace@example.com</dd>' in profile
