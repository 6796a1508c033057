"""Passkeys through the core, with a software authenticator: the options endpoint's
decision rules, registration and sign-in, the counter, user verification, replays (a
challenge verifies once, also for synced passkeys whose counter stays 0), passkeys
registered twice, bad answers and the configuration checks.

The replay scenarios (``replayed_sign_in``, ``concurrent_answers``, ``replayed_adding``,
``registered_twice``) run here on the memory adapter and in
``tests/adapters/test_passkey_replays.py`` on every real store.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

import pytest

from authui import AuthConfig, Experimental, SessionOptions, validate_config
from authui.adapters.base import AdapterUser
from authui.adapters.memory import MemoryAdapter
from authui.checks import assert_config
from authui.errors import (
    DuplicateConditionalUI,
    ExperimentalFeatureNotEnabled,
    InvalidProvider,
    MissingWebAuthnAutocomplete,
)
from authui.failures import CONFIG_ERROR_MESSAGE
from authui.http import Response
from authui.providers.webauthn import Passkey, WebAuthn
from authui.testing import AuthClient
from tests.conftest import CREDENTIALS, make_config
from tests.soft_authenticator import SoftAuthenticator

APP = "http://localhost:3000"
SESSION_COOKIE = "authjs.session-token"
NOT_VERIFIED = f"{APP}/auth/error?error=WebAuthnVerificationError"
ALREADY_REGISTERED = f"{APP}/auth/error?error=PasskeyAlreadyRegistered"


def passkey_config(strategy: str = "database", adapter: object | None = None) -> AuthConfig:
    return make_config(
        providers=[CREDENTIALS, Passkey()],
        adapter=adapter if adapter is not None else MemoryAdapter(),
        session=SessionOptions(strategy=strategy),  # type: ignore[arg-type]
        experimental=Experimental(enable_webauthn=True),
    )


def passkey_client(strategy: str = "database", adapter: object | None = None) -> AuthClient:
    return AuthClient(passkey_config(strategy, adapter), origin=APP)


def new_email(kind: str = "user") -> str:
    return f"{kind}-{uuid.uuid4().hex[:8]}@example.com"


def sets_session(response: Response) -> bool:
    """Whether the response sets a session cookie (a sign-in happened)."""
    return any(
        c.startswith(f"{SESSION_COOKIE}=") and "Max-Age=0" not in c
        for c in response.header_all("set-cookie")
    )


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


async def register(
    client: AuthClient, email: str, key: SoftAuthenticator | None = None
) -> tuple[SoftAuthenticator, Any]:
    asked = await options_for(client, email=email)
    assert asked.status == 200
    assert asked.data()["action"] == "register"
    key = key or SoftAuthenticator(APP)
    done = await answer(client, "register", key.register(asked.data()["options"]))
    return key, done


async def captured_answer(
    browser: AuthClient, action: str, answer_with: Any, **query: str
) -> tuple[dict[str, str], dict[str, str]]:
    """A ceremony in ``browser`` up to its answer, which is not sent: the answer's form
    (``answer_with(options)`` makes its ``data``) and the cookies it would be sent with."""
    csrf = await browser.csrf_token()
    asked = await options_for(browser, action=action, **query)
    assert asked.status == 200, asked.text
    form = {
        "csrfToken": csrf,
        "action": action,
        "data": json.dumps(answer_with(asked.data()["options"])),
        "callbackUrl": f"{APP}/home",
    }
    return form, dict(browser.cookies)


# --- replay scenarios, for every store ---------------------------------------------------


async def replayed_sign_in(config: AuthConfig, *, synced: bool) -> None:
    """A passkey sign-in answer captured with its cookies and sent again is refused: no
    session, and the error page says the passkey request was used already. A synced
    passkey's counter is 0 at every use, so only the used challenge tells them apart."""
    key = SoftAuthenticator(APP, synced=synced)
    await register(AuthClient(config, origin=APP), new_email("replay"), key)
    browser = AuthClient(config, origin=APP)
    form, cookies = await captured_answer(browser, "authenticate", key.authenticate)
    first = await browser.post("callback/passkey", form=form)
    assert first.header("location") == f"{APP}/home"
    assert sets_session(first)

    attacker = AuthClient(config, origin=APP, cookies=cookies)
    replayed = await attacker.post("callback/passkey", form=form)
    assert (replayed.status, replayed.header("location")) == (302, NOT_VERIFIED)
    assert not sets_session(replayed)
    assert (await attacker.get("session")).data() is None
    page = await attacker.get("error?error=WebAuthnVerificationError")
    assert page.status == 400
    assert "already used" in page.text


