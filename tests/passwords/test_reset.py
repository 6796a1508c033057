"""A forgotten password: the same answer for every address (an unknown one gets an email
saying so), the reset link (a refused password does not spend it; it works once, for a
while), the other sessions ended, and the new password signing in."""

from __future__ import annotations

from datetime import timedelta

import pytest

from authui.dates import now
from tests.account.support import APP, HTMX, PAGE, SESSION_COOKIE, alerts, text_of
from tests.passwords.support import (
    CREDENTIALS_SIGNIN,
    HOME,
    NEWER,
    STRONG,
    PasswordSite,
    field_errors,
    form_post,
    hidden,
    last_link,
    local,
    password_sign_in,
    password_site,
    query_of,
)

SENT_RESET = f"{APP}/auth/password/sent?kind=reset"
RESET_DONE = f"{APP}/auth/signin?notice=password-reset"
LINK_DEAD = "Link no longer works"


async def forgot(site: PasswordSite, email: str, **settings: str) -> str:
    """Ask for a reset link for ``email``; the answer's redirect."""
    answer = await form_post(site.browser(**settings), "password/forgot", {"email": email})
    assert answer.status == 302, answer.text
    return str(answer.header("location"))


async def reset_form(site: PasswordSite, email: str) -> dict[str, str]:
    """Open the last reset link to ``email``; its form's hidden fields."""
    page = await site.browser().get(local(last_link(site, email)), headers=PAGE)
    assert page.status == 200, page.text
    assert "Choose a new password" in page.text
    return {"user": hidden(page, "user"), "token": hidden(page, "token")}


async def test_a_known_and_an_unknown_address_get_the_same_answer() -> None:
    site = await password_site()
    ann = await site.add_user("ann@example.com")
    assert await forgot(site, "Ann@Example.com") == SENT_RESET
    assert await forgot(site, "zed@example.com") == SENT_RESET

    [link] = site.mail_to("ann@example.com")
    assert link.subject == "Set a new password for localhost:3000"
    assert link.url.startswith(f"{APP}/auth/password/reset?")
    assert query_of(link.url)["user"] == ann.id
    assert len(query_of(link.url)["token"]) == 64
    assert "works once" in link.text

    [nobody] = site.mail_to("zed@example.com")
    assert nobody.subject == "Password help for localhost:3000"
    assert "no account here uses it" in nobody.text
    assert nobody.url == f"{APP}/auth/password/signup"
    assert await site.user_by_email("zed@example.com") is None

    page = await site.browser().get(local(SENT_RESET), headers=PAGE)
    assert page.status == 200
    assert "If an account uses this address" in page.text


async def test_without_sign_up_the_unknown_address_is_sent_to_sign_in() -> None:
    site = await password_site(provider={"sign_up": False})
    assert await forgot(site, "zed@example.com") == SENT_RESET
    [nobody] = site.mail_to("zed@example.com")
    assert nobody.url == f"{APP}/auth/signin"
    assert (await site.browser().get("password/signup", headers=PAGE)).status == 400


async def test_a_bad_address_is_refused_on_the_form() -> None:
    site = await password_site()
    answer = await form_post(site.browser(), "password/forgot", {"email": "ann at example"})
    assert answer.status == 422
    assert field_errors(answer) == {"email": ["Enter a valid email address."]}
    assert site.outbox.sent == []


async def test_reset_ends_every_session_and_the_new_password_signs_in(strategy: str) -> None:
    site = await password_site(strategy)
    ann = await site.add_user("ann@example.com")
    bob = await site.add_user("bob@example.com")
    laptop = await site.signed_in("ann@example.com")
    bobs = await site.signed_in("bob@example.com")
    laptop_token = laptop.cookies[SESSION_COOKIE]
    await site.store.update_user(ann.id, {"email_verified": None})  # not confirmed (yet)
    assert await site.store.get_session_version(ann.id) == 0

    await forgot(site, "ann@example.com")
    fields = await reset_form(site, "ann@example.com")
    assert await site.has_session(laptop)  # opening the link changes nothing

    browser = site.browser()
    done = await form_post(browser, "password/reset", {**fields, "password": NEWER})
    assert done.status == 302
    assert done.header("location") == RESET_DONE
    assert not await site.has_session(browser)  # the user signs in with the new password
    page = await browser.get(local(RESET_DONE), headers=PAGE)
    assert "Your new password is saved, and every other browser signed out." in text_of(page)

    if strategy == "database":
        assert await site.store.get_session_and_user(laptop_token) is None
        assert not await site.has_session(laptop)
    else:
        assert await site.store.get_session_version(ann.id) == 1
        assert await site.store.get_session_version(bob.id) == 0
        # The account center reads the version on every request: the old token is out.
        account = await laptop.get("account", headers=PAGE)
        assert account.status == 302
        assert str(account.header("location")).startswith(f"{APP}/auth/signin?")
    assert await site.has_session(bobs)

    user = await site.user_by_email("ann@example.com")
    assert user is not None
    assert user.email_verified is not None  # the link reached the address
    [updated] = site.emitted("update_user")
    assert updated["user"]["id"] == ann.id
    assert updated["user"]["email_verified"] is not None
    assert (await site.activity(ann.id))[0] == "password-reset"

    old = await password_sign_in(site.browser(), "ann@example.com", STRONG)
    assert old.header("location") == CREDENTIALS_SIGNIN
    assert (await password_sign_in(site.browser(), "ann@example.com", NEWER)).header(
        "location"
    ) == HOME

    replay = await form_post(site.browser(), "password/reset", {**fields, "password": STRONG})
    assert replay.status == 403
    assert LINK_DEAD in replay.text
    swapped = await form_post(
        site.browser(), "password/reset", {**fields, "password": STRONG}, headers=HTMX
    )  # htmx swaps in no error answer: it is sent to the error page
    assert swapped.header("hx-redirect") == f"{APP}/auth/error?error=PasswordLink"
    assert (await password_sign_in(site.browser(), "ann@example.com", NEWER)).header(
        "location"
    ) == HOME


