"""The demo app signs in and out through the core, as a browser would."""

from __future__ import annotations

import re

from demo.app import app


async def test_demo_sign_in_and_out() -> None:
    client = app.test_client()
    home = await client.get("/")
    assert "Not signed in." in await home.get_data(as_text=True)

    page = await (await client.get("/auth/signin")).get_data(as_text=True)
    match = re.search(r'name="csrfToken" value="([0-9a-f]{64})"', page)
    assert match is not None
    token = match.group(1)

    refused = await client.post(
        "/auth/callback/credentials",
        form={"csrfToken": token, "username": "demo", "password": "wrong"},
    )
    assert refused.status_code == 302
    assert refused.headers["Location"].endswith(
        "/auth/signin?error=CredentialsSignin&code=credentials"
    )

    response = await client.post(
        "/auth/callback/credentials",
        form={"csrfToken": token, "username": "demo", "password": "demo"},
    )
    assert response.status_code == 302
    home_text = await (await client.get("/")).get_data(as_text=True)
    assert "Signed in as <strong>Demo User</strong>" in home_text

    session = await (await client.get("/auth/session")).get_json()
    assert session["user"] == {"name": "Demo User", "email": "demo@example.com"}

    out = await client.post("/auth/signout", form={"csrfToken": token})
    assert out.status_code == 302
    assert await (await client.get("/auth/session")).get_json() is None
