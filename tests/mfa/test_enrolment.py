"""Setting second factors up in the account center (``<base>/account/two-factor``): an
authenticator app by its QR code or key, the recovery codes shown once, new codes,
turning it off, and the recent sign-in every such change needs."""

from __future__ import annotations

import re

import pytest

from authui import MfaOptions
from tests.account.support import (
    APP,
    HTMX,
    JSON,
    PAGE,
    account_url,
    alerts,
    form_for,
    forms_of,
    post,
    post_json,
    read,
    submit,
)
from tests.mfa.support import (
    ENROLMENT_COOKIE,
    TRUSTED_COOKIE,
    TWO_FACTOR,
    App,
    Clock,
    challenged,
    mfa_user,
    recovery_codes,
    start_totp,
    totp_key,
    verify,
)
from tests.passwords.support import HOME, STRONG, make_old, password_sign_in, password_site

STEP_UP = account_url("reauthenticate", callbackUrl=TWO_FACTOR)


async def test_an_app_is_set_up_and_the_recovery_codes_shown_once(
    strategy: str, clock: Clock
) -> None:
    site = await password_site(strategy)
    ann = await site.add_user("ann@example.com")
    browser = await site.signed_in("ann@example.com")
    before = await read(browser, "two-factor")
    assert (before["on"], before["totp"], before["multiFactor"]) == (False, False, False)
    assert before["setup"] is None

    setup = await start_totp(browser)
    assert ENROLMENT_COOKIE in browser.cookies
    assert await site.store.get_mfa(ann.id) is None  # nothing is stored before a code
    assert re.search(r'<svg role="img" [^>]*class="authui-qr"', setup.text)
    assert "QR code to scan with your authenticator app" in setup.text
    key = totp_key(setup)
    assert re.fullmatch(r"([A-Z2-7]{4} ){7}[A-Z2-7]{4}", key), key
    app = App(key.replace(" ", ""), clock)
    data = await read(browser, "two-factor")
    assert data["setup"]["key"] == key
    assert data["setup"]["uri"] == (
        f"otpauth://totp/localhost:ann%40example.com?secret={app.key}&issuer=localhost"
    )

    [guess] = app.wrong_codes()
    wrong = await submit(browser, form_for(setup, "totp-confirm"), code=guess)
    assert wrong.status == 422
    assert "That code does not match." in wrong.text
    assert await site.store.get_mfa(ann.id) is None
    stale = await submit(browser, form_for(setup, "totp-confirm"), code=app.code(-2))
    assert stale.status == 422

    done = await submit(browser, form_for(setup, "totp-confirm"), code=app.code())
    assert done.status == 200  # the page itself, showing the codes: never a redirect
    assert "Two-step verification is on." in " ".join(alerts(done))
    codes = recovery_codes(done)
    assert len(codes) == len(set(codes)) == 10
    assert all(re.fullmatch(r"[a-z2-9]{5}-[a-z2-9]{5}", c) for c in codes), codes
    assert ENROLMENT_COOKIE not in browser.cookies

    stored = await site.store.get_mfa(ann.id)
    assert stored is not None
    assert stored.totp_secret is not None
    assert app.key not in stored.totp_secret  # sealed at rest
    assert stored.totp_last_step == clock.step
    assert await site.store.count_recovery_codes(ann.id) == 10
    assert await site.activity(ann.id) == ["recovery-codes-made", "mfa-on", "sign-in"]
    told = site.mail_to("ann@example.com")[-1]
    assert told.subject == "Two-step verification is on for your account on localhost:3000"

    # The session that typed the code counts as two-step from now on.
    assert await site.session_amr(browser) == ["pwd", "otp", "mfa"]
    again = await browser.get("account/two-factor", headers=PAGE)
    assert recovery_codes(again) == []  # shown once
    assert "10 unused recovery codes left." in again.text
    after = await read(browser, "two-factor")
    assert (after["on"], after["totp"], after["multiFactor"]) == (True, True, True)
    assert after["recoveryCodesLeft"] == 10
    assert after["setup"] is None


async def test_json_clients_set_an_app_up(clock: Clock) -> None:
    site = await password_site("jwt")
    ann = await site.add_user("ann@example.com")
    browser = await site.signed_in("ann@example.com")
    started = await post_json(browser, "two-factor", {"intent": "totp-start"})
    assert started.status == 200
    key = (await read(browser, "two-factor"))["setup"]["key"].replace(" ", "")
    app = App(key, clock)
    done = await post_json(browser, "two-factor", {"intent": "totp-confirm", "code": app.code()})
    assert done.status == 200
    body = done.data()
    assert isinstance(body, dict)
    assert body["failed"] is False
    assert len(body["recoveryCodes"]) == 10
    assert await site.store.count_recovery_codes(ann.id) == 10


