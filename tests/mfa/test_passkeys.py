"""Passkeys and second factors (``tests.soft_authenticator`` answering the ceremonies): a
passkey as the second step after a password (options only for a pending sign-in, each
answer once, only the user's own passkeys), and a passkey sign-in, which is two factors
by itself and is not asked for another."""

from __future__ import annotations

import json
from typing import Any

from authui import MfaOptions
from authui.testing import AuthClient
from tests.account.support import (
    APP,
    JSON,
    PAGE,
    account_url,
    add_passkey,
    form_for,
    passkey_sign_in,
    read,
    submit,
)
from tests.mfa.support import Clock, challenged, mfa_user, recovery_codes, verify
from tests.passwords.support import (
    HOME,
    MFA_PAGE,
    STRONG,
    PasswordSite,
    form_post,
    password_sign_in,
    password_site,
)
from tests.soft_authenticator import SoftAuthenticator

PASSKEY_REFUSED = "That passkey could not be checked. Try again."


async def passkey_factor_user(site: PasswordSite, email: str) -> tuple[str, SoftAuthenticator]:
    """A user with a password and a passkey that is their second step."""
    user = await site.add_user(email)
    browser = await site.signed_in(email)
    key = SoftAuthenticator(APP)
    added = await add_passkey(browser, key)
    assert added.header("location") == account_url("passkeys"), added.text
    page = await browser.get("account/two-factor", headers=PAGE)
    on = await submit(browser, form_for(page, "passkey-on"))
    assert on.status == 200, on.header("location")
    assert len(recovery_codes(on)) == 10
    stored = await site.store.get_mfa(user.id)
    assert stored is not None
    assert (stored.passkey, stored.totp_secret) == (True, None)
    return user.id, key


async def options_of(browser: AuthClient) -> Any:
    asked = await browser.get("mfa/passkey-options", headers=JSON)
    assert asked.status == 200, asked.text
    return asked.data()


async def answer_with(browser: AuthClient, answer: dict[str, Any]) -> Any:
    """The challenge page's passkey form, as webauthn.js posts it."""
    fields = {"method": "passkey", "action": "authenticate", "data": json.dumps(answer)}
    return await form_post(browser, "mfa", fields)


async def test_a_passkey_as_the_second_step(strategy: str) -> None:
    site = await password_site(strategy)
    ann_id, key = await passkey_factor_user(site, "ann@example.com")
    outsider = site.browser()
    no_sign_in = await outsider.get("mfa/passkey-options", headers=JSON)
    assert no_sign_in.status == 400  # only for a sign-in waiting for it

    browser = await challenged(site, "ann@example.com")
    page = await browser.get("mfa", headers=PAGE)
    assert 'data-authui-passkey="passkey"' in page.text
    assert f'data-authui-options-url="{APP}/auth/mfa/passkey-options"' in page.text
    assert "webauthn" in page.text
    offered = await options_of(browser)
    assert offered["action"] == "authenticate"
    allowed = [c["id"] for c in offered["options"]["allowCredentials"]]
    assert allowed == [key.authenticate(offered["options"])["id"]]

    answer = key.authenticate(offered["options"])
    done = await answer_with(browser, answer)
    assert done.header("location") == HOME
    assert await site.session_amr(browser) == ["pwd", "hwk", "mfa"]
    assert (await site.activity(ann_id))[0] == "sign-in"

    # The same answer again (its challenge is spent) signs nobody in.
    other = await challenged(site, "ann@example.com")
    await options_of(other)
    replayed = await answer_with(other, answer)
    assert replayed.status == 422
    assert PASSKEY_REFUSED in replayed.text
    assert not await site.has_session(other)
    assert (await site.activity(ann_id))[0] == "mfa-failed"


async def test_another_users_passkey_is_refused() -> None:
    site = await password_site()
    await passkey_factor_user(site, "ann@example.com")
    _, bobs_key = await passkey_factor_user(site, "bob@example.com")
    browser = await challenged(site, "ann@example.com")
    offered = await options_of(browser)
    refused = await answer_with(browser, bobs_key.authenticate(offered["options"]))
    assert refused.status == 422
    assert PASSKEY_REFUSED in refused.text
    assert not await site.has_session(browser)
    # Nor does the code path of another method take a passkey answer.
    assert (await verify(browser, "123456", "passkey")).status == 422


async def test_passkeys_are_the_second_step_only_when_chosen(clock: Clock) -> None:
    """A user with an app and a passkey who did not choose "Use my passkeys as the second
    step" is asked for the app's code: no passkey options, no passkey answer accepted."""
    site = await password_site()
    _, _, ann = await mfa_user(site, "ann@example.com", clock)
    key = SoftAuthenticator(APP)
    assert (await add_passkey(ann, key)).header("location") == account_url("passkeys")
    browser = await challenged(site, "ann@example.com")
    page = await browser.get("mfa?method=passkey", headers=PAGE)
    assert "data-authui-passkey" not in page.text
    assert "Use a passkey" not in page.text
    assert (await browser.get("mfa/passkey-options", headers=JSON)).status == 400
    offered = await browser.get("webauthn-options/passkey?action=authenticate")
    answer = key.authenticate(offered.data()["options"])
    refused = await answer_with(browser, answer)
    assert refused.status == 422
    assert not await site.has_session(browser)

    chosen = await submit(
        ann, form_for(await ann.get("account/two-factor", headers=PAGE), "passkey-on")
    )
    assert chosen.header("location") == account_url("two-factor", notice="mfa-updated")
    page = await browser.get("mfa", headers=PAGE)
    assert f'href="{APP}/auth/mfa?method=passkey"' in page.text
    offered = await options_of(browser)
    done = await answer_with(browser, key.authenticate(offered["options"]))
    assert done.header("location") == HOME
    assert await site.session_amr(browser) == ["pwd", "hwk", "mfa"]


async def test_without_passkeys_as_factors_none_is_accepted() -> None:
    site = await password_site()
    _, key = await passkey_factor_user(site, "ann@example.com")
    off = await password_site(store=site.store, mfa=MfaOptions(passkeys=False))
    browser = off.browser()
    assert (await password_sign_in(browser, "ann@example.com", STRONG)).header(
        "location"
    ) == MFA_PAGE
    page = await browser.get("mfa?method=passkey", headers=PAGE)
    assert "data-authui-passkey" not in page.text
    assert (await browser.get("mfa/passkey-options", headers=JSON)).status == 400
    offered = await browser.get("webauthn-options/passkey?action=authenticate")
    answer = key.authenticate(offered.data()["options"])
    assert (await answer_with(browser, answer)).status == 422
    assert not await off.has_session(browser)


async def test_a_passkey_sign_in_is_not_asked_for_a_second_step(
    strategy: str, clock: Clock
) -> None:
    site = await password_site(strategy)
    ann_id, _, ann = await mfa_user(site, "ann@example.com", clock)
    key = SoftAuthenticator(APP)
    assert (await add_passkey(ann, key)).header("location") == account_url("passkeys")
    browser = site.browser()
    answer = await passkey_sign_in(browser, key)
    assert answer.header("location") == HOME
    assert await site.session_amr(browser) == ["hwk"]
    data = await read(browser, "two-factor")
    assert data["multiFactor"] is True
    assert (await site.activity(ann_id))[0] == "sign-in"