@pytest.mark.parametrize(
    ("password", "reason"),
    [
        ("tulip7", "Use at least 8 characters."),
        ("qwerty123", "This password is too common: it is among the first guessed."),
        ("ann@example.com", "Do not use your own address or name as your password."),
        ("y" * 300, "Use at most 256 characters."),
    ],
)
async def test_a_refused_password_does_not_spend_the_link(password: str, reason: str) -> None:
    site = await password_site()
    ann = await site.add_user("ann@example.com")
    laptop = await site.signed_in("ann@example.com")
    await forgot(site, "ann@example.com")
    fields = await reset_form(site, "ann@example.com")
    before = await site.hash_of(ann.id)

    refused = await form_post(site.browser(), "password/reset", {**fields, "password": password})
    assert refused.status == 422
    assert field_errors(refused) == {"password": [reason]}
    assert hidden(refused, "token") == fields["token"]  # the form keeps the link
    assert await site.hash_of(ann.id) == before
    assert await site.has_session(laptop)

    done = await form_post(site.browser(), "password/reset", {**fields, "password": NEWER})
    assert done.header("location") == RESET_DONE


async def test_an_expired_reset_link_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    site = await password_site(provider={"reset_max_age": 600})
    ann = await site.add_user("ann@example.com")
    await forgot(site, "ann@example.com")
    fields = await reset_form(site, "ann@example.com")
    before = await site.hash_of(ann.id)
    later = now() + timedelta(seconds=601)
    monkeypatch.setattr("authui.actions.link_tokens.now", lambda: later)
    answer = await form_post(site.browser(), "password/reset", {**fields, "password": NEWER})
    assert answer.status == 403
    assert LINK_DEAD in answer.text
    assert await site.hash_of(ann.id) == before


async def test_a_link_for_one_user_does_not_reset_another() -> None:
    site = await password_site()
    await site.add_user("ann@example.com")
    bob = await site.add_user("bob@example.com")
    await forgot(site, "ann@example.com")
    fields = await reset_form(site, "ann@example.com")
    before = await site.hash_of(bob.id)
    answer = await form_post(
        site.browser(), "password/reset", {**fields, "user": bob.id, "password": NEWER}
    )
    assert answer.status == 403
    assert LINK_DEAD in answer.text
    assert await site.hash_of(bob.id) == before
    other_end = "1" if fields["token"].endswith("0") else "0"
    tampered = {**fields, "token": fields["token"][:-1] + other_end, "password": NEWER}
    assert (await form_post(site.browser(), "password/reset", tampered)).status == 403
    # The true link still works, once.
    ok = await form_post(site.browser(), "password/reset", {**fields, "password": NEWER})
    assert ok.header("location") == RESET_DONE


async def test_an_incomplete_reset_link_opens_the_error_page() -> None:
    site = await password_site()
    page = await site.browser().get("password/reset?user=someone", headers=PAGE)
    assert page.status == 403
    assert LINK_DEAD in page.text


async def test_reset_emails_are_throttled() -> None:
    site = await password_site(provider={"emails_per_address": 2})
    await site.add_user("ann@example.com")
    for n in range(2):
        assert await forgot(site, "ann@example.com", client_address=f"192.0.2.{n}") == SENT_RESET
    answer = await form_post(site.browser(), "password/forgot", {"email": "ann@example.com"})
    assert answer.status == 429
    assert 0 < int(answer.header("retry-after") or 0) <= 3600
    [message] = alerts(answer)
    assert message.startswith("Too many attempts. Try again in")
    assert len(site.mail_to("ann@example.com")) == 2
    # An unknown address costs the same: its "no account" emails are counted too.
    for _ in range(2):
        await forgot(site, "zed@example.com", client_address="192.0.2.50")
    held = await form_post(site.browser(), "password/forgot", {"email": "zed@example.com"})
    assert held.status == 429
    assert len(site.mail_to("zed@example.com")) == 2
