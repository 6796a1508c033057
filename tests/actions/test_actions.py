"""Every row of the action table (reference §2.3), through ``Auth()`` as a client sees it."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from authui import Auth, AuthConfig, Pages, Request, SessionOptions, skip_csrf_check
from authui.testing import AuthClient
from tests.conftest import make_config

NO_CACHE = {"cache-control": "private, no-cache, no-store", "expires": "0", "pragma": "no-cache"}
ISO_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def headers_of(response: Any) -> dict[str, str]:
    return {k.lower(): v for k, v in response.headers if k.lower() != "set-cookie"}


def set_cookie_names(response: Any) -> list[str]:
    return [h.split("=", 1)[0] for h in response.header_all("set-cookie")]


async def signed_in(client: AuthClient) -> None:
    response = await client.sign_in_with_credentials(username="ada", password="correct horse")
    assert response.status == 302


# -- providers ----------------------------------------------------------------------------


async def test_providers_lists_providers_in_order_without_cookies(client: AuthClient) -> None:
    response = await client.get("providers")
    assert response.status == 200
    assert response.header("content-type") == "application/json"
    assert response.data() == {
        "credentials": {
            "id": "credentials",
            "name": "Credentials",
            "type": "credentials",
            "signinUrl": "http://localhost:3000/auth/signin/credentials",
            "callbackUrl": "http://localhost:3000/auth/callback/credentials",
        }
    }
    assert response.header_all("set-cookie") == []


# -- csrf ---------------------------------------------------------------------------------


async def test_csrf_issues_token_and_cookie(client: AuthClient) -> None:
    response = await client.get("csrf")
    assert response.status == 200
    assert headers_of(response) == {"content-type": "application/json", **NO_CACHE}
    token = response.data()["csrfToken"]
    assert re.fullmatch(r"[0-9a-f]{64}", token)
    assert list(response.data()) == ["csrfToken"]
    cookie = next(
        h for h in response.header_all("set-cookie") if h.startswith("authjs.csrf-token=")
    )
    assert cookie.startswith(f"authjs.csrf-token={token}%7C")
    assert "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie
    assert "Path=/" in cookie


async def test_csrf_reuses_a_valid_cookie(client: AuthClient) -> None:
    first = await client.csrf_token()
    response = await client.get("csrf")
    assert response.data()["csrfToken"] == first
    assert "authjs.csrf-token" not in set_cookie_names(response)


async def test_csrf_replaces_a_forged_cookie(client: AuthClient) -> None:
    client.cookies["authjs.csrf-token"] = "a" * 64 + "%7C" + "b" * 64
    response = await client.get("csrf")
    assert response.data()["csrfToken"] != "a" * 64
    assert "authjs.csrf-token" in set_cookie_names(response)


async def test_csrf_with_skip_check_is_404_and_clears_cookie() -> None:
    client = AuthClient(make_config(skip_csrf_check=skip_csrf_check))
    response = await client.get("csrf")
    assert response.status == 404
    assert response.body == b""
    cookies = [h for h in response.header_all("set-cookie") if h.startswith("authjs.csrf-token=")]
    assert cookies == ["authjs.csrf-token=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax"]


# -- session ------------------------------------------------------------------------------


async def test_session_without_cookie_is_null(client: AuthClient) -> None:
    response = await client.get("session")
    assert response.status == 200
    assert response.body == b"null"
    assert headers_of(response) == {"content-type": "application/json", **NO_CACHE}


async def test_session_after_sign_in_has_shape_and_rolls() -> None:
    client = AuthClient(make_config(session=SessionOptions(update_age=0)))
    await signed_in(client)
    before = datetime.now(UTC)
    response = await client.get("session")
    assert response.status == 200
    data = response.data()
    assert list(data) == ["user", "expires"]
    assert data["user"] == {
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "image": "https://x/a.png",
    }
    assert ISO_MS.match(data["expires"])
    expires = datetime.fromisoformat(data["expires"].replace("Z", "+00:00"))
    assert abs(expires - (before + timedelta(days=30))) < timedelta(seconds=5)
    assert headers_of(response) == {"content-type": "application/json", **NO_CACHE}
    assert "authjs.session-token" in set_cookie_names(response)


async def test_session_user_omits_missing_image() -> None:
    def authorize(credentials: dict[str, Any]) -> dict[str, Any]:
        return {"id": 7, "name": "U", "email": "u@x.com"}

    from authui import Credentials

    client = AuthClient(make_config(providers=[Credentials(authorize=authorize)]))
    await client.sign_in_with_credentials()
    assert (await client.get("session")).data()["user"] == {"name": "U", "email": "u@x.com"}


async def test_session_update_runs_callbacks_with_update_trigger() -> None:
    from authui import Callbacks

    seen: list[dict[str, Any]] = []

    def jwt(token: dict[str, Any], trigger: str | None = None, session: Any = None) -> Any:
        seen.append({"trigger": trigger, "session": session})
        if trigger == "update" and isinstance(session, dict):
            token["name"] = session["name"]
        return token

    client = AuthClient(make_config(callbacks=Callbacks(jwt=jwt)))
    await signed_in(client)
    token = await client.csrf_token()
    response = await client.post(
        "session", json_body={"csrfToken": token, "data": {"name": "Ada L."}}
    )
    assert response.status == 200
    assert response.data()["user"]["name"] == "Ada L."
    assert response.header("cache-control") is None
    assert seen[-1] == {"trigger": "update", "session": {"name": "Ada L."}}
    assert (await client.get("session")).data()["user"]["name"] == "Ada L."


async def test_session_update_without_csrf_is_400_null(client: AuthClient) -> None:
    await signed_in(client)
    response = await client.post("session", json_body={"data": {"name": "x"}})
    assert response.status == 400
    assert response.body == b"null"
    response = await client.post(
        "session", json_body={"data": {}}, headers={"x-auth-return-redirect": "1"}
    )
    assert (response.status, response.body) == (400, b"null")


# -- signin -------------------------------------------------------------------------------


async def test_signin_page_renders_providers_and_csrf(client: AuthClient) -> None:
    response = await client.get("signin")
    assert response.status == 200
    assert response.header("content-type") == "text/html"
    html = response.text
    assert "<title>Sign In</title>" in html
    assert 'action="http://localhost:3000/auth/callback/credentials"' in html
    token = client.cookies["authjs.csrf-token"].split("%7C")[0]
    assert f'name="csrfToken" value="{token}"' in html
    assert 'type="password"' in html
    assert ">Username</label>" in html
    assert ">Sign in</button>" in html


@pytest.mark.parametrize(
    ("error", "message"),
    [
        ("CredentialsSignin", "Sign in failed. Check the details you provided are correct."),
        ("OAuthAccountNotLinked", "To confirm your identity, sign in with the same account"),
        ("OAuthCallbackError", "Try signing in with a different account."),
        ("SessionRequired", "Please sign in to access this page."),
        ("EmailSignin", "The e-mail could not be sent."),
        ("Whatever<script>", "Unable to sign in."),
    ],
)
async def test_signin_page_error_messages(client: AuthClient, error: str, message: str) -> None:
    response = await client.get(f"signin?error={error}")
    assert message in response.text
    assert "<script>" not in response.text


async def test_signin_page_redirects_to_custom_page() -> None:
    client = AuthClient(make_config(pages=Pages(sign_in="/login")))
    response = await client.get("signin?callbackUrl=%2Fx&error=Foo")
    assert response.status == 302
    assert response.header("location") == (
        "/login?callbackUrl=http%3A%2F%2Flocalhost%3A3000%2Fx&error=Foo"
    )


async def test_get_signin_with_provider_is_a_bad_request(client: AuthClient) -> None:
    response = await client.get("signin/credentials")
    assert (response.status, response.data()) == (400, "Bad request.")


async def test_post_signin_without_provider_goes_to_signin_page(client: AuthClient) -> None:
    token = await client.csrf_token()
    response = await client.post("signin", form={"csrfToken": token})
    assert (response.status, response.header("location")) == (
        302,
        "http://localhost:3000/auth/signin",
    )


async def test_post_signin_credentials_goes_to_signin_page(client: AuthClient) -> None:
    token = await client.csrf_token()
    response = await client.post("signin/credentials", form={"csrfToken": token})
    assert response.header("location") == "http://localhost:3000/auth/signin"


async def test_post_signin_unknown_provider_is_configuration(client: AuthClient) -> None:
    token = await client.csrf_token()
    response = await client.post("signin/nope", form={"csrfToken": token})
    assert response.header("location") == "http://localhost:3000/auth/error?error=Configuration"


async def test_post_signin_without_csrf_is_missing_csrf(client: AuthClient) -> None:
    response = await client.post("signin/credentials", form={"csrfToken": "forged"})
    assert response.status == 302
    assert response.header("location") == "http://localhost:3000/auth/signin?error=MissingCSRF"
    assert response.header_all("set-cookie") == []
    response = await client.post(
        "signin/credentials", form={}, headers={"x-auth-return-redirect": "1"}
    )
    assert (response.status, response.data()) == (
        200,
        {"url": "http://localhost:3000/auth/signin?error=MissingCSRF"},
    )


# -- callback (credentials) ---------------------------------------------------------------


async def test_credentials_sign_in_sets_session_and_redirects(client: AuthClient) -> None:
    token = await client.csrf_token()
    response = await client.post(
        "callback/credentials",
        form={
            "csrfToken": token,
            "username": "ada",
            "password": "correct horse",
            "callbackUrl": "/dashboard",
        },
    )
    assert response.status == 302
    assert response.header("location") == "http://localhost:3000/dashboard"
    session = next(
        h for h in response.header_all("set-cookie") if h.startswith("authjs.session-token=")
    )
    assert re.search(r"; Path=/; Expires=[^;]+ GMT; HttpOnly; SameSite=Lax$", session)
    assert "Max-Age" not in session


async def test_credentials_sign_in_with_return_redirect_header(client: AuthClient) -> None:
    token = await client.csrf_token()
    response = await client.post(
        "callback/credentials",
        form={"csrfToken": token, "username": "ada", "password": "correct horse"},
        headers={"x-auth-return-redirect": "1"},
    )
    assert response.status == 200
    assert response.data() == {"url": "http://localhost:3000"}
    assert response.header("content-type") == "application/json"
    assert response.header("location") == "http://localhost:3000"
    assert "authjs.session-token" in set_cookie_names(response)


async def test_credentials_refused_goes_back_with_code(client: AuthClient) -> None:
    response = await client.sign_in_with_credentials(username="ada", password="wrong")
    assert response.header("location") == (
        "http://localhost:3000/auth/signin?error=CredentialsSignin&code=credentials"
    )
    assert "authjs.session-token" not in client.cookies


async def test_credentials_custom_code(client: AuthClient) -> None:
    response = await client.sign_in_with_credentials(username="locked", password="x")
    assert response.header("location") == (
        "http://localhost:3000/auth/signin?error=CredentialsSignin&code=locked"
    )


async def test_credentials_crash_is_configuration_and_logged(
    client: AuthClient, caplog: pytest.LogCaptureFixture
) -> None:
    response = await client.sign_in_with_credentials(username="boom", password="x")
    assert response.header("location") == "http://localhost:3000/auth/error?error=Configuration"
    assert any("CallbackRouteError" in r.getMessage() for r in caplog.records)
    assert "database is down" not in (response.header("location") or "")


async def test_credentials_callback_requires_csrf(client: AuthClient) -> None:
    response = await client.post(
        "callback/credentials", form={"username": "ada", "password": "correct horse"}
    )
    assert response.header("location") == "http://localhost:3000/auth/signin?error=MissingCSRF"


async def test_credentials_callback_get_is_configuration(client: AuthClient) -> None:
    response = await client.get("callback/credentials")
    assert response.header("location") == "http://localhost:3000/auth/error?error=Configuration"


async def test_callback_for_unknown_provider_is_configuration(client: AuthClient) -> None:
    token = await client.csrf_token()
    response = await client.post("callback/nope", form={"csrfToken": token})
    assert response.header("location") == "http://localhost:3000/auth/error?error=Configuration"


# -- signout ------------------------------------------------------------------------------


async def test_signout_page(client: AuthClient) -> None:
    response = await client.get("signout")
    assert response.status == 200
    assert "<title>Sign Out</title>" in response.text
    assert "Are you sure you want to sign out?" in response.text
    assert 'action="http://localhost:3000/auth/signout"' in response.text


async def test_signout_page_custom() -> None:
    client = AuthClient(make_config(pages=Pages(sign_out="/bye")))
    response = await client.get("signout")
    assert (response.status, response.header("location")) == (302, "/bye")


async def test_signout_clears_session_and_emits_event() -> None:
    from authui import Events

    tokens: list[Any] = []
    client = AuthClient(make_config(events=Events(sign_out=lambda token: tokens.append(token))))
    await signed_in(client)
    token = await client.csrf_token()
    response = await client.post("signout", form={"csrfToken": token, "callbackUrl": "/bye"})
    assert response.status == 302
    assert response.header("location") == "http://localhost:3000/bye"
    assert "authjs.session-token=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax" in (
        response.header_all("set-cookie")
    )
    assert tokens[0]["email"] == "ada@example.com"
    assert (await client.get("session")).body == b"null"


async def test_signout_rejects_foreign_callback(client: AuthClient) -> None:
    await signed_in(client)
    token = await client.csrf_token()
    response = await client.post(
        "signout",
        form={"csrfToken": token, "callbackUrl": "https://evil.com/x"},
        headers={"x-auth-return-redirect": "1"},
    )
    assert response.data() == {"url": "http://localhost:3000"}


async def test_signout_without_csrf(client: AuthClient) -> None:
    await signed_in(client)
    response = await client.post("signout", form={})
    assert response.header("location") == "http://localhost:3000/auth/signin?error=MissingCSRF"
    assert (await client.get("session")).data() is not None


# -- verify-request and error pages -------------------------------------------------------


async def test_verify_request_page(client: AuthClient) -> None:
    response = await client.get("verify-request")
    assert response.status == 200
    assert "Check your email" in response.text
    assert 'href="http://localhost:3000">localhost:3000</a>' in response.text


async def test_verify_request_custom_keeps_query() -> None:
    client = AuthClient(make_config(pages=Pages(verify_request="/check")))
    response = await client.get("verify-request?provider=email&type=email")
    assert response.header("location") == "/check?provider=email&type=email"


@pytest.mark.parametrize(
    ("error", "status", "heading"),
    [
        ("Configuration", 500, "Server error"),
        ("AccessDenied", 403, "Access Denied"),
        ("Verification", 403, "Unable to sign in"),
        ("Anything", 200, "Error"),
    ],
)
async def test_error_page(client: AuthClient, error: str, status: int, heading: str) -> None:
    response = await client.get(f"error?error={error}")
    assert response.status == status
    assert f">{heading}</h1>" in response.text
    assert "<title>Error</title>" in response.text


async def test_error_page_custom() -> None:
    client = AuthClient(make_config(pages=Pages(error="/oops")))
    response = await client.get("error?error=AccessDenied")
    assert response.header("location") == "/oops?error=AccessDenied"


# -- webauthn-options, unknown actions and methods ----------------------------------------


async def test_webauthn_options_without_webauthn_provider(client: AuthClient) -> None:
    response = await client.get("webauthn-options/credentials")
    assert response.header("location") == "http://localhost:3000/auth/error?error=Configuration"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("PUT", "signin"),
        ("DELETE", "session"),
        ("GET", "nope"),
        ("GET", "session/credentials"),
        ("GET", "signin/a/b"),
        ("GET", ""),
    ],
)
async def test_unknown_action_or_method_is_400(client: AuthClient, method: str, path: str) -> None:
    response = await client.request(method, path)
    assert response.status == 400
    assert response.body == b'"Bad request."'


async def test_post_to_get_only_action_is_a_bad_request(client: AuthClient) -> None:
    response = await client.post("providers", form={})
    assert (response.status, response.data()) == (400, "Bad request.")


async def test_path_outside_base_path_is_400(config: AuthConfig) -> None:
    response = await Auth(Request.build("GET", "http://localhost:3000/other/session"), config)
    assert response.status == 400


async def test_trailing_slashes_and_undefined_provider(client: AuthClient) -> None:
    assert (await client.get("session///")).status == 200
    token = await client.csrf_token()
    response = await client.post("signin/undefined", form={"csrfToken": token})
    assert response.header("location") == "http://localhost:3000/auth/signin"


# -- configuration errors (reference §2.2) ------------------------------------------------


def broken_config(**overrides: Any) -> AuthConfig:
    from authui import Credentials

    return AuthConfig(
        providers=[Credentials(authorize=lambda c: None)], trust_host=True, **overrides
    )


async def test_missing_secret_page_action_renders_configuration_page() -> None:
    client = AuthClient(broken_config())
    response = await client.get("signin")
    assert response.status == 500
    assert "Server error" in response.text


async def test_missing_secret_api_action_is_500_json() -> None:
    client = AuthClient(broken_config())
    response = await client.get("session")
    assert response.status == 500
    assert response.data() == {
        "message": "There was a problem with the server configuration. "
        "Check the server logs for more information."
    }


async def test_configuration_error_redirects_to_custom_error_page() -> None:
    client = AuthClient(broken_config(pages=Pages(error="/oops")))
    response = await client.get("signin")
    assert response.header("location") == "http://localhost:3000/oops?error=Configuration"
    loop = await client.get("signin?callbackUrl=%2Foops%3Fx")
    assert loop.status == 500


async def test_untrusted_host_is_configuration_error(caplog: pytest.LogCaptureFixture) -> None:
    client = AuthClient(AuthConfig(secret="s" * 40, providers=[]))
    response = await client.get("session")
    assert response.status == 500
    assert any("UntrustedHost" in r.getMessage() for r in caplog.records)


async def test_invalid_callback_url_query_is_a_bad_request(client: AuthClient) -> None:
    response = await client.get("session?callbackUrl=javascript%3Aalert(1)")
    assert response.status == 400
    page = await client.get("signin?callbackUrl=javascript%3Aalert(1)")
    assert (page.status, 'name="username"' in page.text) == (400, True)


async def test_callback_url_cookie_is_set_and_followed(client: AuthClient) -> None:
    await client.get("signin?callbackUrl=%2Fafter")
    assert client.cookies["authjs.callback-url"] == "http%3A%2F%2Flocalhost%3A3000%2Fafter"
    response = await client.sign_in_with_credentials(username="ada", password="correct horse")
    assert response.header("location") == "http://localhost:3000/after"


async def test_error_redirect_with_custom_sign_in_page(config: AuthConfig) -> None:
    client = AuthClient(make_config(pages=Pages(sign_in="/login?next=1")))
    response = await client.sign_in_with_credentials(username="x", password="y")
    location = response.header("location") or ""
    assert location.startswith("http://localhost:3000/login?next=1&")
    assert parse_qs(urlsplit(location).query)["error"] == ["CredentialsSignin"]
