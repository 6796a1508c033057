"""The second step of a sign-in (``<base>/mfa``): no session until a code of the user's
app or a recovery code is right; each code works once; the attempts are limited; the
pending sign-in lives in a sealed cookie that cannot be forged, kept past its time, or
used for a user who is gone."""

from __future__ import annotations

import pytest

from authui import Limit, MfaOptions
from authui.jwt import decode, encode
from tests.account.support import APP, HTMX, JSON, PAGE, SESSION_COOKIE, read, text_of
from tests.conftest import SECRET
from tests.mfa.support import (
    PENDING_COOKIE,
    WRONG_CODE,
    Clock,
    challenged,
    error_of,
    mfa_user,
    verify,
)
from tests.passwords.support import (
    HOME,
    MFA_PAGE,
    NEWER,
    STRONG,
    form_post,
    hidden,
    last_link,
    local,
    password_sign_in,
    password_site,
)

SIGN_IN_AGAIN = f"{APP}/auth/signin?callbackUrl=http%3A%2F%2Flocalhost%3A3000%2Fhome"
"""Where a challenge without a (valid) pending sign-in sends the browser: to sign in
again, coming back where the sign-in was going."""


async def test_a_password_then_a_code_signs_in(strategy: str, clock: Clock) -> None:
    site = await password_site(strategy)
    ann_id, enrolled, _ = await mfa_user(site, "ann@example.com", clock)
    site.events.clear()
    browser = site.browser()
    first = await password_sign_in(browser, "ann@example.com", STRONG)
    assert first.status == 302
    assert first.header("location") == MFA_PAGE
    assert SESSION_COOKIE not in browser.cookies
    assert PENDING_COOKIE in browser.cookies
    assert (await browser.get("session")).data() is None
    assert site.emitted("sign_in") == []
    assert (await browser.get("account", headers=PAGE)).status == 302  # not signed in

    page = await browser.get("mfa", headers=PAGE)
    assert page.status == 200
    assert "Enter the 6-digit code your authenticator app shows" in page.text
    assert 'autocomplete="one-time-code"' in page.text
    assert f'href="{APP}/auth/mfa?method=recovery"' in page.text
    assert "Do not ask again in this browser for 30 days" in page.text

    done = await verify(browser, enrolled.app.code())
    assert done.status == 302
    assert done.header("location") == HOME
    assert PENDING_COOKIE not in browser.cookies
    session = (await browser.get("session")).data()
    assert isinstance(session, dict)
    assert session["user"]["email"] == "ann@example.com"
    assert await site.session_amr(browser) == ["pwd", "otp", "mfa"]
    [event] = site.emitted("sign_in")
    assert event["account"]["provider"] == "password"
    [signed] = (await site.store.list_security_events(ann_id))[:1]
    assert (signed.kind, signed.detail) == ("sign-in", {"amr": "pwd otp mfa"})
    [row] = (await read(browser, "activity"))["events"][:1]
    assert row["label"] == "Signed in with two steps"
    # The challenge has nothing left to do.
    assert (await browser.get("mfa", headers=PAGE)).header("location") == SIGN_IN_AGAIN


async def test_a_code_works_once(strategy: str, clock: Clock) -> None:
    site = await password_site(strategy)
    ann_id, enrolled, _ = await mfa_user(site, "ann@example.com", clock)
    code = enrolled.app.code()
    first = await challenged(site, "ann@example.com")
    assert (await verify(first, code)).header("location") == HOME

    second = await challenged(site, "ann@example.com")
    replayed = await verify(second, code)
    assert replayed.status == 422
    assert error_of(replayed) == [WRONG_CODE]
    assert not await site.has_session(second)
    assert PENDING_COOKIE in second.cookies  # the sign-in still waits for a right code
    assert (await site.activity(ann_id))[0] == "mfa-failed"
    [guess] = enrolled.app.wrong_codes()
    wrong = await verify(second, guess)
    assert (wrong.status, error_of(wrong)) == (422, [WRONG_CODE])
    clock.tick()
    assert (await verify(second, enrolled.app.code())).header("location") == HOME


