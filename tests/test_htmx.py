"""htmx: inline errors, HX-Redirect, Vary; and the same flows without JavaScript."""

from __future__ import annotations

from authui.testing import AuthClient
from tests.conftest import make_config

HX = {"HX-Request": "true"}


async def test_failed_sign_in_answers_the_form_with_error_and_username() -> None:
    client = AuthClient(make_config())
    token = await client.csrf_token()
    response = await client.post(
        "callback/credentials",
        form={"csrfToken": token, "username": "ada", "password": "wrong"},
        headers=HX,
    )
    assert response.status == 200
    assert response.header("vary") == "HX-Request"
    html = response.text
    assert html.lstrip().startswith("<form")
    assert "<html" not in html
    assert 'role="alert"' in html
    assert "Sign in failed. Check the details you provided are correct." in html
    assert 'name="username"' in html
    assert 'value="ada"' in html
    assert 'value="wrong"' not in html
    assert 'aria-invalid="true"' in html
    assert f'name="csrfToken" value="{token}"' in html
    assert "authjs.session-token" not in client.cookies


async def test_inline_error_after_csrf_failure_carries_a_working_token() -> None:
    client = AuthClient(make_config())
    response = await client.post(
        "callback/credentials", form={"username": "ada", "password": "x"}, headers=HX
    )
    assert response.status == 200
    assert "The sign-in form had expired. Please try again." in response.text
    new_cookie = client.cookies["authjs.csrf-token"]
    assert new_cookie.split("%7C")[0] in response.text
    token = new_cookie.split("%7C")[0]
    ok = await client.post(
        "callback/credentials",
        form={"csrfToken": token, "username": "ada", "password": "correct horse"},
        headers=HX,
    )
    assert ok.header("hx-redirect") == "http://localhost:3000"


async def test_successful_sign_in_answers_hx_redirect_with_cookies() -> None:
    client = AuthClient(make_config())
    token = await client.csrf_token()
    response = await client.post(
        "callback/credentials",
        form={
            "csrfToken": token,
            "username": "ada",
            "password": "correct horse",
            "callbackUrl": "/x",
        },
        headers=HX,
    )
    assert response.status == 200
    assert response.header("hx-redirect") == "http://localhost:3000/x"
    assert response.header("location") is None
    assert response.header("vary") == "HX-Request"
    assert "authjs.session-token" in client.cookies


async def test_crash_with_htmx_goes_to_the_error_page() -> None:
    client = AuthClient(make_config())
    token = await client.csrf_token()
    response = await client.post(
        "callback/credentials",
        form={"csrfToken": token, "username": "boom", "password": "x"},
        headers=HX,
    )
    assert response.header("hx-redirect") == "http://localhost:3000/auth/error?error=Configuration"


async def test_sign_out_with_htmx() -> None:
    client = AuthClient(make_config())
    await client.sign_in_with_credentials(username="ada", password="correct horse")
    token = await client.csrf_token()
    response = await client.post("signout", form={"csrfToken": token}, headers=HX)
    assert response.header("hx-redirect") == "http://localhost:3000"
    assert "authjs.session-token" not in client.cookies


async def test_history_restore_requests_get_full_pages() -> None:
    client = AuthClient(make_config())
    response = await client.get(
        "signin", headers={"HX-Request": "true", "HX-History-Restore-Request": "true"}
    )
    assert response.text.startswith("<!DOCTYPE html>")


async def test_without_javascript_the_same_flows_use_redirects() -> None:
    client = AuthClient(make_config())
    token = await client.csrf_token()
    wrong = await client.post(
        "callback/credentials", form={"csrfToken": token, "username": "ada", "password": "no"}
    )
    assert wrong.status == 302
    assert wrong.header("location") == (
        "http://localhost:3000/auth/signin?error=CredentialsSignin&code=credentials"
    )
    page = await client.get("signin?error=CredentialsSignin&code=credentials")
    assert "Sign in failed." in page.text


async def test_forms_carry_hx_post_and_plain_actions() -> None:
    client = AuthClient(make_config())
    signin = (await client.get("signin")).text
    assert 'action="http://localhost:3000/auth/callback/credentials" method="post"' in signin
    assert 'hx-post="http://localhost:3000/auth/callback/credentials"' in signin
    signout = (await client.get("signout")).text
    assert 'hx-post="http://localhost:3000/auth/signout"' in signout