async def test_the_set_up_of_one_user_is_no_use_to_another(clock: Clock) -> None:
    site = await password_site()
    ann_id = (await site.add_user("ann@example.com")).id
    bob_id = (await site.add_user("bob@example.com")).id
    ann = await site.signed_in("ann@example.com")
    setup = await start_totp(ann)
    app = App(totp_key(setup).replace(" ", ""), clock)
    bob = await site.signed_in("bob@example.com")
    bob.cookies[ENROLMENT_COOKIE] = ann.cookies[ENROLMENT_COOKIE]
    refused = await post(bob, "two-factor", {"intent": "totp-confirm", "code": app.code()})
    assert refused.status == 409
    assert "The set-up took too long. Start again." in alerts(refused)
    assert await site.store.get_mfa(bob_id) is None
    assert await site.store.get_mfa(ann_id) is None


async def test_cancelling_the_set_up_keeps_nothing(clock: Clock) -> None:
    site = await password_site()
    ann = await site.add_user("ann@example.com")
    browser = await site.signed_in("ann@example.com")
    setup = await start_totp(browser)
    cancelled = await submit(browser, form_for(setup, "totp-cancel"))
    assert cancelled.header("location") == account_url("two-factor", notice="totp-cancelled")
    assert ENROLMENT_COOKIE not in browser.cookies
    assert (await read(browser, "two-factor"))["setup"] is None
    assert await site.store.get_mfa(ann.id) is None


async def test_new_recovery_codes_replace_the_old_ones(clock: Clock) -> None:
    site = await password_site()
    ann_id, enrolled, browser = await mfa_user(site, "ann@example.com", clock)
    page = await browser.get("account/two-factor", headers=PAGE)
    made = await submit(browser, form_for(page, "recovery-new"))
    assert made.status == 200
    fresh = recovery_codes(made)
    assert len(fresh) == 10
    assert not set(fresh) & set(enrolled.recovery_codes)
    assert (await site.activity(ann_id))[0] == "recovery-codes-made"

    old = await challenged(site, "ann@example.com")
    refused = await verify(old, enrolled.recovery_codes[0], "recovery")
    assert refused.status == 422
    accepted = await verify(old, fresh[0], "recovery")
    assert accepted.header("location") == HOME


async def test_turning_it_off_deletes_the_codes_and_trusted_browsers(
    strategy: str, clock: Clock
) -> None:
    site = await password_site(strategy)
    ann_id, enrolled, browser = await mfa_user(site, "ann@example.com", clock)
    trusted = await challenged(site, "ann@example.com")
    assert (await verify(trusted, enrolled.app.code(), trust=True)).header("location") == HOME
    assert TRUSTED_COOKIE in trusted.cookies
    assert len(await site.store.list_trusted_browsers(ann_id)) == 1

    page = await browser.get("account/two-factor", headers=PAGE)
    off = await submit(browser, form_for(page, "off"))
    assert off.header("location") == account_url("two-factor", notice="mfa-off")
    assert await site.store.get_mfa(ann_id) is None
    assert await site.store.count_recovery_codes(ann_id) == 0
    assert await site.store.list_trusted_browsers(ann_id) == []
    assert (await site.activity(ann_id))[0] == "mfa-off"
    told = site.mail_to("ann@example.com")[-1]
    assert told.subject == "Two-step verification is off for your account on localhost:3000"

    # The password alone signs in again.
    plain = site.browser()
    assert (await password_sign_in(plain, "ann@example.com", STRONG)).header("location") == HOME
    assert await site.session_amr(plain) == ["pwd"]
    again = await post_json(browser, "two-factor", {"intent": "off"})
    assert again.status == 409