async def test_the_code_of_the_step_before_is_accepted_once(clock: Clock) -> None:
    site = await password_site()
    _, enrolled, _ = await mfa_user(site, "ann@example.com", clock)
    clock.tick()  # the user types the code just as it changes
    late = enrolled.app.code(-1)
    first = await challenged(site, "ann@example.com")
    assert (await verify(first, late)).header("location") == HOME
    second = await challenged(site, "ann@example.com")
    assert (await verify(second, late)).status == 422
    assert (await verify(second, enrolled.app.code())).header("location") == HOME


async def test_codes_out_of_the_window_are_refused(clock: Clock) -> None:
    site = await password_site()
    _, enrolled, _ = await mfa_user(site, "ann@example.com", clock)
    clock.tick(3)
    browser = await challenged(site, "ann@example.com")
    for steps in (-2, 2):
        answer = await verify(browser, enrolled.app.code(steps))
        assert (answer.status, error_of(answer)) == (422, [WRONG_CODE])
    # A code of the step after now (a clock a little ahead) is within the window.
    assert (await verify(browser, enrolled.app.code(1))).header("location") == HOME
    # ... and uses up the steps up to it: the current one is refused after it.
    other = await challenged(site, "ann@example.com")
    assert (await verify(other, enrolled.app.code())).status == 422


async def test_a_recovery_code_works_once_however_it_is_typed(strategy: str, clock: Clock) -> None:
    site = await password_site(strategy)
    ann_id, enrolled, _ = await mfa_user(site, "ann@example.com", clock)
    code = enrolled.recovery_codes[3]
    typed = f"  {code.upper().replace('-', ' ')} "
    browser = await challenged(site, "ann@example.com")
    page = await browser.get("mfa?method=recovery", headers=PAGE)
    assert "Enter one of the recovery codes you saved" in page.text
    done = await verify(browser, typed, "recovery")
    assert done.header("location") == HOME
    assert await site.session_amr(browser) == ["pwd", "otp", "mfa"]
    assert await site.store.count_recovery_codes(ann_id) == 9
    assert (await site.activity(ann_id))[:2] == ["sign-in", "recovery-code-used"]

    again = await challenged(site, "ann@example.com")
    refused = await verify(again, code.replace("-", ""), "recovery")
    assert (refused.status, error_of(refused)) == (422, [WRONG_CODE])
    assert await site.store.count_recovery_codes(ann_id) == 9
    assert (await verify(again, enrolled.recovery_codes[4], "recovery")).header("location") == HOME
    # A TOTP code is no recovery code, and the reverse.
    third = await challenged(site, "ann@example.com")
    assert (await verify(third, enrolled.app.code(), "recovery")).status == 422
    assert (await verify(third, enrolled.recovery_codes[5], "totp")).status == 422


async def test_the_attempts_are_limited_per_user(strategy: str, clock: Clock) -> None:
    site = await password_site(strategy, mfa=MfaOptions(attempts=Limit(3, 300)))
    ann_id, enrolled, _ = await mfa_user(site, "ann@example.com", clock)
    browser = await challenged(site, "ann@example.com")
    for guess in enrolled.app.wrong_codes(3):
        assert (await verify(browser, guess)).status == 422
    held = await verify(browser, enrolled.app.code())  # even the right code
    assert held.status == 429
    assert 0 < int(held.header("retry-after") or 0) <= 300
    assert "Too many codes tried. Wait" in text_of(held)
    assert not await site.has_session(browser)
    # Counted per user, in every browser; for codes of every kind.
    other = await challenged(site, "ann@example.com")
    assert (await verify(other, enrolled.recovery_codes[0], "recovery")).status == 429
    assert await site.store.count_recovery_codes(ann_id) == 10
    assert (await site.activity(ann_id)).count("mfa-failed") == 3
    swapped = await verify(other, enrolled.app.code(), headers=HTMX)
    assert swapped.status == 429  # htmx swaps a 429 in (its page's configuration says so)
    assert "Too many codes tried." in text_of(swapped)


