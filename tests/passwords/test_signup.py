"""Sign-up with an email address and a password: the form's refusals, the confirmation
email and its single-use link, a sign-in before confirming, a sign-up with an address that
has an account already, and the emails' throttle."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from authui.adapters.memory import MemoryAdapter
from authui.dates import now
from tests.account.support import APP, HTMX, PAGE, alerts, text_of
from tests.passwords.support import (
    CREDENTIALS_SIGNIN,
    HOME,
    STRONG,
    PasswordSite,
    email_sign_in,
    field_errors,
    form_post,
    hidden,
    last_link,
    local,
    password_sign_in,
    password_site,
    query_of,
    sign_up,
)

SENT_SIGNUP = f"{APP}/auth/password/sent?kind=signup"
LINK_DEAD = "Link no longer works"
QUOTED_APP = "http%3A%2F%2Flocalhost%3A3000"


async def confirmed_via_page(site: PasswordSite, address: str) -> tuple[str, str]:
    """Open the last link to ``address`` as a browser; the page's email and token."""
    browser = site.browser()
    page = await browser.get(local(last_link(site, address)), headers=PAGE)
    assert page.status == 200, page.text
    return hidden(page, "email"), hidden(page, "token")


async def test_the_pages_link_to_each_other() -> None:
    site = await password_site()
    browser = site.browser()
    signin = await browser.get("signin", headers=PAGE)
    assert signin.status == 200
    assert f'action="{APP}/auth/callback/password"' in signin.text
    assert f'href="{APP}/auth/password/forgot"' in signin.text
    assert f'href="{APP}/auth/password/signup"' in signin.text
    page = await browser.get("password/signup", headers=PAGE)
    assert page.status == 200
    assert f'action="{APP}/auth/password/signup"' in page.text
    assert 'name="password"' in page.text
    assert 'autocomplete="new-password"' in page.text


async def test_without_sign_up_the_page_is_not_there() -> None:
    site = await password_site(provider={"sign_up": False})
    browser = site.browser()
    assert (await browser.get("password/signup", headers=PAGE)).status == 400
    answer = await sign_up(browser, "ann@example.com")
    assert answer.status == 400
    assert await site.user_by_email("ann@example.com") is None
    assert site.outbox.sent == []


TOO_LONG_NAME = "N" * 101


@pytest.mark.parametrize(
    ("fields", "field", "reason"),
    [
        ({"password": "tulip7"}, "password", "Use at least 8 characters."),
        ({"password": "x" * 257}, "password", "Use at most 256 characters."),
        (
            {"password": "Password123!"},
            "password",
            "This password is too common: it is among the first guessed.",
        ),
        (
            {"password": "ann.quill@example.com"},
            "password",
            "Do not use your own address or name as your password.",
        ),
        (
            {"password": "ann.quill"},
            "password",
            "Do not use your own address or name as your password.",
        ),
        (
            {"password": "Margarethe Quillfeather", "name": "Margarethe  Quillfeather"},
            "password",
            "Do not use your own address or name as your password.",
        ),
        ({"name": TOO_LONG_NAME}, "name", "Enter a name of at most 100 characters."),
        ({"email": "ann.quill"}, "email", "Enter a valid email address."),
        ({"email": "ann@quill@example.com"}, "email", "Enter a valid email address."),
        ({"email": "a" * 250 + "@example.com"}, "email", "Enter a valid email address."),
    ],
    ids=[
        "short",
        "too-long",
        "common",
        "own-address",
        "own-address-name",
        "own-name",
        "long-name",
        "no-domain",
        "two-ats",
        "long-address",
    ],
)
async def test_refused_fields_say_why(fields: dict[str, str], field: str, reason: str) -> None:
    site = await password_site()
    browser = site.browser()
    typed = {"email": "ann.quill@example.com", "password": STRONG, "name": "Ann"} | fields
    answer = await form_post(browser, "password/signup", typed)
    assert answer.status == 422
    assert field_errors(answer) == {field: [reason]}
    assert await site.user_by_email("ann.quill@example.com") is None
    assert site.outbox.sent == []
    if field != "email":  # the typed address is kept, never the password
        assert 'value="ann.quill@example.com"' in answer.text
    [password_input] = re.findall(r'<input[^>]*id="authui-signup-password"[^>]*>', answer.text)
    assert "value=" not in password_input


