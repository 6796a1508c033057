"""JWT sessions through Auth(): callbacks and their triggers, events, chunking, rotation."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from authui import Callbacks, Credentials, Events, JWTOptions, SessionOptions, jwt
from authui.adapters import AdapterUser
from authui.adapters.memory import MemoryAdapter
from authui.testing import AuthClient
from tests.conftest import SECRET, USER, make_config


async def sign_in(client: AuthClient, **fields: str) -> Any:
    fields = fields or {"username": "ada", "password": "correct horse"}
    return await client.sign_in_with_credentials(**fields)


def session_token(client: AuthClient) -> dict[str, Any]:
    value = client.cookies["authjs.session-token"]
    decoded = jwt.decode(token=value, secret=SECRET, salt="authjs.session-token")
    assert decoded is not None
    return decoded


async def test_sign_in_token_holds_default_claims() -> None:
    client = AuthClient(make_config())
    await sign_in(client)
    token = session_token(client)
    assert {k: token[k] for k in ("name", "email", "picture", "sub")} == {
        "name": USER["name"],
        "email": USER["email"],
        "picture": USER["image"],
        "sub": "42",
    }
    assert token["exp"] - token["iat"] == 30 * 24 * 3600


@pytest.mark.parametrize("stored_image", [None, "https://pictures.example/ada.png"])
async def test_a_credentials_user_without_a_picture_has_no_picture_claim(
    stored_image: str | None,
) -> None:
    """With an adapter authui reads the stored user; as in Auth.js, whose token comes from
    what ``authorize`` returned, a field the user lacks is no claim (not ``null``), and
    the session has no ``image``."""
    adapter = MemoryAdapter()
    await adapter.create_user(
        AdapterUser(id="42", name=USER["name"], email=USER["email"], image=stored_image)
    )
    config = make_config(adapter=adapter, session=SessionOptions(strategy="jwt"))
    client = AuthClient(config)
    await sign_in(client)
    token = session_token(client)
    user = (await client.get("session")).data()["user"]
    if stored_image is None:
        assert "picture" not in token
        assert "image" not in user
    else:
        assert (token["picture"], user["image"]) == (stored_image, stored_image)
    assert (token["sub"], token["name"]) == ("42", USER["name"])


async def test_jwt_callback_arguments_on_sign_in() -> None:
    calls: list[dict[str, Any]] = []

    async def jwt_callback(**kwargs: Any) -> dict[str, Any]:
        calls.append(kwargs)
        token: dict[str, Any] = kwargs["token"]
        return token

    client = AuthClient(make_config(callbacks=Callbacks(jwt=jwt_callback)))
    await sign_in(client)
    first = calls[0]
    assert first["trigger"] == "signIn"
    assert first["is_new_user"] is False
    assert first["user"]["id"] == "42"
    assert first["account"] == {
        "providerAccountId": "42",
        "type": "credentials",
        "provider": "credentials",
    }
    # Auth.js's claims, and when and how the user signed in (authui.sessions.facts)
    assert set(first["token"]) == {"name", "email", "picture", "sub", "auth_time", "amr"}
    assert first["token"]["amr"] == ["pwd"]
    await client.get("session")
    assert "trigger" not in calls[1]
    assert calls[1]["token"]["sub"] == "42"


async def test_jwt_callback_adds_claims_that_session_callback_exposes() -> None:
    def jwt_callback(token: dict[str, Any], user: dict[str, Any] | None = None) -> dict[str, Any]:
        if user is not None:
            token["role"] = "admin"
        return token

    def session_callback(session: dict[str, Any], token: dict[str, Any]) -> dict[str, Any]:
        session["user"]["role"] = token["role"]
        session["user"]["id"] = token["sub"]
        return session

    client = AuthClient(
        make_config(callbacks=Callbacks(jwt=jwt_callback, session=session_callback))
    )
    await sign_in(client)
    user = (await client.get("session")).data()["user"]
    assert user["role"] == "admin"
    assert user["id"] == "42"
    assert (await client.get("session")).data()["user"]["role"] == "admin"


async def test_jwt_callback_returning_none_ends_the_session() -> None:
    def jwt_callback(token: dict[str, Any], trigger: str | None = None) -> dict[str, Any] | None:
        return token if trigger == "signIn" else None

    client = AuthClient(make_config(callbacks=Callbacks(jwt=jwt_callback)))
    await sign_in(client)
    response = await client.get("session")
    assert response.body == b"null"
    assert "authjs.session-token=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax" in (
        response.header_all("set-cookie")
    )


def session_cookies_of(response: Any) -> list[str]:
    return [c for c in response.header_all("set-cookie") if c.startswith("authjs.session-token")]


async def test_a_fresh_session_is_not_reissued_on_every_check() -> None:
    client = AuthClient(make_config())
    await sign_in(client)
    token = session_token(client)
    response = await client.get("session")
    assert session_cookies_of(response) == []  # no encryption, no Set-Cookie
    assert session_token(client)["jti"] == token["jti"]
    expires = response.data()["expires"]
    assert expires == jwt_expiry(token["exp"])  # the cookie's real expiry


def jwt_expiry(exp: int) -> str:
    from datetime import UTC, datetime

    from authui.dates import to_iso

    return to_iso(datetime.fromtimestamp(exp, UTC))


async def test_a_session_older_than_update_age_is_reissued(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    client = AuthClient(make_config(session=SessionOptions(update_age=3600)))
    await sign_in(client)
    first = session_token(client)
    later = first["iat"] + 3600
    monkeypatch.setattr("authui.sessions.jwt.time.time", lambda: float(later))
    response = await client.get("session")
    assert len(session_cookies_of(response)) == 1
    assert session_token(client)["jti"] != first["jti"]


async def test_update_age_zero_reissues_on_every_check() -> None:
    client = AuthClient(make_config(session=SessionOptions(update_age=0)))
    await sign_in(client)
    first = session_token(client)["jti"]
    await client.get("session")
    assert session_token(client)["jti"] != first


async def test_a_token_the_jwt_callback_changed_is_reissued() -> None:
    def count_checks(token: dict[str, Any]) -> dict[str, Any]:
        return {**token, "checks": token.get("checks", 0) + 1}

    client = AuthClient(make_config(callbacks=Callbacks(jwt=count_checks)))
    await sign_in(client)
    for expected in (2, 3):
        response = await client.get("session")
        assert len(session_cookies_of(response)) == 1
        assert session_token(client)["checks"] == expected


async def test_forged_session_cookie_is_cleared_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = AuthClient(make_config())
    client.cookies["authjs.session-token"] = "not-a-jwe"
    response = await client.get("session")
    assert (response.status, response.body) == (200, b"null")
    assert "authjs.session-token" not in client.cookies
    assert "JWTSessionError" in caplog.text
    assert "not-a-jwe" not in caplog.text


async def test_token_from_another_secret_is_rejected() -> None:
    client = AuthClient(make_config())
    client.cookies["authjs.session-token"] = jwt.encode(
        token={"sub": "1"}, secret="another-secret-entirely-0123456789", salt="authjs.session-token"
    )
    assert (await client.get("session")).body == b"null"


async def test_rotated_secret_keeps_sessions_and_reissues_with_new_secret() -> None:
    old = AuthClient(make_config(secret=["old-secret-0123456789-0123456789-x"]))
    await sign_in(old)
    rotated = AuthClient(
        make_config(
            secret=["new-secret-0123456789-0123456789-y", "old-secret-0123456789-0123456789-x"]
        ),
        cookies=dict(old.cookies),
    )
    response = await rotated.get("session")
    assert response.data()["user"]["email"] == "ada@example.com"
    reissued = rotated.cookies["authjs.session-token"]
    assert jwt.decode(
        token=reissued, secret="new-secret-0123456789-0123456789-y", salt="authjs.session-token"
    )


async def test_rotated_secret_keeps_open_csrf_forms_working() -> None:
    old = AuthClient(make_config(secret=["old-secret-0123456789-0123456789-x"]))
    token = await old.csrf_token()
    rotated = AuthClient(
        make_config(
            secret=["new-secret-0123456789-0123456789-y", "old-secret-0123456789-0123456789-x"]
        ),
        cookies=dict(old.cookies),
    )
    response = await rotated.post(
        "callback/credentials",
        form={"csrfToken": token, "username": "ada", "password": "correct horse"},
    )
    assert response.header("location") == "http://localhost:3000"


async def test_large_session_is_chunked_and_shrinks_back() -> None:
    def jwt_callback(token: dict[str, Any], trigger: str | None = None, session: Any = None) -> Any:
        if trigger == "signIn":
            token["blob"] = "x" * 9000
        if trigger == "update":
            token.pop("blob", None)
        return token

    client = AuthClient(make_config(callbacks=Callbacks(jwt=jwt_callback)))
    await sign_in(client)
    chunks = sorted(k for k in client.cookies if k.startswith("authjs.session-token"))
    assert chunks == [f"authjs.session-token.{i}" for i in range(len(chunks))]
    assert len(chunks) >= 3
    assert all(len(client.cookies[k]) <= 3936 for k in chunks)
    assert (await client.get("session")).data()["user"]["name"] == "Ada Lovelace"
    csrf = await client.csrf_token()
    response = await client.post("session", json_body={"csrfToken": csrf, "data": {}})
    deleted = [h for h in response.header_all("set-cookie") if "Max-Age=0" in h]
    assert sorted(h.split("=", 1)[0] for h in deleted) == chunks
    assert [k for k in client.cookies if k.startswith("authjs.session-token")] == [
        "authjs.session-token"
    ]


async def test_secure_cookies_on_https() -> None:
    client = AuthClient(make_config(), origin="https://app.example.com")
    response = await sign_in(client)
    names = {h.split("=", 1)[0] for h in response.header_all("set-cookie")}
    assert "__Secure-authjs.session-token" in names
    assert "__Host-authjs.csrf-token" in client.cookies
    assert all("; Secure" in h for h in response.header_all("set-cookie"))
    value = client.cookies["__Secure-authjs.session-token"]
    assert jwt.decode(token=value, secret=SECRET, salt="__Secure-authjs.session-token")


async def test_session_and_jwt_max_age() -> None:
    config = make_config(session=SessionOptions(max_age=3600), jwt=JWTOptions(max_age=600))
    client = AuthClient(config)
    await sign_in(client)
    token = session_token(client)
    assert token["exp"] - token["iat"] == 600


async def test_custom_encode_and_decode() -> None:
    async def encode(token: dict[str, Any], **_: Any) -> str:
        return "plain:" + str(token["sub"])

    def decode(token: str, **_: Any) -> dict[str, Any]:
        return {"sub": token.removeprefix("plain:"), "name": "custom"}

    client = AuthClient(make_config(jwt=JWTOptions(encode=encode, decode=decode)))
    await sign_in(client)
    assert client.cookies["authjs.session-token"] == "plain%3A42"
    assert (await client.get("session")).data()["user"] == {"name": "custom"}


# -- sign_in and redirect callbacks ---------------------------------------------------------


async def test_sign_in_callback_false_is_access_denied() -> None:
    client = AuthClient(make_config(callbacks=Callbacks(sign_in=lambda: False)))
    response = await sign_in(client)
    assert response.header("location") == "http://localhost:3000/auth/error?error=AccessDenied"
    assert "authjs.session-token" not in client.cookies


async def test_sign_in_callback_raising_is_access_denied(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def refuse(user: dict[str, Any]) -> bool:
        raise ValueError("banned user")

    client = AuthClient(make_config(callbacks=Callbacks(sign_in=refuse)))
    response = await sign_in(client)
    assert response.header("location") == "http://localhost:3000/auth/error?error=AccessDenied"
    assert "banned user" in caplog.text


async def test_sign_in_callback_url_redirects_without_session() -> None:
    async def elsewhere(user: dict[str, Any], credentials: dict[str, Any]) -> str:
        assert credentials["username"] == "ada"
        return "/verify-2fa"

    client = AuthClient(make_config(callbacks=Callbacks(sign_in=elsewhere)))
    response = await sign_in(client)
    assert response.header("location") == "http://localhost:3000/verify-2fa"
    assert "authjs.session-token" not in client.cookies


async def test_sign_in_callback_foreign_url_is_refused() -> None:
    client = AuthClient(make_config(callbacks=Callbacks(sign_in=lambda: "https://evil.com/")))
    response = await sign_in(client)
    assert response.header("location") == "http://localhost:3000"


async def test_custom_redirect_callback() -> None:
    def redirect(url: str, base_url: str) -> str:
        return base_url + "/always-here"

    client = AuthClient(make_config(callbacks=Callbacks(redirect=redirect)))
    token = await client.csrf_token()
    response = await client.post(
        "callback/credentials",
        form={
            "csrfToken": token,
            "username": "ada",
            "password": "correct horse",
            "callbackUrl": "/x",
        },
    )
    assert response.header("location") == "http://localhost:3000/always-here"


# -- events ---------------------------------------------------------------------------------


async def test_events_receive_their_messages() -> None:
    seen: dict[str, Any] = {}

    async def on_sign_in(user: dict[str, Any], account: dict[str, Any]) -> None:
        seen["sign_in"] = (user["id"], account["provider"])

    def on_session(session: dict[str, Any], token: dict[str, Any]) -> None:
        seen["session"] = (session["user"]["email"], token["sub"])

    client = AuthClient(make_config(events=Events(sign_in=on_sign_in, session=on_session)))
    await sign_in(client)
    await client.get("session")
    assert seen == {"sign_in": ("42", "credentials"), "session": ("ada@example.com", "42")}


async def test_failing_event_is_logged_and_swallowed(caplog: pytest.LogCaptureFixture) -> None:
    def broken(**_: Any) -> None:
        raise RuntimeError("audit log unavailable")

    client = AuthClient(make_config(events=Events(sign_in=broken, session=broken, sign_out=broken)))
    response = await sign_in(client)
    assert response.header("location") == "http://localhost:3000"
    assert (await client.get("session")).data()["user"]["name"] == "Ada Lovelace"
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert any("EventError" in r.getMessage() for r in errors)
    assert "audit log unavailable" in caplog.text


# -- authorize variants ----------------------------------------------------------------------


async def test_sync_authorize_with_one_argument_and_numeric_id() -> None:
    def authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
        return {"id": 7, "email": "u@x.com"} if credentials.get("pin") == "1234" else None

    client = AuthClient(make_config(providers=[Credentials(authorize=authorize)]))
    await sign_in(client, pin="1234")
    assert session_token(client)["sub"] == "7"


async def test_authorize_receives_the_request() -> None:
    seen: list[str] = []

    async def authorize(credentials: dict[str, Any], request: Any) -> dict[str, Any]:
        seen.append(request.url)
        return {"name": "no id"}

    client = AuthClient(make_config(providers=[Credentials(authorize=authorize)]))
    await sign_in(client, pin="1")
    assert seen == ["http://localhost:3000/auth/callback/credentials"]
    assert len(session_token(client)["sub"]) == 36


async def test_authorize_returning_a_non_mapping_is_configuration() -> None:
    client = AuthClient(make_config(providers=[Credentials(authorize=lambda c: "yes")]))
    response = await sign_in(client, pin="1")
    assert response.header("location") == "http://localhost:3000/auth/error?error=Configuration"


async def test_new_user_sign_in_uses_the_sign_up_trigger() -> None:
    from authui.context import Context
    from authui.csrf import create_csrf_state
    from authui.http import Request
    from authui.options import resolve
    from authui.sessions.jwt import JWTSessions

    triggers: list[str] = []

    def jwt_callback(token: dict[str, Any], trigger: str, is_new_user: bool) -> dict[str, Any]:
        triggers.append(trigger)
        return token

    options = resolve(make_config(callbacks=Callbacks(jwt=jwt_callback)))
    request = Request.build("GET", "http://localhost:3000/auth/callback/github")
    ctx = Context(
        request=request,
        options=options,
        action="callback",
        provider_id="github",
        url=request.url,
        origin="http://localhost:3000",
        body={},
        cookies=options.cookies(request.url),
        csrf=create_csrf_state(cookie_value=None, body_token=None, is_post=False, keys=["k"]),
    )
    cookies = await JWTSessions().create(ctx, user=dict(USER), account=None, is_new_user=True)
    assert triggers == ["signUp"]
    assert [c.name for c in cookies] == ["authjs.session-token"]
