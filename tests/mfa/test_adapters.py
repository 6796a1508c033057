"""Second factors on every kind of store (memory, SQLite, PostgreSQL, MariaDB, Redis:
``tests.adapters.conftest.adapter``), at request level: an authenticator app set up, the
challenge after a password, a replayed code refused, a recovery code used once, a
trusted browser revoked, and everything deleted when it is turned off."""

from __future__ import annotations

from tests.account.support import PAGE, form_for, submit
from tests.adapters.conftest import AnyAdapter
from tests.mfa.support import (
    WRONG_CODE,
    Clock,
    challenged,
    enrol,
    error_of,
    verify,
)
from tests.passwords.support import HOME, STRONG, password_sign_in, password_site


async def test_an_app_set_up_then_asked_for_once_per_code(
    adapter: AnyAdapter, clock: Clock
) -> None:
    site = await password_site(store=adapter)
    ann = await site.add_user("ann@example.com")
    browser = await site.signed_in("ann@example.com")
    enrolled = await enrol(browser, clock)
    stored = await adapter.get_mfa(ann.id)
    assert stored is not None
    assert stored.totp_secret is not None
    assert enrolled.app.key not in stored.totp_secret
    assert await adapter.count_recovery_codes(ann.id) == 10
    assert await site.session_amr(browser) == ["pwd", "otp", "mfa"]

    code = enrolled.app.code()
    first = await challenged(site, "ann@example.com")
    assert not await site.has_session(first)
    done = await verify(first, code, trust=True)
    assert done.header("location") == HOME
    assert await site.session_amr(first) == ["pwd", "otp", "mfa"]

    second = await challenged(site, "ann@example.com")
    replayed = await verify(second, code)
    assert (replayed.status, error_of(replayed)) == (422, [WRONG_CODE])
    assert not await site.has_session(second)
    assert (await verify(second, enrolled.recovery_codes[0], "recovery")).header("location") == HOME
    third = await challenged(site, "ann@example.com")
    assert (await verify(third, enrolled.recovery_codes[0], "recovery")).status == 422
    assert await adapter.count_recovery_codes(ann.id) == 9

    # The trusted browser skips the challenge until trust is revoked.
    [trusted] = await adapter.list_trusted_browsers(ann.id)
    await first.post("signout", form={"csrfToken": await first.csrf_token()})
    assert (await password_sign_in(first, "ann@example.com", STRONG)).header("location") == HOME
    page = await browser.get("account/two-factor", headers=PAGE)
    await submit(browser, form_for(page, "revoke-all"))
    assert await adapter.get_trusted_browser(trusted.browser_id) is None
    await first.post("signout", form={"csrfToken": await first.csrf_token()})
    await challenged(site, "ann@example.com", browser=first)

    off = await submit(
        browser, form_for(await browser.get("account/two-factor", headers=PAGE), "off")
    )
    assert off.status == 302
    assert await adapter.get_mfa(ann.id) is None
    assert await adapter.count_recovery_codes(ann.id) == 0
    assert (await password_sign_in(site.browser(), "ann@example.com", STRONG)).header(
        "location"
    ) == HOME
