"""Database sessions through Auth(): creation, throttled extension, expiry, sign-out,
the cookie re-set on each check, and how many adapter calls a session check costs."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from authui import Callbacks, Events, SessionOptions
from authui.adapters import AdapterSession, MemoryAdapter
from authui.options import aclose
from authui.testing import AuthClient
from tests.conftest import make_config


class CountingAdapter(MemoryAdapter):
    """The memory adapter, counting every call by method name."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: Counter[str] = Counter()

    def __getattribute__(self, name: str) -> Any:
        attribute = super().__getattribute__(name)
        if callable(attribute) and not name.startswith("_"):
            super().__getattribute__("calls")[name] += 1
        return attribute


def database_client(adapter: MemoryAdapter, **overrides: Any) -> AuthClient:
    return AuthClient(make_config(adapter=adapter, **overrides))


async def signed_in(adapter: MemoryAdapter, **overrides: Any) -> AuthClient:
    client = database_client(adapter, **overrides)
    response = await client.sign_in_with_credentials(username="ada", password="correct horse")
    assert response.status == 302
    return client


def only_session(adapter: MemoryAdapter) -> AdapterSession:
    assert len(adapter.sessions) == 1
    return next(iter(adapter.sessions.values()))


async def test_an_adapter_makes_database_the_default_and_stores_the_user() -> None:
    adapter = MemoryAdapter()
    client = database_client(adapter)
    response = await client.sign_in_with_credentials(username="ada", password="correct horse")
    assert response.header("location") == (
        "http://localhost:3000/auth/new-user?callbackUrl=http%3A%2F%2Flocalhost%3A3000"
    )
    user = adapter.users["42"]
    assert (user.email, user.name) == ("ada@example.com", "Ada Lovelace")
    session = only_session(adapter)
    assert session.user_id == "42"
    assert client.cookies["authjs.session-token"] == session.session_token
    again = await client.sign_in_with_credentials(username="ada", password="correct horse")
    assert again.header("location") == "http://localhost:3000"
    assert len(adapter.users) == 1


async def test_session_json_has_the_stored_expiry_and_user() -> None:
    adapter = MemoryAdapter()
    client = await signed_in(adapter)
    stored = only_session(adapter).expires
    data = (await client.get("session")).data()
    assert data == {
        "user": {"name": "Ada Lovelace", "email": "ada@example.com", "image": "https://x/a.png"},
        "expires": stored.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
    }


async def test_a_session_check_is_one_adapter_call_until_update_age() -> None:
    adapter = CountingAdapter()
    client = await signed_in(adapter)
    adapter.calls.clear()
    for _ in range(3):
        assert (await client.get("session")).data() is not None
    assert adapter.calls == Counter({"get_session_and_user": 3})


async def test_expiry_is_extended_once_update_age_has_passed() -> None:
    adapter = CountingAdapter()
    client = await signed_in(adapter, session=SessionOptions(max_age=3600, update_age=600))
    token = only_session(adapter).session_token
    adapter.sessions[token] = AdapterSession(
        session_token=token,
        user_id="42",
        expires=datetime.now(UTC) + timedelta(seconds=3600 - 601),
    )
    adapter.calls.clear()
    response = await client.get("session")
    assert adapter.calls == Counter({"get_session_and_user": 1}), "the answer waited"
    await client.config.resolved.pending.wait()
    assert adapter.calls["get_session_and_user"] == 1
    assert adapter.calls["update_session"] == 1
    # the details row moves with it (looked up with has(), then called)
    assert adapter.calls["touch_session_details"] == 2
    extended = adapter.sessions[token].expires
    assert abs(extended - (datetime.now(UTC) + timedelta(seconds=3600))) < timedelta(seconds=5)
    cookie = next(h for h in response.header_all("set-cookie") if h.startswith("authjs.session"))
    assert f"authjs.session-token={token};" in cookie
    assert "Expires=" in cookie


