"""Who is asked for a second factor: by default every user with one, after any first step
but a passkey (a password, an app's credentials, a sign-in link); ``MfaOptions.policy``
may ask it of users without one (who set it up right after signing in) or of nobody."""

from __future__ import annotations

from typing import Any

from authui import MfaOptions
from tests.account.support import APP, PAGE, PASSWORD, account_url, read
from tests.mfa.support import Clock, enrol, mfa_user, verify
from tests.passwords.support import (
    HOME,
    MFA_PAGE,
    STRONG,
    email_sign_in,
    password_sign_in,
    password_site,
)

SET_UP = account_url("two-factor", callbackUrl=HOME)


async def test_a_policy_sends_a_user_without_a_second_factor_to_set_one_up(
    strategy: str, clock: Clock
) -> None:
    asked: list[dict[str, Any]] = []

    def everyone(user: dict[str, Any], provider: str, account: Any, enrolled: bool) -> bool:
        asked.append({"email": user["email"], "provider": provider, "enrolled": enrolled})
        return True

    site = await password_site(strategy, mfa=MfaOptions(policy=everyone))
    await site.add_user("ann@example.com")
    browser = site.browser()
    answer = await password_sign_in(browser, "ann@example.com", STRONG)
    assert answer.header("location") == SET_UP
    assert asked == [{"email": "ann@example.com", "provider": "password", "enrolled": False}]
    assert await site.has_session(browser)  # signed in, with one step
    assert await site.session_amr(browser) == ["pwd"]

    page = await browser.get(SET_UP.removeprefix(f"{APP}/auth/"), headers=PAGE)
    assert page.status == 200
    assert "The page you opened needs two-step verification: set it up below" in page.text
    data = await read(browser, "two-factor?callbackUrl=http%3A%2F%2Flocalhost%3A3000%2Fhome")
    assert (data["needed"], data["continueUrl"], data["multiFactor"]) == (True, HOME, False)

    await enrol(browser, clock)
    done = await read(browser, "two-factor?callbackUrl=http%3A%2F%2Flocalhost%3A3000%2Fhome")
    assert (done["multiFactor"], done["continueUrl"]) == (True, HOME)
    continued = await browser.get(SET_UP.removeprefix(f"{APP}/auth/"), headers=PAGE)
    assert "You signed in with two-step verification." in continued.text
    assert f'href="{HOME}"' in continued.text
    # From now on, the second step is asked for.
    again = await password_sign_in(site.browser(), "ann@example.com", STRONG)
    assert again.header("location") == MFA_PAGE
    assert asked[-1]["enrolled"] is True


async def test_a_policy_saying_no_skips_the_second_step(strategy: str, clock: Clock) -> None:
    def not_for_ann(user: dict[str, Any], **_: Any) -> bool | None:
        return False if user["email"] == "ann@example.com" else None

    site = await password_site(strategy, mfa=MfaOptions(policy=not_for_ann))
    await mfa_user(site, "ann@example.com", clock)
    await mfa_user(site, "bob@example.com", clock)
    ann = site.browser()
    assert (await password_sign_in(ann, "ann@example.com", STRONG)).header("location") == HOME
    assert await site.session_amr(ann) == ["pwd"]
    # None: the default, a challenge for a user with a second factor.
    bob = site.browser()
    assert (await password_sign_in(bob, "bob@example.com", STRONG)).header("location") == MFA_PAGE


async def test_a_sign_in_link_is_a_first_step_too(strategy: str, clock: Clock) -> None:
    site = await password_site(strategy)
    ann_id, enrolled, _ = await mfa_user(site, "ann@example.com", clock)
    browser = site.browser()
    answer = await email_sign_in(site, browser, "ann@example.com")
    assert answer.header("location") == MFA_PAGE
    assert not await site.has_session(browser)
    done = await verify(browser, enrolled.app.code())
    assert done.header("location") == HOME
    assert await site.session_amr(browser) == ["email", "otp", "mfa"]
    assert (await site.activity(ann_id))[0] == "sign-in"


async def test_an_apps_credentials_are_a_first_step_too(strategy: str, clock: Clock) -> None:
    site = await password_site(strategy, credentials=True)
    _, enrolled, _ = await mfa_user(site, "ann@example.com", clock)
    browser = site.browser()
    answer = await browser.sign_in_with_credentials(
        email="ann@example.com", password=PASSWORD, callbackUrl=HOME
    )
    assert answer.header("location") == MFA_PAGE
    assert not await site.has_session(browser)
    done = await verify(browser, enrolled.recovery_codes[0], "recovery")
    assert done.header("location") == HOME
    assert await site.session_amr(browser) == ["pwd", "otp", "mfa"]
    [event] = [e for e in site.emitted("sign_in") if e["account"]["provider"] == "credentials"]
    assert event["user"]["email"] == "ann@example.com"