async def test_htmx_gets_the_form_with_its_errors_to_swap() -> None:
    site = await password_site()
    answer = await sign_up(site.browser(), "ann@example.com", "tulip7", headers=HTMX)
    assert answer.status == 200  # htmx swaps only successes
    assert ("Vary", "HX-Request") in answer.headers
    assert 'id="authui-entrance-content"' in answer.text
    assert 'hx-select="#authui-entrance-content"' in answer.text
    assert field_errors(answer) == {"password": ["Use at least 8 characters."]}
    assert await site.user_by_email("ann@example.com") is None


async def test_the_app_rule_refuses_with_its_own_words() -> None:
    from authui import PasswordRules

    def no_tulips(password: str, user: dict[str, object]) -> str | None:
        return "No tulips here." if "tulip" in password else None

    site = await password_site(provider={"rules": PasswordRules(rule=no_tulips)})
    answer = await sign_up(site.browser(), "ann@example.com", STRONG)
    assert answer.status == 422
    assert field_errors(answer) == {"password": ["No tulips here."]}


async def test_sign_up_confirm_and_sign_in(strategy: str) -> None:
    site = await password_site(strategy)
    browser = site.browser()
    answer = await sign_up(browser, "Ann@Example.com", STRONG, "  Ann   Quill ")
    assert answer.status == 302
    assert answer.header("location") == SENT_SIGNUP
    sent_page = await browser.get(local(answer.header("location")), headers=PAGE)
    assert sent_page.status == 200
    assert "Check your email" in sent_page.text

    user = await site.user_by_email("ann@example.com")
    assert user is not None
    assert (user.name, user.email_verified) == ("Ann Quill", None)
    stored = await site.hash_of(user.id)
    assert stored is not None
    assert stored.startswith("$argon2id$v=19$m=1024,t=1,p=1$")
    assert STRONG not in stored
    assert [e["user"]["email"] for e in site.emitted("create_user")] == ["ann@example.com"]
    assert await site.activity(user.id) == ["sign-up"]

    [mail] = site.mail_to("ann@example.com")
    assert mail.subject == "Confirm your email address for localhost:3000"
    link = query_of(mail.url)
    assert mail.url.startswith(f"{APP}/auth/password/verify?")
    assert link["email"] == "ann@example.com"
    assert len(link["token"]) == 64
    assert mail.url in mail.text

    # Opening the link (a mail scanner does) uses nothing up: the page has a button.
    opened = await browser.get(local(mail.url), headers=PAGE)
    assert opened.status == 200
    assert "Confirm and sign in" in opened.text
    assert not await site.has_session(browser)
    again = await site.user_by_email("ann@example.com")
    assert again is not None
    assert again.email_verified is None

    fields = {"email": hidden(opened, "email"), "token": hidden(opened, "token")}
    confirmed = await form_post(browser, "password/verify", fields)
    assert confirmed.status == 302
    assert confirmed.header("location") == f"{APP}/auth/new-user?callbackUrl={QUOTED_APP}"
    session = (await browser.get("session")).data()
    assert isinstance(session, dict)
    assert session["user"]["email"] == "ann@example.com"
    verified = await site.user_by_email("ann@example.com")
    assert verified is not None
    assert verified.email_verified is not None
    assert abs(verified.email_verified - now()) < timedelta(seconds=10)
    assert [e["is_new_user"] for e in site.emitted("sign_in")] == [True]
    assert (await site.activity(user.id))[0] == "sign-in"

    # The link works once.
    other = site.browser()
    replay = await form_post(other, "password/verify", fields)
    assert replay.status == 403
    assert LINK_DEAD in replay.text
    assert not await site.has_session(other)

    # From now on the password signs in.
    fresh = site.browser()
    signed = await password_sign_in(fresh, "ann@example.com", STRONG)
    assert signed.header("location") == HOME
    assert (await fresh.get("session")).data()["user"]["name"] == "Ann Quill"