def due(adapter: MemoryAdapter, token: str) -> None:
    """Make the stored session's expiry due to be pushed out (``max_age=3600,
    update_age=600``)."""
    adapter.sessions[token] = AdapterSession(
        session_token=token,
        user_id="42",
        expires=datetime.now(UTC) + timedelta(seconds=3600 - 601),
    )


async def test_a_check_with_no_expiry_to_push_out_sets_no_cookie() -> None:
    """The cookie expires with the stored session: it is re-set when the expiry moves."""
    adapter = MemoryAdapter()
    client = await signed_in(adapter, session=SessionOptions(max_age=3600, update_age=600))
    response = await client.get("session")
    assert response.data() is not None
    assert not [h for h in response.header_all("set-cookie") if "session-token" in h]


async def test_a_burst_of_checks_pushes_the_expiry_out_once() -> None:
    adapter = CountingAdapter()
    client = await signed_in(adapter, session=SessionOptions(max_age=3600, update_age=600))
    token = only_session(adapter).session_token
    due(adapter, token)
    adapter.calls.clear()
    answers = await asyncio.gather(*(client.get("session") for _ in range(5)))
    assert all(a.data() is not None for a in answers)
    await client.config.resolved.pending.wait()
    assert adapter.calls["update_session"] == 1


async def test_a_failed_push_is_logged_and_tried_again_by_the_next_check(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Flaky(CountingAdapter):
        fail = True

        async def update_session(self, session_token: str, expires: datetime) -> Any:
            if self.fail:
                raise ConnectionError("database went away")
            return await super().update_session(session_token, expires)

    adapter = Flaky()
    client = await signed_in(adapter, session=SessionOptions(max_age=3600, update_age=600))
    token = only_session(adapter).session_token
    due(adapter, token)
    first = await client.get("session")
    assert first.status == 200
    assert first.data() is not None  # the answer did not wait for the write
    await client.config.resolved.pending.wait()
    assert "database went away" in caplog.text
    adapter.fail = False
    assert (await client.get("session")).data() is not None
    await client.config.resolved.pending.wait()
    extended = adapter.sessions[token].expires
    assert abs(extended - (datetime.now(UTC) + timedelta(seconds=3600))) < timedelta(seconds=5)


async def test_closing_the_configuration_waits_for_pending_writes() -> None:
    written = asyncio.Event()

    class Slow(MemoryAdapter):
        async def update_session(self, session_token: str, expires: datetime) -> Any:
            await asyncio.sleep(0.05)
            written.set()
            return await super().update_session(session_token, expires)

    adapter = Slow()
    client = await signed_in(adapter, session=SessionOptions(max_age=3600, update_age=600))
    due(adapter, only_session(adapter).session_token)
    await client.get("session")
    assert not written.is_set()
    await aclose(client.config)
    assert written.is_set()


async def test_update_age_zero_extends_every_time() -> None:
    adapter = CountingAdapter()
    client = await signed_in(adapter, session=SessionOptions(update_age=0))
    adapter.calls.clear()
    for _ in range(2):
        await client.get("session")
        await client.config.resolved.pending.wait()
    assert adapter.calls["update_session"] == 2


async def test_expired_session_is_deleted_and_its_cookie_cleared() -> None:
    adapter = MemoryAdapter()
    client = await signed_in(adapter)
    token = only_session(adapter).session_token
    adapter.sessions[token] = AdapterSession(
        session_token=token, user_id="42", expires=datetime.now(UTC) - timedelta(seconds=1)
    )
    response = await client.get("session")
    assert response.body == b"null"
    assert adapter.sessions == {}
    assert "authjs.session-token=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax" in (
        response.header_all("set-cookie")
    )


async def test_unknown_session_token_is_null_and_cleared() -> None:
    client = database_client(MemoryAdapter())
    client.cookies["authjs.session-token"] = "not-a-session"
    assert (await client.get("session")).body == b"null"
    assert "authjs.session-token" not in client.cookies


async def test_sign_out_deletes_the_row_and_emits_the_session() -> None:
    ended: list[Any] = []
    adapter = MemoryAdapter()
    client = await signed_in(adapter, events=Events(sign_out=lambda session: ended.append(session)))
    token = only_session(adapter).session_token
    csrf = await client.csrf_token()
    response = await client.post("signout", form={"csrfToken": csrf})
    assert response.status == 302
    assert adapter.sessions == {}
    assert ended[0].session_token == token
    assert "authjs.session-token" not in client.cookies
    assert adapter.users["42"].email == "ada@example.com"


async def test_adapter_failure_is_logged_and_answers_null(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Broken(MemoryAdapter):
        async def get_session_and_user(self, session_token: str) -> Any:
            raise RuntimeError("schema does not match")

    adapter = Broken()
    client = await signed_in(adapter)
    response = await client.get("session")
    assert (response.status, response.body) == (200, b"null")
    assert "SessionTokenError" in caplog.text
    assert "schema does not match" in caplog.text
    assert "authjs.session-token" in client.cookies


async def test_an_outage_answers_503_and_keeps_the_cookie(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Away(MemoryAdapter):
        async def get_session_and_user(self, session_token: str) -> Any:
            raise ConnectionError("database went away")

    client = await signed_in(Away())
    response = await client.get("session")
    assert (response.status, response.body) == (503, b"null")
    assert response.header("retry-after") == "30"
    assert "ServiceUnavailable" in caplog.text
    assert "database went away" in caplog.text
    assert "authjs.session-token" in client.cookies


async def test_session_callback_gets_the_stored_user() -> None:
    def session_callback(session: dict[str, Any], user: Any) -> dict[str, Any]:
        session["user"]["id"] = user.id
        return session

    client = await signed_in(MemoryAdapter(), callbacks=Callbacks(session=session_callback))
    assert (await client.get("session")).data()["user"]["id"] == "42"


async def test_new_user_page_renames_the_stored_user() -> None:
    adapter = MemoryAdapter()
    client = await signed_in(adapter)
    csrf = await client.csrf_token()
    done = await client.post("new-user", form={"csrfToken": csrf, "name": "Ada King"})
    assert done.status == 302
    assert adapter.users["42"].name == "Ada King"
    assert (await client.get("session")).data()["user"]["name"] == "Ada King"


async def test_create_user_event_for_new_credentials_users() -> None:
    created: list[Any] = []
    await signed_in(MemoryAdapter(), events=Events(create_user=lambda user: created.append(user)))
    assert [u["email"] for u in created] == ["ada@example.com"]


async def test_custom_session_token_generator() -> None:
    adapter = MemoryAdapter()
    session = SessionOptions(generate_session_token=lambda: "fixed-token-123")
    await signed_in(adapter, session=session)
    assert only_session(adapter).session_token == "fixed-token-123"


async def test_jwt_strategy_with_an_adapter_still_stores_users() -> None:
    triggers: list[str] = []

    def jwt(token: dict[str, Any], trigger: str | None = None) -> dict[str, Any]:
        triggers.append(trigger or "check")
        return token

    adapter = MemoryAdapter()
    client = database_client(
        adapter, session=SessionOptions(strategy="jwt"), callbacks=Callbacks(jwt=jwt)
    )
    response = await client.sign_in_with_credentials(username="ada", password="correct horse")
    assert (
        response.header(
            "location",
        )
        is not None
    )
    assert adapter.users["42"].email == "ada@example.com"
    assert adapter.sessions == {}
    assert (await client.get("session")).data()["user"]["name"] == "Ada Lovelace"
    await client.sign_in_with_credentials(username="ada", password="correct horse")
    assert triggers == ["signUp", "check", "signIn"]
    assert len(adapter.users) == 1