@pytest.mark.parametrize("intent", ["totp-start", "totp-remove", "off", "recovery-new"])
async def test_changes_need_a_recent_sign_in(intent: str, strategy: str, clock: Clock) -> None:
    site = await password_site(strategy)
    ann_id, _, browser = await mfa_user(site, "ann@example.com", clock)
    if intent == "totp-start":
        await submit(
            browser, form_for(await browser.get("account/two-factor", headers=PAGE), "off")
        )
    fresh = await browser.get("account/two-factor", headers=PAGE)
    form_for(fresh, intent)  # offered after a recent sign-in
    await make_old(site, browser)
    state = (await site.store.get_mfa(ann_id), await site.store.count_recovery_codes(ann_id))

    page = await browser.get("account/two-factor", headers=PAGE)
    assert "Changing two-step verification needs a recent sign-in." in page.text
    assert [f for f in forms_of(page) if f.fields.get("intent") == intent] == []
    api = await post_json(browser, "two-factor", {"intent": intent})
    assert api.status == 403
    assert api.data()["reauthenticate"] == STEP_UP
    plain = await post(browser, "two-factor", {"intent": intent})
    assert (plain.status, plain.header("location")) == (302, STEP_UP)
    assert (await site.store.get_mfa(ann_id), await site.store.count_recovery_codes(ann_id)) == (
        state
    )
    assert ENROLMENT_COOKIE not in browser.cookies


async def test_the_step_up_of_a_user_with_an_app_asks_for_a_code(
    strategy: str, clock: Clock
) -> None:
    site = await password_site(strategy)
    ann_id, enrolled, browser = await mfa_user(site, "ann@example.com", clock)
    await make_old(site, browser)
    page = await browser.get(f"account/reauthenticate?callbackUrl={TWO_FACTOR}", headers=PAGE)
    assert page.status == 200
    answer = await password_sign_in(browser, "ann@example.com", STRONG, callback_url=TWO_FACTOR)
    assert answer.header("location") == f"{APP}/auth/mfa"
    assert (await read(browser, "two-factor"))["fresh"] is False  # not yet
    done = await verify(browser, enrolled.app.code())
    assert done.header("location") == TWO_FACTOR
    assert (await read(browser, "two-factor"))["fresh"] is True
    assert await site.session_amr(browser) == ["pwd", "otp", "mfa"]
    assert (await site.activity(ann_id))[0] == "reauthenticated"
    made = await post(browser, "two-factor", {"intent": "recovery-new"})
    assert made.status == 200
    assert len(recovery_codes(made)) == 10


async def test_revoking_trust_needs_no_recent_sign_in(strategy: str, clock: Clock) -> None:
    site = await password_site(strategy)
    ann_id, enrolled, browser = await mfa_user(site, "ann@example.com", clock)
    trusted = await challenged(site, "ann@example.com")
    await verify(trusted, enrolled.app.code(), trust=True)
    await make_old(site, browser)
    revoked = await post(browser, "two-factor", {"intent": "revoke-all"})
    assert revoked.header("location") == account_url("two-factor", notice="trust-revoked")
    assert await site.store.list_trusted_browsers(ann_id) == []


async def test_htmx_gets_the_set_up_with_its_error(clock: Clock) -> None:
    site = await password_site()
    await site.add_user("ann@example.com")
    browser = await site.signed_in("ann@example.com")
    await start_totp(browser)
    swapped = await post(
        browser, "two-factor", {"intent": "totp-confirm", "code": "12"}, headers=HTMX
    )
    assert swapped.status == 200
    assert "That code does not match." in swapped.text
    assert 'id="authui-totp-key"' in swapped.text


async def test_without_mfa_nobody_is_asked(strategy: str, clock: Clock) -> None:
    site = await password_site(strategy)
    ann_id, _, _ = await mfa_user(site, "ann@example.com", clock)
    off = await password_site(strategy, store=site.store, mfa=MfaOptions(enabled=False))
    browser = off.browser()
    answer = await password_sign_in(browser, "ann@example.com", STRONG)
    assert answer.header("location") == HOME
    assert await off.session_amr(browser) == ["pwd"]
    # The page is not there (an unknown action).
    assert (await browser.get("account/two-factor", headers=PAGE)).status == 400
    assert (await browser.get("account/two-factor", headers=JSON)).status == 400
    assert await off.store.get_mfa(ann_id) is not None  # kept for when it is on again


async def test_a_change_without_its_csrf_token_is_refused(clock: Clock) -> None:
    site = await password_site()
    ann_id, _, browser = await mfa_user(site, "ann@example.com", clock)
    for intent in ("totp-start", "off", "recovery-new", "revoke-all"):
        refused = await post(browser, "two-factor", {"intent": intent}, csrf=False)
        assert refused.status == 403
        assert alerts(refused) == ["The form had expired. Nothing was changed: try again."]
        assert recovery_codes(refused) == []
    assert ENROLMENT_COOKIE not in browser.cookies
    assert await site.store.get_mfa(ann_id) is not None
    assert await site.store.count_recovery_codes(ann_id) == 10
