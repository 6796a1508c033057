"""Trusted browsers: "do not ask again in this browser" skips the second step for the user
who chose it, in that browser only, until they revoke it in the account center."""

from __future__ import annotations

from authui import MfaOptions
from authui.testing import AuthClient
from tests.account.support import PAGE, account_url, form_for, forms_of, post, read, submit
from tests.mfa.support import TRUSTED_COOKIE, Clock, challenged, mfa_user, verify
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

FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"


async def sign_out(browser: AuthClient) -> None:
    answer = await browser.post("signout", form={"csrfToken": await browser.csrf_token()})
    assert answer.status == 302


async def test_a_trusted_browser_skips_the_second_step_until_revoked(
    strategy: str, clock: Clock
) -> None:
    site = await password_site(strategy)
    ann_id, enrolled, ann = await mfa_user(site, "ann@example.com", clock)
    laptop = await challenged(site, "ann@example.com", browser=site.browser(user_agent=FIREFOX))
    done = await verify(laptop, enrolled.app.code(), trust=True)
    assert done.header("location") == HOME
    assert TRUSTED_COOKIE in laptop.cookies
    assert (await site.activity(ann_id))[:2] == ["sign-in", "browser-trusted"]

    await sign_out(laptop)
    again = await password_sign_in(laptop, "ann@example.com", STRONG)
    assert again.header("location") == HOME  # no challenge
    assert await site.session_amr(laptop) == ["pwd", "mfa"]
    # Another browser is still asked.
    await challenged(site, "ann@example.com")

    listed = (await read(ann, "two-factor"))["trustedBrowsers"]
    assert [(b["browser"], b["client"]) for b in listed] == [("Firefox on Linux", "127.0.0.1")]
    page = await ann.get("account/two-factor", headers=PAGE)
    assert "Firefox on Linux" in page.text
    [revoke] = [f for f in forms_of(page) if f.fields.get("intent") == "revoke"]
    assert revoke.fields["browser"] == listed[0]["id"]
    revoked = await submit(ann, revoke)
    assert revoked.header("location") == account_url("two-factor", notice="trust-revoked")
    assert await site.store.list_trusted_browsers(ann_id) == []
    assert (await site.activity(ann_id))[0] == "trusted-browsers-revoked"

    await sign_out(laptop)
    assert TRUSTED_COOKIE in laptop.cookies  # the cookie is kept, and worth nothing now
    await challenged(site, "ann@example.com", browser=laptop)
    gone = await submit(ann, revoke)
    assert gone.status == 404


async def test_revoking_every_trusted_browser(clock: Clock) -> None:
    site = await password_site()
    _, enrolled, ann = await mfa_user(site, "ann@example.com", clock)
    browsers = []
    for _ in range(2):
        browser = await challenged(site, "ann@example.com")
        assert (await verify(browser, enrolled.app.code(), trust=True)).header("location") == HOME
        clock.tick()
        browsers.append(browser)
    assert len((await read(ann, "two-factor"))["trustedBrowsers"]) == 2
    page = await ann.get("account/two-factor", headers=PAGE)
    done = await submit(ann, form_for(page, "revoke-all"))
    assert done.header("location") == account_url("two-factor", notice="trust-revoked")
    assert (await read(ann, "two-factor"))["trustedBrowsers"] == []
    for browser in browsers:
        await sign_out(browser)
        await challenged(site, "ann@example.com", browser=browser)


async def test_trust_is_the_users_own(clock: Clock) -> None:
    """Ann's trusted browser does not skip Bob's second step, nor does a copy of its
    cookie in another browser skip Ann's."""
    site = await password_site()
    _, ann_app, _ = await mfa_user(site, "ann@example.com", clock)
    _, bob_app, _ = await mfa_user(site, "bob@example.com", clock)
    shared = await challenged(site, "ann@example.com")
    await verify(shared, ann_app.app.code(), trust=True)
    await sign_out(shared)
    await challenged(site, "bob@example.com", browser=shared)
    assert (await verify(shared, bob_app.app.code(), trust=True)).header("location") == HOME
    await sign_out(shared)
    # The cookie now names both users; each skips the second step here.
    assert (await password_sign_in(shared, "ann@example.com", STRONG)).header("location") == HOME
    await sign_out(shared)
    assert (await password_sign_in(shared, "bob@example.com", STRONG)).header("location") == HOME

    copy = site.browser()
    copy.cookies[TRUSTED_COOKIE] = shared.cookies[TRUSTED_COOKIE] + "x"
    assert (await password_sign_in(copy, "ann@example.com", STRONG)).header("location") == MFA_PAGE


async def test_without_trust_days_there_is_no_choice(clock: Clock) -> None:
    site = await password_site(mfa=MfaOptions(trust_days=0))
    ann_id, enrolled, _ = await mfa_user(site, "ann@example.com", clock)
    browser = await challenged(site, "ann@example.com")
    page = await browser.get("mfa", headers=PAGE)
    assert 'name="trust"' not in page.text
    assert (await verify(browser, enrolled.app.code(), trust=True)).header("location") == HOME
    assert TRUSTED_COOKIE not in browser.cookies
    assert await site.store.list_trusted_browsers(ann_id) == []
    await sign_out(browser)
    await challenged(site, "ann@example.com", browser=browser)


async def test_a_user_revokes_only_their_own_browsers(clock: Clock) -> None:
    site = await password_site()
    ann_id, enrolled, _ = await mfa_user(site, "ann@example.com", clock)
    laptop = await challenged(site, "ann@example.com")
    await verify(laptop, enrolled.app.code(), trust=True)
    [trusted] = await site.store.list_trusted_browsers(ann_id)
    await site.add_user("bob@example.com")
    bob = await site.signed_in("bob@example.com")
    refused = await post(bob, "two-factor", {"intent": "revoke", "browser": trusted.browser_id})
    assert refused.status == 404
    everything = await post(bob, "two-factor", {"intent": "revoke-all"})
    assert everything.status == 302
    assert await site.store.list_trusted_browsers(ann_id) == [trusted]


async def test_a_password_reset_ends_the_trust_of_every_browser(clock: Clock) -> None:
    """A reset may follow a stolen password: the browsers that skipped the second step
    ask for it again."""
    site = await password_site()
    ann_id, enrolled, _ = await mfa_user(site, "ann@example.com", clock)
    laptop = await challenged(site, "ann@example.com")
    assert (await verify(laptop, enrolled.app.code(), trust=True)).header("location") == HOME
    assert len(await site.store.list_trusted_browsers(ann_id)) == 1
    asked = await form_post(site.browser(), "password/forgot", {"email": "ann@example.com"})
    assert asked.status == 302
    link = await site.browser().get(local(last_link(site, "ann@example.com")), headers=PAGE)
    fields = {name: hidden(link, name) for name in ("user", "token")}
    done = await form_post(site.browser(), "password/reset", {**fields, "password": NEWER})
    assert done.status == 302
    assert await site.store.list_trusted_browsers(ann_id) == []
    await challenged(site, "ann@example.com", browser=laptop, password=NEWER)
