"""Signing in with a password: one answer for every refusal, Auth.js's client, htmx, the
throttle, the CSRF check of every password form, and hashes kept up to date when the
Argon2 parameters change (without overwriting a change made meanwhile)."""

from __future__ import annotations

from typing import Any

import pytest

from authui import Argon2, Limit, Throttle
from authui.adapters.factors import PasswordRecord
from authui.dates import now
from authui.passwords.hashing import hash_password
from tests.account.support import APP, HTMX, JSON, PAGE, text_of
from tests.passwords.support import (
    CHEAP,
    CREDENTIALS_SIGNIN,
    HOME,
    NEWER,
    STRONG,
    form_post,
    password_sign_in,
    password_site,
)


def cookie_names(answer: Any) -> set[str]:
    return {h.split("=", 1)[0] for h in answer.header_all("set-cookie")}


async def test_a_right_password_signs_in(strategy: str) -> None:
    site = await password_site(strategy)
    ann = await site.add_user("ann@example.com", name="Ann")
    browser = site.browser()
    answer = await password_sign_in(browser, "  ANN@Example.com ", STRONG)
    assert answer.status == 302
    assert answer.header("location") == HOME
    session = (await browser.get("session")).data()
    assert isinstance(session, dict)
    # As in Auth.js: a database session shows the stored user (no image: null); a JWT
    # session's token has no picture claim for a user without one, so no image at all.
    user = {"name": "Ann", "email": "ann@example.com"}
    assert session["user"] == (user | {"image": None} if strategy == "database" else user)
    assert await site.session_amr(browser) == ["pwd"]
    [event] = site.emitted("sign_in")
    assert event["account"]["provider"] == "password"
    assert event["account"]["type"] == "credentials"
    assert event["user"]["id"] == ann.id
    assert await site.activity(ann.id) == ["sign-in"]


async def test_every_refusal_is_the_same_answer(strategy: str) -> None:
    site = await password_site(strategy)
    await site.add_user("ann@example.com")
    await site.add_user("bob@example.com", password=None)  # signs in with links only
    answers = []
    for email, password in [
        ("ann@example.com", "not-the-password-at-all"),  # a wrong password
        ("zed@example.com", "not-the-password-at-all"),  # an unknown address
        ("bob@example.com", "not-the-password-at-all"),  # no password
        ("ann@example.com", ""),  # none typed
        ("not an address", STRONG),
        ("ann@example.com", STRONG + "x" * 300),  # longer than any password
    ]:
        browser = site.browser()
        answer = await password_sign_in(browser, email, password)
        answers.append((answer.status, answer.header("location"), cookie_names(answer)))
        assert not await site.has_session(browser)
    assert answers == [(302, CREDENTIALS_SIGNIN, answers[0][2])] * len(answers)
    assert site.emitted("sign_in") == []
    page = await site.browser().get(CREDENTIALS_SIGNIN.removeprefix(f"{APP}/auth/"), headers=PAGE)
    assert "Sign in failed. Check the details you provided are correct." in text_of(page)


async def test_auth_js_client_gets_the_url_as_json(strategy: str) -> None:
    """``signIn("password", {email, password, redirect: false})`` of next-auth posts the
    form with ``X-Auth-Return-Redirect: 1`` and reads ``{url}``."""
    site = await password_site(strategy)
    await site.add_user("ann@example.com")
    browser = site.browser()
    headers = {"x-auth-return-redirect": "1"}
    wrong = await password_sign_in(browser, "ann@example.com", NEWER, headers=headers)
    assert (wrong.status, wrong.data()) == (200, {"url": CREDENTIALS_SIGNIN})
    right = await password_sign_in(browser, "ann@example.com", STRONG, headers=headers)
    assert (right.status, right.data()) == (200, {"url": HOME})
    assert await site.has_session(browser)


async def test_htmx_gets_the_form_again_with_the_message() -> None:
    site = await password_site()
    await site.add_user("ann@example.com")
    answer = await password_sign_in(site.browser(), "ann@example.com", NEWER, headers=HTMX)
    assert answer.status == 200
    assert ("Vary", "HX-Request") in answer.headers
    assert "Sign in failed. Check the details you provided are correct." in text_of(answer)
    assert 'value="ann@example.com"' in answer.text
    assert NEWER not in answer.text
    right = await password_sign_in(site.browser(), "ann@example.com", STRONG, headers=HTMX)
    assert (right.status, right.header("hx-redirect")) == (200, HOME)


async def test_failed_sign_ins_are_throttled_per_account() -> None:
    throttle = Throttle(credentials_per_account=Limit(3, 300), credentials_per_client=None)
    site = await password_site(throttle=throttle)
    ann = await site.add_user("ann@example.com")
    await site.add_user("bob@example.com")
    for n in range(3):
        browser = site.browser(client_address=f"192.0.2.{n + 1}")
        answer = await password_sign_in(browser, "ann@example.com", f"wrong-guess-{n}-xyz")
        assert answer.header("location") == CREDENTIALS_SIGNIN
    browser = site.browser(client_address="192.0.2.99")
    held = await password_sign_in(browser, "Ann@example.com", STRONG)  # even the right one
    assert held.status == 429
    assert 0 < int(held.header("retry-after") or 0) <= 300
    assert "Too many attempts." in text_of(held)
    assert not await site.has_session(browser)
    kinds = await site.activity(ann.id)
    assert kinds[0] == "sign-in-throttled"
    assert kinds.count("sign-in-failed") == 3
    api = await password_sign_in(site.browser(), "ann@example.com", STRONG, headers=JSON)
    assert api.status == 429
    # Another account is not held back.
    assert (await password_sign_in(browser, "bob@example.com", STRONG)).header("location") == HOME