async def test_a_tampered_pending_sign_in_goes_back_to_the_sign_in_page(clock: Clock) -> None:
    site = await password_site()
    _, enrolled, _ = await mfa_user(site, "ann@example.com", clock)
    browser = await challenged(site, "ann@example.com")
    sealed = browser.cookies[PENDING_COOKIE]
    forged = sealed[:-8] + ("B" * 8 if sealed.endswith("A" * 8) else "A" * 8)
    browser.cookies[PENDING_COOKIE] = forged
    page = await browser.get("mfa", headers=PAGE)
    assert (page.status, page.header("location")) == (302, SIGN_IN_AGAIN)
    assert PENDING_COOKIE not in browser.cookies  # deleted
    browser.cookies[PENDING_COOKIE] = forged
    answer = await verify(browser, enrolled.app.code())
    assert (answer.status, answer.header("location")) == (302, SIGN_IN_AGAIN)
    assert not await site.has_session(browser)
    # The code was not used up: the true pending sign-in takes it.
    browser.cookies[PENDING_COOKIE] = sealed
    assert (await verify(browser, enrolled.app.code())).header("location") == HOME


async def test_an_expired_pending_sign_in_goes_back_to_the_sign_in_page(clock: Clock) -> None:
    site = await password_site()
    _, enrolled, _ = await mfa_user(site, "ann@example.com", clock)
    browser = await challenged(site, "ann@example.com")
    claims = decode(token=browser.cookies[PENDING_COOKIE], secret=SECRET, salt=PENDING_COOKIE)
    assert claims is not None
    kept = {k: v for k, v in claims.items() if k not in ("iat", "exp", "jti")}
    browser.cookies[PENDING_COOKIE] = encode(
        token=kept, secret=SECRET, salt=PENDING_COOKIE, max_age=-60
    )
    answer = await verify(browser, enrolled.app.code())
    assert (answer.status, answer.header("location")) == (302, SIGN_IN_AGAIN)
    assert not await site.has_session(browser)
    assert PENDING_COOKIE not in browser.cookies  # deleted: gone as at its max-age
    assert (await verify(browser, enrolled.app.code())).header("location") == SIGN_IN_AGAIN
    # Still encoded with the site's secret, it works while fresh.
    browser.cookies[PENDING_COOKIE] = encode(token=kept, secret=SECRET, salt=PENDING_COOKIE)
    assert (await verify(browser, enrolled.app.code())).header("location") == HOME


async def test_a_user_deleted_during_the_challenge_is_not_signed_in(
    strategy: str, clock: Clock
) -> None:
    site = await password_site(strategy)
    ann_id, enrolled, _ = await mfa_user(site, "ann@example.com", clock)
    browser = await challenged(site, "ann@example.com")
    await site.store.delete_user(ann_id)
    answer = await verify(browser, enrolled.app.code())
    assert (answer.status, answer.header("location")) == (302, SIGN_IN_AGAIN)
    assert not await site.has_session(browser)
    assert SESSION_COOKIE not in browser.cookies


async def test_a_post_without_its_csrf_token_is_refused(clock: Clock) -> None:
    site = await password_site()
    _, enrolled, _ = await mfa_user(site, "ann@example.com", clock)
    browser = await challenged(site, "ann@example.com")
    answer = await verify(browser, enrolled.app.code(), csrf=False)
    assert answer.header("location") == f"{APP}/auth/signin?error=MissingCSRF"
    assert not await site.has_session(browser)
    assert (await verify(browser, enrolled.app.code())).header("location") == HOME


async def test_htmx_and_json_clients(clock: Clock) -> None:
    site = await password_site("jwt")
    _, enrolled, _ = await mfa_user(site, "ann@example.com", clock)
    browser = site.browser()
    first = await password_sign_in(
        browser, "ann@example.com", STRONG, headers={"x-auth-return-redirect": "1"}
    )
    assert (first.status, first.data()) == (200, {"url": MFA_PAGE})
    swapped = await verify(browser, enrolled.app.wrong_codes()[0], headers=HTMX)
    assert swapped.status == 200
    assert ("Vary", "HX-Request") in swapped.headers
    assert error_of(swapped) == [WRONG_CODE]
    done = await verify(browser, enrolled.app.code(), headers=HTMX)
    assert (done.status, done.header("hx-redirect")) == (200, HOME)
    assert await site.has_session(browser)
    assert (await browser.get("session", headers=JSON)).status == 200


