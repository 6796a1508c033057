"""Passkeys through the core, with a software authenticator: the options endpoint's
decision rules, registration and sign-in, the counter, user verification, replays, bad
answers and the configuration checks."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

import pytest

from authui import Experimental, SessionOptions
from authui.adapters.base import AdapterUser
from authui.adapters.memory import MemoryAdapter
from authui.checks import assert_config
from authui.errors import (
    DuplicateConditionalUI,
    ExperimentalFeatureNotEnabled,
    MissingWebAuthnAutocomplete,
)
from authui.providers.webauthn import Passkey, WebAuthn
from authui.testing import AuthClient
from tests.conftest import CREDENTIALS, make_config
from tests.soft_authenticator import SoftAuthenticator

APP = "http://localhost:3000"


def passkey_client(strategy: str = "database", adapter: MemoryAdapter | None = None) -> AuthClient:
    config = make_config(
        providers=[CREDENTIALS, Passkey()],
        adapter=adapter or MemoryAdapter(),
        session=SessionOptions(strategy=strategy),  # type: ignore[arg-type]
        experimental=Experimental(enable_webauthn=True),
    )
    return AuthClient(config, origin=APP)


async def options_for(client: AuthClient, **query: str) -> Any:
    return await client.get(f"webauthn-options/passkey?{urlencode(query)}")


async def answer(client: AuthClient, action: str, data: Any, **extra: str) -> Any:
    form = {
        "csrfToken": await client.csrf_token(),
        "action": action,
        "data": data if isinstance(data, str) else json.dumps(data),
        "callbackUrl": f"{APP}/home",
        **extra,
    }
    return await client.post("callback/passkey", form=form)


async def register(client: AuthClient, email: str) -> tuple[SoftAuthenticator, Any]:
    asked = await options_for(client, email=email)
    assert asked.status == 200
    assert asked.data()["action"] == "register"
    key = SoftAuthenticator(APP)
    done = await answer(client, "register", key.register(asked.data()["options"]))
    return key, done


async def sign_in(client: AuthClient, key: SoftAuthenticator) -> Any:
    asked = await options_for(client, action="authenticate")
    return await answer(client, "authenticate", key.authenticate(asked.data()["options"]))


def adapter_of(client: AuthClient) -> MemoryAdapter:
    adapter = client.config.adapter
    assert isinstance(adapter, MemoryAdapter)
    return adapter


@pytest.mark.parametrize("strategy", ["database", "jwt"])
async def test_new_user_registers_and_signs_in_again(strategy: str) -> None:
    client = passkey_client(strategy)
    key, done = await register(client, "Ada@Example.com")
    assert str(done.header("location")).startswith(f"{APP}/auth/new-user?callbackUrl=")
    assert (await client.get("session")).data()["user"]["email"] == "ada@example.com"
    adapter = adapter_of(client)
    [stored] = adapter.authenticators.values()
    [user] = adapter.users.values()
    assert stored.user_id == user.id
    assert adapter.accounts[("passkey", stored.credential_id)].type == "webauthn"
    await client.post("signout", form={"csrfToken": await client.csrf_token()})
    assert (await client.get("session")).data() is None
    again = await sign_in(client, key)
    assert again.header("location") == f"{APP}/home"
    assert (await client.get("session")).data()["user"]["email"] == "ada@example.com"
    assert adapter.authenticators[stored.credential_id].counter == 1
    await sign_in(AuthClient(client.config, origin=APP), key)
    assert adapter.authenticators[stored.credential_id].counter == 2


async def test_signed_in_user_adds_a_second_passkey() -> None:
    client = passkey_client()
    await register(client, "ada@example.com")
    asked = await options_for(client, action="register")
    assert asked.data()["action"] == "register"
    assert len(asked.data()["options"]["excludeCredentials"]) == 1
    second = SoftAuthenticator(APP)
    done = await answer(client, "register", second.register(asked.data()["options"]))
    assert done.header("location") == f"{APP}/home"
    adapter = adapter_of(client)
    assert len(adapter.authenticators) == 2
    assert len({a.user_id for a in adapter.authenticators.values()}) == 1
    assert len(adapter.sessions) == 1  # the session was kept, not doubled
    assert (await sign_in(AuthClient(client.config, origin=APP), second)).header("location") == (
        f"{APP}/home"
    )


@pytest.mark.parametrize(
    ("signed_in", "query", "expected"),
    [
        (False, {}, "authenticate"),
        (False, {"email": "new@example.com"}, "register"),
        (False, {"email": "known@example.com"}, "authenticate"),
        (False, {"action": "authenticate", "email": "new@example.com"}, "authenticate"),
        (False, {"action": "register", "email": "new@example.com"}, "register"),
        (False, {"action": "register", "email": "known@example.com"}, 400),
        (False, {"action": "register"}, 400),
        (True, {}, 400),
        (True, {"action": "register"}, "register"),
        (True, {"action": "authenticate"}, "authenticate"),
        (False, {"action": "delete"}, 400),
    ],
)
async def test_options_decision_rules(
    signed_in: bool, query: dict[str, str], expected: str | int
) -> None:
    adapter = MemoryAdapter()
    await adapter.create_user(AdapterUser(id="k", email="known@example.com"))
    client = passkey_client(adapter=adapter)
    if signed_in:
        await client.sign_in_with_credentials(username="ada", password="correct horse")
    asked = await options_for(client, **query)
    if expected == 400:
        assert asked.status == 400
        message = "Invalid action" if query.get("action") == "delete" else "Invalid request"
        assert asked.data() == {"error": message}
        assert not [c for c in asked.header_all("set-cookie") if "challenge" in c]
    else:
        assert asked.status == 200
        assert asked.data()["action"] == expected
        options = asked.data()["options"]
        if expected == "register":
            assert options["rp"] == {"id": "localhost", "name": "localhost:3000"}
            assert options["authenticatorSelection"]["userVerification"] == "required"
            assert options["authenticatorSelection"]["residentKey"] == "preferred"
            assert options["attestation"] == "none"
        else:
            assert options["rpId"] == "localhost"
            assert options["userVerification"] == "required"
        assert any("authjs.challenge=" in c for c in asked.header_all("set-cookie"))


async def test_without_user_verification_the_ceremony_is_refused() -> None:
    client = passkey_client()
    asked = await options_for(client, email="ada@example.com")
    key = SoftAuthenticator(APP, user_verified=False)
    refused = await answer(client, "register", key.register(asked.data()["options"]))
    assert refused.header("location") == f"{APP}/auth/error?error=WebAuthnVerificationError"
    assert adapter_of(client).users == {}


async def test_a_replayed_answer_is_refused() -> None:
    client = passkey_client()
    key, _ = await register(client, "ada@example.com")
    asked = await options_for(client, action="authenticate")
    cookies = dict(client.cookies)
    data = key.authenticate(asked.data()["options"])
    assert (await answer(client, "authenticate", data)).header("location") == f"{APP}/home"
    replayer = AuthClient(client.config, origin=APP, cookies=cookies)  # the same challenge
    replayed = await answer(replayer, "authenticate", data)
    assert replayed.header("location") == f"{APP}/auth/error?error=WebAuthnVerificationError"


async def test_the_challenge_cookie_is_spent_by_the_first_answer() -> None:
    client = passkey_client()
    key, _ = await register(client, "ada@example.com")
    asked = await options_for(client, action="authenticate")
    data = key.authenticate(asked.data()["options"])
    await answer(client, "authenticate", data)
    second = await answer(client, "authenticate", data)
    assert second.header("location") == f"{APP}/auth/error?error=WebAuthnVerificationError"


@pytest.mark.parametrize(
    ("action", "data"),
    [
        ("authenticate", ""),
        ("authenticate", "{not json"),
        ("authenticate", '["a list"]'),
        ("authenticate", json.dumps({"id": "bm90LXJlZ2lzdGVyZWQ", "response": {}})),
        ("register", json.dumps({"id": "x", "response": {}})),
        ("dance", json.dumps({"id": "x"})),
    ],
)
async def test_bad_answers_are_clear_errors(
    action: str, data: str, caplog: pytest.LogCaptureFixture
) -> None:
    client = passkey_client()
    await options_for(client, email="new@example.com")
    refused = await answer(client, action, data)
    assert refused.status == 302
    assert refused.header("location") == f"{APP}/auth/error?error=WebAuthnVerificationError"
    assert "WebAuthnVerificationError" in "\n".join(r.getMessage() for r in caplog.records)


async def test_an_answer_without_csrf_token_is_refused() -> None:
    client = passkey_client()
    asked = await options_for(client, email="ada@example.com")
    data = SoftAuthenticator(APP).register(asked.data()["options"])
    form = {"action": "register", "data": json.dumps(data)}
    refused = await client.post("callback/passkey", form=form)
    assert refused.header("location") == f"{APP}/auth/signin?error=MissingCSRF"


async def test_registering_an_email_of_a_stored_user_is_refused() -> None:
    adapter = MemoryAdapter()
    client = passkey_client(adapter=adapter)
    asked = await options_for(client, action="register", email="late@example.com")
    await adapter.create_user(AdapterUser(id="late", email="late@example.com"))  # meanwhile
    refused = await answer(
        client, "register", SoftAuthenticator(APP).register(asked.data()["options"])
    )
    assert refused.header("location") == f"{APP}/auth/signin?error=AccountNotLinked"
    assert adapter.authenticators == {}


def test_passkeys_are_experimental() -> None:
    config = make_config(providers=[Passkey()], adapter=MemoryAdapter())
    assert isinstance(assert_config(config).errors[0], ExperimentalFeatureNotEnabled)


def test_conditional_ui_checks() -> None:
    flag = Experimental(enable_webauthn=True)
    two = make_config(providers=[Passkey(), WebAuthn()], adapter=MemoryAdapter(), experimental=flag)
    assert any(isinstance(e, DuplicateConditionalUI) for e in assert_config(two).errors)
    bare = WebAuthn(form_fields={"email": {"label": "Email", "autocomplete": "email"}})
    config = make_config(providers=[bare], adapter=MemoryAdapter(), experimental=flag)
    assert any(isinstance(e, MissingWebAuthnAutocomplete) for e in assert_config(config).errors)
    assert "experimental-webauthn" in assert_config(config).warnings


async def test_passkeys_page_lists_the_users_passkeys() -> None:
    client = passkey_client()
    away = await client.get("passkeys")
    assert away.header("location") == (
        f"{APP}/auth/signin?callbackUrl=http%3A%2F%2Flocalhost%3A3000%2Fauth%2Fpasskeys"
    )
    key, _ = await register(client, "ada@example.com")
    await sign_in(client, key)
    html = (await client.get("passkeys")).body.decode()
    assert "Passkeys of ada@example.com" in html
    assert html.count('class="authui-passkey"') == 1
    assert "used 1 times" in html
    assert 'data-authui-passkey-register="passkey"' in html
    assert "Add a passkey" in html
