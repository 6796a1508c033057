"""Password accounts on every kind of store (memory, SQLite, PostgreSQL, MariaDB, Redis:
``tests.adapters.conftest.adapter``), at request level: sign up, confirm the address,
sign in, forget the password, reset it."""

from __future__ import annotations

from tests.account.support import APP, PAGE, SESSION_COOKIE
from tests.adapters.conftest import AnyAdapter
from tests.passwords.support import (
    CREDENTIALS_SIGNIN,
    HOME,
    NEWER,
    STRONG,
    form_post,
    hidden,
    last_link,
    local,
    password_sign_in,
    password_site,
    sign_up,
)


async def test_sign_up_confirm_sign_in_and_reset(adapter: AnyAdapter) -> None:
    site = await password_site(store=adapter)
    answer = await sign_up(site.browser(), "Ann@Example.com", STRONG, "Ann")
    assert answer.header("location") == f"{APP}/auth/password/sent?kind=signup"
    user = await site.user_by_email("ann@example.com")
    assert user is not None
    assert user.email_verified is None
    first_hash = await site.hash_of(user.id)
    assert first_hash is not None

    early = await password_sign_in(site.browser(), "ann@example.com", STRONG)
    assert str(early.header("location")).endswith("code=email_not_verified")
    browser = site.browser()
    page = await browser.get(local(last_link(site, "ann@example.com")), headers=PAGE)
    fields = {"email": hidden(page, "email"), "token": hidden(page, "token")}
    confirmed = await form_post(browser, "password/verify", fields)
    assert str(confirmed.header("location")).startswith(f"{APP}/auth/new-user?")
    assert await site.has_session(browser)
    assert (await form_post(site.browser(), "password/verify", fields)).status == 403

    laptop = await site.signed_in("ann@example.com")
    wrong = await password_sign_in(site.browser(), "ann@example.com", NEWER)
    assert wrong.header("location") == CREDENTIALS_SIGNIN

    asked = await form_post(site.browser(), "password/forgot", {"email": "ann@example.com"})
    assert asked.header("location") == f"{APP}/auth/password/sent?kind=reset"
    reset_page = await site.browser().get(local(last_link(site, "ann@example.com")), headers=PAGE)
    link = {"user": hidden(reset_page, "user"), "token": hidden(reset_page, "token")}
    weak = await form_post(site.browser(), "password/reset", {**link, "password": "password"})
    assert weak.status == 422
    done = await form_post(site.browser(), "password/reset", {**link, "password": NEWER})
    assert done.header("location") == f"{APP}/auth/signin?notice=password-reset"
    assert await adapter.get_session_and_user(laptop.cookies[SESSION_COOKIE]) is None
    assert not await site.has_session(laptop)
    assert await adapter.get_session_version(user.id) == 1
    assert (
        await form_post(site.browser(), "password/reset", {**link, "password": STRONG})
    ).status == 403

    assert await site.hash_of(user.id) not in (None, first_hash)
    old = await password_sign_in(site.browser(), "ann@example.com", STRONG)
    assert old.header("location") == CREDENTIALS_SIGNIN
    assert (await password_sign_in(site.browser(), "ann@example.com", NEWER)).header(
        "location"
    ) == HOME
    kinds = await site.activity(user.id)
    assert kinds[0] == "sign-in"
    assert {"sign-up", "password-reset", "sign-in-failed"} <= set(kinds)
