"""The account center's password page (``<base>/account/password``): set, change and
remove a password after a recent sign-in; a change keeps this session and ends the others,
and the address is told."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from authui.adapters.base import AdapterUser, user_record
from authui.adapters.factors import PasswordRecord
from authui.dates import now
from authui.passwords.hashing import hash_password
from authui.providers.credentials import Credentials
from tests.account.support import (
    APP,
    HTMX,
    JSON,
    PAGE,
    SESSION_COOKIE,
    account_url,
    alerts,
    form_for,
    post,
    post_json,
    read,
    submit,
)
from tests.passwords.support import (
    CHEAP,
    CREDENTIALS_SIGNIN,
    HOME,
    NEWER,
    STRONG,
    PasswordSite,
    email_sign_in,
    make_old,
    password_sign_in,
    password_site,
)

STEP_UP = account_url("reauthenticate", callbackUrl=account_url("password"))


async def signs_in(site: PasswordSite, email: str, password: str) -> bool:
    answer = await password_sign_in(site.browser(), email, password)
    return answer.header("location") == HOME


async def test_the_page_says_what_the_user_has() -> None:
    site = await password_site()
    await site.add_user("ann@example.com")
    ann = await site.signed_in("ann@example.com")
    data = await read(ann, "password")
    assert data["hasPassword"] is True
    assert data["canSet"] is True
    assert data["canRemove"] is True  # sign-in links to the address remain
    assert (data["minLength"], data["maxLength"]) == (8, 256)
    assert data["fresh"] is True
    page = await ann.get("account/password", headers=PAGE)
    assert page.status == 200
    form_for(page, "save")
    form_for(page, "remove")


async def test_a_password_is_set_for_a_user_without_one(strategy: str) -> None:
    site = await password_site(strategy)
    zoe = await site.add_user("zoe@example.com", password=None, name="Zoe")
    browser = site.browser()
    await email_sign_in(site, browser, "zoe@example.com")
    assert (await read(browser, "password"))["hasPassword"] is False
    page = await browser.get("account/password", headers=PAGE)
    assert "You have no password." in page.text

    done = await submit(browser, form_for(page, "save"), password=STRONG)
    assert done.status == 302
    assert done.header("location") == account_url("password", notice="password-set")
    assert await site.hash_of(zoe.id) is not None
    assert (await site.activity(zoe.id))[0] == "password-set"
    assert await signs_in(site, "zoe@example.com", STRONG)
    told = site.mail_to("zoe@example.com")[-1]
    assert told.subject == "A password was set on localhost:3000"
    assert told.url == account_url("activity")
    assert await site.has_session(browser)


async def test_a_change_keeps_this_session_and_ends_the_others(strategy: str) -> None:
    site = await password_site(strategy)
    ann_user = await site.add_user("ann@example.com")
    await site.add_user("bob@example.com")
    ann = await site.signed_in("ann@example.com")
    other = await site.signed_in("ann@example.com")
    bob = await site.signed_in("bob@example.com")
    other_token = other.cookies[SESSION_COOKIE]

    page = await ann.get("account/password", headers=PAGE)
    assert "Change password" in page.text
    done = await submit(ann, form_for(page, "save"), password=NEWER)
    assert done.header("location") == account_url("password", notice="password-changed")
    assert (await site.activity(ann_user.id))[0] == "password-changed"

    assert await site.has_session(ann)
    assert (await ann.get("account/password", headers=PAGE)).status == 200  # still signed in
    if strategy == "database":
        assert await site.store.get_session_and_user(other_token) is None
        assert not await site.has_session(other)
    else:
        assert await site.store.get_session_version(ann_user.id) == 1
        gone = await other.get("account", headers=PAGE)
        assert gone.status == 302
        assert str(gone.header("location")).startswith(f"{APP}/auth/signin?")
    assert await site.has_session(bob)

    assert not await signs_in(site, "ann@example.com", STRONG)
    assert await signs_in(site, "ann@example.com", NEWER)
    told = site.mail_to("ann@example.com")[-1]
    assert told.subject == "Your password on localhost:3000 was changed"
    assert "other browsers were signed out" in told.text


async def test_a_weak_password_is_refused_with_the_reason(strategy: str) -> None:
    site = await password_site(strategy)
    ann_user = await site.add_user("ann@example.com")
    before = await site.hash_of(ann_user.id)
    ann = await site.signed_in("ann@example.com")
    page = await ann.get("account/password", headers=PAGE)
    refused = await submit(ann, form_for(page, "save"), password="password1")
    assert refused.status == 422
    assert "This password is too common" in refused.text
    api = await post_json(ann, "password", {"intent": "save", "password": "ann@example.com"})
    assert api.status == 422
    assert api.data() == {
        "failed": True,
        "fieldErrors": {"password": ["Do not use your own address or name as your password."]},
        "formErrors": [],
    }
    swapped = await post(ann, "password", {"intent": "save", "password": "short"}, headers=HTMX)
    assert swapped.status == 200
    assert "Use at least 8 characters." in swapped.text
    assert await site.hash_of(ann_user.id) == before
    assert site.mail_to("ann@example.com") == []


async def test_an_old_sign_in_must_step_up_first(strategy: str) -> None:
    site = await password_site(strategy)
    ann_user = await site.add_user("ann@example.com")
    before = await site.hash_of(ann_user.id)
    ann = await site.signed_in("ann@example.com")
    await make_old(site, ann)

    assert (await read(ann, "password"))["fresh"] is False
    page = await ann.get("account/password", headers=PAGE)
    assert "Changing your password needs a recent sign-in." in page.text
    assert f'href="{STEP_UP.replace("&", "&amp;")}"' in page.text

    api = await post_json(ann, "password", {"intent": "save", "password": NEWER})
    assert api.status == 403
    assert api.data()["reauthenticate"] == STEP_UP
    browser = await post(ann, "password", {"intent": "save", "password": NEWER})
    assert browser.status == 302
    assert browser.header("location") == STEP_UP
    removal = await post_json(ann, "password", {"intent": "remove"})
    assert removal.status == 403
    assert await site.hash_of(ann_user.id) == before
    assert site.mail_to("ann@example.com") == []

    # Signing in again (the step-up) lets the change through.
    again = await password_sign_in(ann, "ann@example.com", STRONG)
    assert again.status == 302
    done = await post(ann, "password", {"intent": "save", "password": NEWER})
    assert done.header("location") == account_url("password", notice="password-changed")


async def test_a_password_is_removed_and_links_still_sign_in(strategy: str) -> None:
    site = await password_site(strategy)
    ann_user = await site.add_user("ann@example.com")
    ann = await site.signed_in("ann@example.com")
    page = await ann.get("account/password", headers=PAGE)
    done = await submit(ann, form_for(page, "remove"))
    assert done.header("location") == account_url("password", notice="password-removed")
    assert await site.hash_of(ann_user.id) is None
    assert (await site.activity(ann_user.id))[0] == "password-removed"
    told = site.mail_to("ann@example.com")[-1]
    assert told.subject == "Your password on localhost:3000 was removed"
    refused = await password_sign_in(site.browser(), "ann@example.com", STRONG)
    assert refused.header("location") == CREDENTIALS_SIGNIN
    again = await post_json(ann, "password", {"intent": "remove"})
    assert again.status == 404
    browser = site.browser()
    await email_sign_in(site, browser, "ann@example.com")
    assert await site.has_session(browser)


def legacy_login(user: Mapping[str, Any]) -> Credentials:
    """An app's own credentials (not counted as a way in: the app knows who has them)
    that sign ``user`` in by their name."""

    async def authorize(values: Mapping[str, Any], request: Any) -> dict[str, Any] | None:
        return dict(user) if values.get("username") == user["name"] else None

    return Credentials(
        id="legacy",
        credentials={"username": {"label": "Name"}, "password": {"type": "password"}},
        authorize=authorize,
    )


async def test_the_only_way_in_is_not_removed() -> None:
    """A user without an address (no sign-in links), signed in with the app's own
    credentials, whose password is their only way in that the account center counts."""
    kim = AdapterUser(id="kim", email=None, name="Kim")
    site = await password_site(extra=[legacy_login(user_record(kim))])
    await site.store.create_user(kim)
    hashed = await hash_password(CHEAP, STRONG)
    await site.store.set_password(PasswordRecord(user_id="kim", hash=hashed, updated=now()))
    browser = site.browser()
    answer = await browser.sign_in_with_credentials("legacy", username="Kim", password="x")
    assert answer.header("location") == APP
    data = await read(browser, "password")
    assert (data["hasPassword"], data["canRemove"], data["canSet"]) == (True, False, False)
    refused = await post_json(browser, "password", {"intent": "remove"})
    assert refused.status == 409
    assert refused.data()["formErrors"] == [
        "This is your only way to sign in: add another before removing it."
    ]
    page = await post(browser, "password", {"intent": "remove"})
    assert page.status == 409
    assert alerts(page) == ["This is your only way to sign in: add another before removing it."]
    assert await site.hash_of("kim") == hashed


async def test_json_clients_read_and_change_the_password() -> None:
    site = await password_site("jwt")
    ann_user = await site.add_user("ann@example.com")
    ann = await site.signed_in("ann@example.com")
    done = await post_json(ann, "password", {"intent": "save", "password": NEWER})
    assert done.status == 200
    body = done.data()
    assert isinstance(body, dict)
    assert body["failed"] is False
    assert body["message"] == "Your password is changed, and every other browser signed out."
    # The token came back with the new session version: the account center, which reads
    # the version on every request, still knows this browser.
    assert (await read(ann, "password"))["hasPassword"] is True
    assert await signs_in(site, "ann@example.com", NEWER)
    assert await site.store.get_session_version(ann_user.id) == 1


async def test_a_change_without_its_csrf_token_is_refused(strategy: str) -> None:
    site = await password_site(strategy)
    ann_user = await site.add_user("ann@example.com")
    before = await site.hash_of(ann_user.id)
    ann = await site.signed_in("ann@example.com")
    for intent in ("save", "remove"):
        fields = {"intent": intent, "password": NEWER}
        page = await post(ann, "password", fields, csrf=False)
        assert page.status == 403
        assert alerts(page) == ["The form had expired. Nothing was changed: try again."]
        api = await post(ann, "password", fields, csrf=False, headers=JSON)
        assert api.status == 403
    assert await site.hash_of(ann_user.id) == before
    assert site.mail_to("ann@example.com") == []