async def test_an_expired_confirmation_link_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    site = await password_site(provider={"verify_max_age": 60})
    await sign_up(site.browser(), "ann@example.com")
    email, token = await confirmed_via_page(site, "ann@example.com")
    later = now() + timedelta(seconds=61)
    monkeypatch.setattr("authui.actions.link_tokens.now", lambda: later)
    browser = site.browser()
    answer = await form_post(browser, "password/verify", {"email": email, "token": token})
    assert answer.status == 403
    assert LINK_DEAD in answer.text
    assert not await site.has_session(browser)
    user = await site.user_by_email("ann@example.com")
    assert user is not None
    assert user.email_verified is None


@pytest.mark.parametrize(
    "change",
    [
        {"token": "0" * 64},
        {"email": "bob@example.com"},
        {"token": ""},
        {"email": "not an address"},
    ],
    ids=["other-token", "other-address", "no-token", "bad-address"],
)
async def test_a_tampered_confirmation_link_is_refused(change: dict[str, str]) -> None:
    site = await password_site()
    await site.add_user("bob@example.com", verified=False)
    await sign_up(site.browser(), "ann@example.com")
    email, token = await confirmed_via_page(site, "ann@example.com")
    browser = site.browser()
    fields = {"email": email, "token": token} | change
    answer = await form_post(browser, "password/verify", fields)
    assert answer.status == 403
    assert LINK_DEAD in answer.text
    assert not await site.has_session(browser)
    for address in ("ann@example.com", "bob@example.com"):
        user = await site.user_by_email(address)
        assert user is not None
        assert user.email_verified is None
    # The true link still works.
    done = await form_post(site.browser(), "password/verify", {"email": email, "token": token})
    assert done.status == 302


async def test_an_incomplete_link_opens_the_error_page() -> None:
    site = await password_site()
    page = await site.browser().get("password/verify?email=ann%40example.com", headers=PAGE)
    assert page.status == 403
    assert LINK_DEAD in page.text


async def test_signing_in_before_confirming_sends_a_new_link(strategy: str) -> None:
    site = await password_site(strategy)
    await sign_up(site.browser(), "ann@example.com")
    first = last_link(site, "ann@example.com")
    browser = site.browser()

    wrong = await password_sign_in(browser, "ann@example.com", "not-the-password-at-all")
    assert wrong.header("location") == CREDENTIALS_SIGNIN
    assert len(site.mail_to("ann@example.com")) == 1  # a wrong password learns nothing

    answer = await password_sign_in(browser, "ann@example.com", STRONG)
    assert answer.status == 302
    assert answer.header("location") == (
        f"{APP}/auth/signin?error=CredentialsSignin&code=email_not_verified"
    )
    assert not await site.has_session(browser)
    mails = site.mail_to("ann@example.com")
    assert len(mails) == 2
    second = mails[-1].url
    assert second != first
    page = await browser.get(local(answer.header("location")), headers=PAGE)
    assert "Confirm your email address first: we sent you a new link." in text_of(page)

    opened = await browser.get(local(second), headers=PAGE)
    fields = {"email": hidden(opened, "email"), "token": hidden(opened, "token")}
    assert (await form_post(browser, "password/verify", fields)).status == 302
    assert await site.has_session(browser)
    signed = await password_sign_in(site.browser(), "ann@example.com", STRONG)
    assert signed.header("location") == HOME


async def test_without_verification_the_password_signs_in_at_once() -> None:
    site = await password_site(provider={"verify_email": False})
    await sign_up(site.browser(), "ann@example.com")
    browser = site.browser()
    answer = await password_sign_in(browser, "ann@example.com", STRONG)
    assert answer.header("location") == HOME
    assert await site.has_session(browser)