async def concurrent_answers(config: AuthConfig, copies: int = 4) -> None:
    """The same answer with the same cookies, sent ``copies`` times at once: exactly one
    of them signs in."""
    key = SoftAuthenticator(APP, synced=True)
    await register(AuthClient(config, origin=APP), new_email("race"), key)
    form, cookies = await captured_answer(
        AuthClient(config, origin=APP), "authenticate", key.authenticate
    )
    browsers = [AuthClient(config, origin=APP, cookies=dict(cookies)) for _ in range(copies)]
    answers = await asyncio.gather(*(b.post("callback/passkey", form=form) for b in browsers))
    places = [str(a.header("location")) for a in answers]
    assert sorted(places) == sorted([f"{APP}/home", *[NOT_VERIFIED] * (copies - 1)])
    assert [sets_session(a) for a in answers].count(True) == 1


async def replayed_adding(config: AuthConfig) -> None:
    """A signed-in user's "Add a passkey" answer, sent again with its cookies: refused as
    a used challenge (not a server error), and the passkey is stored once."""
    client = AuthClient(config, origin=APP)
    email = new_email("adding")
    await register(client, email)
    second = SoftAuthenticator(APP)
    form, cookies = await captured_answer(client, "register", second.register)
    added = await client.post("callback/passkey", form=form)
    assert added.header("location") == f"{APP}/home"
    replayed = await AuthClient(config, origin=APP, cookies=cookies).post(
        "callback/passkey", form=form
    )
    assert (replayed.status, replayed.header("location")) == (302, NOT_VERIFIED)
    adapter: Any = config.adapter
    user = await adapter.get_user_by_email(email)
    assert len(await adapter.list_authenticators_by_user_id(user.id)) == 2


async def registered_twice(config: AuthConfig) -> None:
    """A fresh ceremony that registers a passkey the site stores already (an
    authenticator that ignores ``excludeCredentials``): refused as already registered,
    for the signed-in owner adding it again and for a sign-up with another address; the
    error page says so, and nothing is stored."""
    owner = AuthClient(config, origin=APP)
    email = new_email("owner")
    key, _ = await register(owner, email)
    form, _ = await captured_answer(owner, "register", key.register)
    again = await owner.post("callback/passkey", form=form)
    assert (again.status, again.header("location")) == (302, ALREADY_REGISTERED)

    other = new_email("other")
    stranger = AuthClient(config, origin=APP)
    form, _ = await captured_answer(stranger, "register", key.register, email=other)
    refused = await stranger.post("callback/passkey", form=form)
    assert (refused.status, refused.header("location")) == (302, ALREADY_REGISTERED)
    assert not sets_session(refused)
    adapter: Any = config.adapter
    assert await adapter.get_user_by_email(other) is None
    user = await adapter.get_user_by_email(email)
    [stored] = await adapter.list_authenticators_by_user_id(user.id)
    assert stored.user_id == user.id
    page = await stranger.get("error?error=PasskeyAlreadyRegistered")
    assert page.status == 409
    assert "already registered" in page.text


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


@pytest.mark.parametrize("synced", [False, True], ids=["device-bound", "synced"])
async def test_a_captured_answer_sent_again_with_its_cookies_is_refused(synced: bool) -> None:
    await replayed_sign_in(passkey_config(), synced=synced)


async def test_one_answer_sent_several_times_at_once_signs_in_once() -> None:
    await concurrent_answers(passkey_config())


async def test_a_replayed_passkey_addition_is_refused_as_used() -> None:
    await replayed_adding(passkey_config())


