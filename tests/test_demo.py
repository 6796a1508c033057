"""The demo app, through Quart's test client: pages, protection, theme switch, sign-in."""

from __future__ import annotations

import os
import re
import secrets

# The demo reads AUTH_SECRET once, at import; with it set, no .authui-dev-secret is written.
os.environ["AUTH_SECRET"] = secrets.token_urlsafe(32)
try:
    from demo.app import CONFIGS, app
finally:
    del os.environ["AUTH_SECRET"]


async def csrf_from(html: str) -> str:
    match = re.search(r'name="csrfToken" value="([0-9a-f]{64})"', html)
    assert match is not None
    return match.group(1)


async def test_home_is_public_and_offers_sign_in() -> None:
    client = app.test_client()
    html = await (await client.get("/")).get_data(as_text=True)
    assert "You are not signed in." in html
    assert 'href="/auth/signin?callbackUrl=%2F"' in html


async def test_protected_page_sends_to_sign_in_which_names_the_demo_user() -> None:
    client = app.test_client()
    response = await client.get("/protected")
    assert response.headers["Location"] == "/auth/signin?callbackUrl=%2Fprotected"
    page = await (await client.get(response.headers["Location"])).get_data(as_text=True)
    assert 'id="demo-hint"' in page
    assert 'name="username"' in page
    assert 'name="password"' in page


async def test_sign_in_profile_and_sign_out() -> None:
    client = app.test_client()
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
    assert (await client.get("/profile")).status_code == 302


async def test_theme_switcher_changes_the_pages() -> None:
    client = app.test_client()
    switch = await client.get("/theme?theme=base&scheme=dark&next=/protected")
    assert (switch.status_code, switch.headers["Location"]) == (303, "/protected")
    html = await (await client.get("/auth/signin")).get_data(as_text=True)
    assert 'data-color-scheme="dark"' in html
    bad = await client.get("/theme?theme=nope&next=https://evil.com")
    assert bad.headers["Location"] == "/"
    assert len(CONFIGS) == 3 * len({pack for pack, _ in CONFIGS})