async def test_signing_up_with_a_known_address_tells_its_owner(strategy: str) -> None:
    site = await password_site(strategy)
    owner = await site.add_user("ann@example.com", STRONG)
    before = await site.hash_of(owner.id)
    assert isinstance(site.store, MemoryAdapter)
    users = len(site.store.users)

    known = await sign_up(site.browser(), "ANN@example.com", "someone-elses-secret-9")
    new = await sign_up(site.browser(), "zoe@example.com", "someone-elses-secret-9")
    assert (known.status, known.header("location")) == (new.status, new.header("location"))
    assert known.header("location") == SENT_SIGNUP

    assert len(site.store.users) == users + 1  # only Zoe's
    assert await site.hash_of(owner.id) == before
    [told] = site.mail_to("ann@example.com")
    assert told.subject == "Someone tried to sign up with your address on localhost:3000"
    assert told.url == f"{APP}/auth/password/forgot"
    assert "nothing was changed" in told.text
    assert await site.activity(owner.id) == []
    # The owner's password still signs in; the other one does not.
    assert (await password_sign_in(site.browser(), "ann@example.com", STRONG)).header(
        "location"
    ) == HOME
    refused = await password_sign_in(site.browser(), "ann@example.com", "someone-elses-secret-9")
    assert refused.header("location") == CREDENTIALS_SIGNIN


async def test_sign_up_emails_are_throttled_per_address() -> None:
    site = await password_site(provider={"emails_per_address": 2})
    for _ in range(2):
        assert (await sign_up(site.browser(), "ann@example.com")).status == 302
    answer = await sign_up(site.browser(), "ann@example.com")
    assert answer.status == 429
    assert answer.header("retry-after") is not None
    assert 0 < int(answer.header("retry-after") or 0) <= 3600
    [message] = alerts(answer)
    assert message.startswith("Too many attempts. Try again in")
    assert 'value="ann@example.com"' in answer.text
    assert len(site.mail_to("ann@example.com")) == 2  # a confirmation, then the owner's notice
    # Another address from another client is not held back.
    other = site.browser(client_address="192.0.2.9")
    assert (await sign_up(other, "zoe@example.com")).status == 302


async def test_sign_ups_are_throttled_per_client() -> None:
    site = await password_site(provider={"signups_per_client": 2})
    browser = site.browser(client_address="192.0.2.7")
    for name in ("ann", "bob"):
        assert (await sign_up(browser, f"{name}@example.com")).status == 302
    answer = await sign_up(browser, "cid@example.com", headers=HTMX)
    assert answer.status == 429  # htmx swaps a 429 in too (the page's htmx-config says so)
    assert answer.header("retry-after") is not None
    assert alerts(answer)[0].startswith("Too many attempts.")
    assert await site.user_by_email("cid@example.com") is None
    assert site.mail_to("cid@example.com") == []
    elsewhere = site.browser(client_address="192.0.2.8")
    assert (await sign_up(elsewhere, "cid@example.com")).status == 302


async def test_a_sign_up_nobody_confirmed_loses_its_password_to_the_addresss_owner() -> None:
    """Someone signs up with another's address and never confirms it; the address's owner
    then signs in with a link to it: the stranger's password does not sign in to the
    account the owner now uses."""
    site = await password_site()
    stranger = site.browser(client_address="203.0.113.5")
    assert (await sign_up(stranger, "vic@example.com", STRONG)).header("location") == SENT_SIGNUP
    owner = site.browser()
    await email_sign_in(site, owner, "vic@example.com")
    assert await site.has_session(owner)
    user = await site.user_by_email("vic@example.com")
    assert user is not None
    assert user.email_verified is not None
    assert await site.hash_of(user.id) is None
    taken = await password_sign_in(site.browser(), "vic@example.com", STRONG)
    assert taken.header("location") == CREDENTIALS_SIGNIN