async def test_a_passkey_registered_twice_is_refused() -> None:
    await registered_twice(passkey_config())


async def test_an_answer_after_the_challenge_expired_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The challenge is taken for the provider's timeout (here 60 s), even while its
    cookie (15 minutes) is still there."""
    config = make_config(
        providers=[Passkey(timeout=60_000)],
        adapter=MemoryAdapter(),
        experimental=Experimental(enable_webauthn=True),
    )
    key = SoftAuthenticator(APP)
    await register(AuthClient(config, origin=APP), new_email("late"), key)
    browser = AuthClient(config, origin=APP)
    form, _ = await captured_answer(browser, "authenticate", key.authenticate)
    later = datetime.now(UTC) + timedelta(seconds=61)
    monkeypatch.setattr("authui.actions.webauthn.challenges.now", lambda: later)
    late = await browser.post("callback/passkey", form=form)
    assert late.header("location") == NOT_VERIFIED
    assert not sets_session(late)


async def test_the_challenge_is_recorded_hashed_until_it_is_answered() -> None:
    adapter = MemoryAdapter()
    client = passkey_client(adapter=adapter)
    key, _ = await register(client, "ada@example.com")
    asked = await options_for(client, action="authenticate")
    challenge = asked.data()["options"]["challenge"]
    [(stored, expires)] = [(c.key, c.expires) for c in adapter.challenges.values()]
    assert re.fullmatch("[0-9a-f]{64}", stored)  # a SHA-256 digest, not the challenge
    assert challenge not in stored
    assert 295 <= (expires - datetime.now(UTC)).total_seconds() <= 300  # the 5-minute timeout
    await answer(client, "authenticate", key.authenticate(asked.data()["options"]))
    assert adapter.challenges == {}


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


class WithoutChallenges(MemoryAdapter):
    """An adapter written before single-use challenges: no ``create_challenge`` or
    ``use_challenge``."""

    create_challenge = None  # type: ignore[assignment]
    use_challenge = None  # type: ignore[assignment]


async def test_without_the_adapters_challenges_each_process_uses_a_challenge_once() -> None:
    """An adapter without ``create_challenge`` and ``use_challenge`` (or a database without
    their table) still serves passkeys; this process refuses an answer sent again."""
    config = passkey_config(adapter=WithoutChallenges())
    validate_config(config)
    await replayed_sign_in(config, synced=True)


async def test_without_the_webauthn_package_passkeys_stop_the_start(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """py_webauthn missing (``authui`` installed without the ``webauthn`` extra): the app
    does not start, and the error says what to install; requests meet the configuration
    error, never a traceback."""
    for name in [m for m in sys.modules if m == "webauthn" or m.startswith("webauthn.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "webauthn", None)  # `import webauthn` fails
    config = passkey_config()
    with pytest.raises(InvalidProvider) as raised:
        validate_config(config)
    assert "pip install 'authui[webauthn]'" in str(raised.value)
    client = AuthClient(config, origin=APP)
    page = await client.get("signin")
    assert page.status == 500
    assert ">Server error</h1>" in page.text
    options = await options_for(client, email="ada@example.com")
    assert options.status == 500
    assert options.data() == {"message": CONFIG_ERROR_MESSAGE}
    assert not [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]


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
    moved = await client.get("passkeys")
    assert moved.header("location") == f"{APP}/auth/account/passkeys"
    away = await client.get("account/passkeys", headers={"accept": "text/html"})
    assert away.header("location") == (
        f"{APP}/auth/signin?callbackUrl=http%3A%2F%2Flocalhost%3A3000%2Fauth%2Faccount%2Fpasskeys"
    )
    key, _ = await register(client, "ada@example.com")
    await sign_in(client, key)
    html = (await client.get("account/passkeys", headers={"accept": "text/html"})).body.decode()
    assert html.count('class="authui-account-item authui-passkey"') == 1
    assert "Synced across your devices" in html or "On one device only" in html
    assert 'data-authui-passkey-register="passkey"' in html
    assert "Add a passkey" in html