async def test_a_success_starts_the_count_again() -> None:
    throttle = Throttle(credentials_per_account=Limit(3, 300), credentials_per_client=None)
    site = await password_site(throttle=throttle)
    await site.add_user("ann@example.com")
    browser = site.browser()
    for _ in range(2):
        await password_sign_in(browser, "ann@example.com", "wrong-guess-xyz")
    assert (await password_sign_in(browser, "ann@example.com", STRONG)).header("location") == HOME
    for _ in range(2):
        await password_sign_in(site.browser(), "ann@example.com", "wrong-guess-xyz")
    assert (await password_sign_in(site.browser(), "ann@example.com", STRONG)).status == 302


# CSRF ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "fields"),
    [
        ("callback/password", {"email": "ann@example.com", "password": STRONG}),
        ("password/signup", {"email": "zoe@example.com", "password": STRONG}),
        ("password/forgot", {"email": "ann@example.com"}),
        ("password/verify", {"email": "ann@example.com", "token": "0" * 64}),
        ("password/reset", {"user": "x", "token": "0" * 64, "password": NEWER}),
    ],
)
async def test_a_form_without_its_csrf_token_is_refused(path: str, fields: dict[str, str]) -> None:
    site = await password_site()
    await site.add_user("ann@example.com")
    browser = site.browser()
    await browser.csrf_token()  # the cookie is there; the form's token is not
    answer = await form_post(browser, path, fields, csrf=False)
    assert answer.status == 302
    assert answer.header("location") == f"{APP}/auth/signin?error=MissingCSRF"
    assert not await site.has_session(browser)
    assert site.outbox.sent == []
    assert await site.user_by_email("zoe@example.com") is None
    forged = await form_post(browser, path, {**fields, "csrfToken": "f" * 64}, csrf=False)
    assert forged.header("location") == f"{APP}/auth/signin?error=MissingCSRF"
    assert site.outbox.sent == []


# Hashes -------------------------------------------------------------------------------------


async def test_new_hashes_use_the_default_parameters() -> None:
    """RFC 9106's second recommended option: 64 MiB, 3 passes, 4 lanes."""
    site = await password_site(hashing=Argon2(), provider={"verify_email": False})
    answer = await form_post(
        site.browser(), "password/signup", {"email": "ann@example.com", "password": STRONG}
    )
    assert answer.status == 302
    user = await site.user_by_email("ann@example.com")
    assert user is not None
    stored = await site.hash_of(user.id)
    assert stored is not None
    assert stored.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    assert (await password_sign_in(site.browser(), "ann@example.com", STRONG)).header(
        "location"
    ) == HOME


STRONGER = Argon2(memory_cost=2048, time_cost=2, parallelism=1)


async def test_a_hash_is_made_again_when_the_parameters_change(strategy: str) -> None:
    site = await password_site(strategy, hashing=STRONGER)
    ann = await site.add_user("ann@example.com", hashing=CHEAP)
    old = await site.hash_of(ann.id)
    assert old is not None
    assert old.startswith("$argon2id$v=19$m=1024,t=1,p=1$")
    record = await site.store.get_password(ann.id)

    await password_sign_in(site.browser(), "ann@example.com", NEWER)  # a wrong one changes nothing
    assert await site.hash_of(ann.id) == old

    assert (await password_sign_in(site.browser(), "ann@example.com", STRONG)).header(
        "location"
    ) == HOME
    new = await site.hash_of(ann.id)
    assert new is not None
    assert new.startswith("$argon2id$v=19$m=2048,t=2,p=1$")
    assert (await site.store.get_password(ann.id)).updated == record.updated  # not a change
    assert (await password_sign_in(site.browser(), "ann@example.com", STRONG)).header(
        "location"
    ) == HOME
    assert await site.hash_of(ann.id) == new  # made once


async def test_a_rehash_does_not_overwrite_a_change_made_meanwhile(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The password is changed (a reset in another request) while the sign-in with the old
    one checks it: the sign-in goes through, but its rehash of the old password is not
    stored over the new one."""
    site = await password_site(hashing=STRONGER)
    ann = await site.add_user("ann@example.com", hashing=CHEAP)
    changed = await hash_password(STRONGER, NEWER)
    store = site.store
    read_password = store.get_password

    async def get_password_then_change(user_id: str) -> PasswordRecord | None:
        found: PasswordRecord | None = await read_password(user_id)
        record = PasswordRecord(user_id=user_id, hash=changed, updated=now())
        await store.set_password(record)  # the other request
        return found

    monkeypatch.setattr(store, "get_password", get_password_then_change)
    answer = await password_sign_in(site.browser(), "ann@example.com", STRONG)
    assert answer.header("location") == HOME
    monkeypatch.undo()
    assert await site.hash_of(ann.id) == changed
    assert (await password_sign_in(site.browser(), "ann@example.com", NEWER)).header(
        "location"
    ) == HOME
    refused = await password_sign_in(site.browser(), "ann@example.com", STRONG)
    assert refused.header("location") == CREDENTIALS_SIGNIN


async def test_a_hash_the_store_holds_but_argon2_cannot_read_refuses() -> None:
    site = await password_site()
    ann = await site.add_user("ann@example.com", password=None)
    record = PasswordRecord(user_id=ann.id, hash="$2b$12$" + "x" * 53, updated=now())
    await site.store.set_password(record)
    answer = await password_sign_in(site.browser(), "ann@example.com", STRONG)
    assert answer.header("location") == CREDENTIALS_SIGNIN