async def test_a_new_password_does_not_skip_the_second_step(strategy: str, clock: Clock) -> None:
    site = await password_site(strategy)
    _, enrolled, _ = await mfa_user(site, "ann@example.com", clock)
    await form_post(site.browser(), "password/forgot", {"email": "ann@example.com"})
    page = await site.browser().get(local(last_link(site, "ann@example.com")), headers=PAGE)
    link = {"user": hidden(page, "user"), "token": hidden(page, "token"), "password": NEWER}
    assert (await form_post(site.browser(), "password/reset", link)).status == 302
    browser = await challenged(site, "ann@example.com", NEWER)
    assert not await site.has_session(browser)
    assert (await verify(browser, enrolled.app.code())).header("location") == HOME


async def test_the_page_without_a_pending_sign_in_is_the_sign_in_page() -> None:
    site = await password_site()
    browser = site.browser()
    start = f"{APP}/auth/signin?callbackUrl=http%3A%2F%2Flocalhost%3A3000"
    assert (await browser.get("mfa", headers=PAGE)).header("location") == start
    assert (await verify(browser, "123456")).header("location") == start


@pytest.mark.parametrize("method", ["totp", "recovery", "passkey", "sms"])
async def test_a_method_the_user_lacks_shows_one_they_have(method: str, clock: Clock) -> None:
    site = await password_site()
    await mfa_user(site, "ann@example.com", clock)
    browser = await challenged(site, "ann@example.com")
    page = await browser.get(f"mfa?method={method}", headers=PAGE)
    assert page.status == 200
    shown = "recovery" if method == "recovery" else "totp"
    assert f'<input type="hidden" name="method" value="{shown}">' in page.text
    assert "data-authui-passkey" not in page.text  # Ann has no passkey


async def test_confirming_the_address_does_not_skip_the_second_step(
    strategy: str, clock: Clock
) -> None:
    """A user with an app whose address is not confirmed (it came unconfirmed from an
    OAuth provider, say) signs in with the password: the emailed confirmation link is a
    first step, not a way around the second."""
    site = await password_site(strategy)
    ann_id, enrolled, _ = await mfa_user(site, "ann@example.com", clock)
    await site.store.update_user(ann_id, {"email_verified": None})
    browser = site.browser()
    refused = await password_sign_in(browser, "ann@example.com", STRONG)
    assert str(refused.header("location")).endswith("code=email_not_verified")
    page = await browser.get(local(last_link(site, "ann@example.com")), headers=PAGE)
    fields = {"email": hidden(page, "email"), "token": hidden(page, "token")}
    confirmed = await form_post(browser, "password/verify", fields)
    assert confirmed.header("location") == MFA_PAGE
    assert not await site.has_session(browser)
    done = await verify(browser, enrolled.app.code())
    assert done.status == 302
    assert await site.session_amr(browser) == ["email", "otp", "mfa"]
    user = await site.store.get_user(ann_id)
    assert user is not None
    assert user.email_verified is not None


async def test_the_sign_in_goes_where_it_was_going(clock: Clock) -> None:
    """The challenge's post cannot send the browser elsewhere: the pending sign-in keeps
    its callback URL."""
    site = await password_site()
    _, enrolled, _ = await mfa_user(site, "ann@example.com", clock)
    browser = site.browser()
    first = await password_sign_in(
        browser, "ann@example.com", STRONG, callback_url=f"{APP}/orders?page=2"
    )
    assert first.header("location") == MFA_PAGE
    fields = {"method": "totp", "code": enrolled.app.code(), "callbackUrl": "https://evil.example/"}
    done = await form_post(browser, "mfa", fields)
    assert done.header("location") == f"{APP}/orders?page=2"
