"""Every refusal of the account center, as a browser and an API client meet it: the
status, the page's words or the JSON ``{failed, fieldErrors, formErrors}``, and nothing
changed in the store.

(The email-change link's refusals are in ``test_email_change``; the step-up's sign-ins in
``test_step_up``.)"""

from __future__ import annotations

import html
import logging

import pytest

from authui import AccountOptions, SessionOptions
from authui.actions.account import POSTS_PER_WINDOW
from authui.adapters.memory import MemoryAdapter
from authui.adapters.sqlalchemy import SQLAlchemyAdapter
from authui.testing import AuthClient
from authui.urls import with_query
from tests.account.support import (
    ACME,
    APP,
    HTMX,
    JSON,
    PAGE,
    account_url,
    add_passkey,
    alerts,
    contents,
    handle_of,
    linked,
    make_old,
    passkey_id,
    post,
    post_json,
    read,
    site,
    text_of,
)
from tests.conftest import make_config

STEP_UP_MESSAGE = "Sign in again to confirm it is you: this change needs a recent sign-in."


# CSRF -------------------------------------------------------------------------------------

POSTS = [
    ("profile", {"intent": "profile", "name": "Mallory"}),
    ("profile", {"intent": "email", "email": "mallory@example.com"}),
    ("sessions", {"intent": "revoke-others"}),
    ("delete", {"intent": "delete", "confirm": "yes"}),
]


EXPIRED = "The form had expired. Nothing was changed: try again."


@pytest.mark.parametrize("csrf", [None, "0" * 64], ids=["no token", "a wrong token"])
@pytest.mark.parametrize(("page", "form"), POSTS, ids=[f["intent"] for _, f in POSTS])
async def test_a_post_without_the_csrf_token_changes_nothing(
    page: str, form: dict[str, str], csrf: str | None
) -> None:
    """A form that has expired, or another site's: the page again with the error (403),
    the same as JSON, and for htmx the card to swap in."""
    here = await site()
    ada = await here.client("ada")
    await here.client("ada")  # another session, for revoke-others
    before = contents(here.store)
    sent = form if csrf is None else {**form, "csrfToken": csrf}
    shown = await post(ada, page, sent, csrf=False)
    assert shown.status == 403
    assert alerts(shown) == [EXPIRED]
    answer = await post(ada, page, sent, headers=JSON, csrf=False)
    assert (answer.status, answer.data()) == (
        403,
        {"failed": True, "fieldErrors": {}, "formErrors": [EXPIRED]},
    )
    swapped = await post(ada, page, sent, headers=HTMX, csrf=False)
    assert (swapped.status, alerts(swapped)) == (200, [EXPIRED])
    assert contents(here.store) == before
    assert here.outbox.sent == []
    assert (await read(ada, ""))["user"]["name"] == "Ada"  # still signed in


# Signed out -------------------------------------------------------------------------------

PAGES = ["", "profile", "passkeys", "sessions", "activity", "delete", "reauthenticate"]


@pytest.mark.parametrize("page", PAGES)
async def test_signed_out_browsers_sign_in_first_and_api_clients_get_401(page: str) -> None:
    here = await site()
    visitor = here.browser()
    back = with_query(f"{APP}/auth/signin", {"callbackUrl": account_url(page)})
    seen = await visitor.get(f"account/{page}".rstrip("/"), headers=PAGE)
    assert (seen.status, seen.header("location")) == (302, back)
    asked = await visitor.get(f"account/{page}".rstrip("/"), headers=JSON)
    assert (asked.status, asked.data()) == (
        401,
        {"failed": True, "fieldErrors": {}, "formErrors": ["Sign in to manage your account."]},
    )


@pytest.mark.parametrize(("page", "form"), POSTS, ids=[f["intent"] for _, f in POSTS])
async def test_signed_out_posts_change_nothing(page: str, form: dict[str, str]) -> None:
    here = await site()
    before = contents(here.store)
    visitor = here.browser()
    sent = await post(visitor, page, form)
    assert sent.status == 302
    assert str(sent.header("location")).startswith(f"{APP}/auth/signin?callbackUrl=")
    assert (await post_json(visitor, page, form)).status == 401
    assert contents(here.store) == before


async def test_a_session_that_ended_counts_as_signed_out() -> None:
    """The session's row is gone (signed out elsewhere): the cookie signs nobody in."""
    here = await site()
    ada = await here.client("ada")
    await here.store.delete_user_sessions(here.users["ada"].id)
    assert (await ada.get("account", headers=JSON)).status == 401


# Step-up ----------------------------------------------------------------------------------

SENSITIVE = [
    ("database", "profile", {"intent": "email", "email": "ada.new@example.com"}),
    ("jwt", "profile", {"intent": "email", "email": "ada.new@example.com"}),
    ("database", "connections", {"intent": "unlink", "provider": "acme"}),
    ("jwt", "connections", {"intent": "unlink", "provider": "acme"}),
    ("database", "passkeys", {"intent": "delete"}),
    ("jwt", "passkeys", {"intent": "delete"}),
    ("database", "sessions", {"intent": "revoke"}),
    ("database", "sessions", {"intent": "revoke-others"}),
    ("jwt", "sessions", {"intent": "everywhere"}),
    ("database", "delete", {"intent": "delete", "confirm": "yes"}),
    ("jwt", "delete", {"intent": "delete", "confirm": "yes"}),
]


@pytest.mark.parametrize(
    ("strategy", "page", "form"),
    SENSITIVE,
    ids=[f"{s}-{f['intent']}" for s, _, f in SENSITIVE],
)
async def test_a_sensitive_change_with_an_old_sign_in_asks_to_sign_in_again(
    strategy: str, page: str, form: dict[str, str]
) -> None:
    here = await site(strategy, oauth=[ACME])
    ada = await here.client("ada")
    other = await here.client("ada")
    account = await linked(here, "ada")
    wanted = dict(form)
    if form["intent"] == "unlink":
        wanted["providerAccountId"] = account.provider_account_id
    elif page == "passkeys":
        wanted["passkey"] = await passkey_id(ada)
    elif form["intent"] == "revoke":
        wanted["session"] = await handle_of(other)
    await make_old(here, ada)
    before = contents(here.store)

    back = account_url(page)
    if form["intent"] == "email":
        back = account_url(page, email="ada.new@example.com")
    step_up = account_url("reauthenticate", callbackUrl=back)
    seen = await post(ada, page, wanted)
    assert (seen.status, seen.header("location")) == (302, step_up)
    swapped = await post(ada, page, wanted, headers=HTMX)
    assert (swapped.status, swapped.header("hx-redirect")) == (200, step_up)
    asked = await post_json(ada, page, wanted)
    assert asked.status == 403
    assert asked.data() == {
        "failed": True,
        "fieldErrors": {},
        "formErrors": [STEP_UP_MESSAGE],
        "reauthenticate": step_up,
    }
    assert contents(here.store) == before
    assert here.outbox.sent == []
    assert (await read(other, ""))["user"]["name"] == "Ada"  # the other session lives on


# The last way in --------------------------------------------------------------------------


async def test_the_only_linked_account_cannot_be_unlinked() -> None:
    """No email provider and no passkey provider: Ada's Acme account is her only way in
    (her credentials are the app's to know, and not counted)."""
    here = await site(mail=False, passkeys=False, oauth=[ACME])
    ada = await here.client("ada")
    account = await linked(here, "ada")
    form = {"intent": "unlink", "provider": "acme", "providerAccountId": "ada-at-acme"}
    assert (await read(ada, "connections"))["accounts"][0]["canUnlink"] is False
    before = contents(here.store)
    page = await post(ada, "connections", form)
    assert page.status == 409
    assert "This is your only way to sign in: add another one before you unlink it." in alerts(page)
    answer = await post_json(ada, "connections", form)
    assert answer.status == 409
    assert answer.data()["formErrors"] == [
        "This is your only way to sign in: add another one before you unlink it."
    ]
    assert contents(here.store) == before
    assert await here.store.get_account(account.provider_account_id, "acme") == account


async def test_the_only_passkey_cannot_be_deleted() -> None:
    here = await site(mail=False)
    ada = await here.client("ada")
    wanted = await passkey_id(ada)
    seen = await read(ada, "passkeys")
    assert seen["canDelete"] is False
    before = contents(here.store)
    form = {"intent": "delete", "passkey": wanted}
    page = await post(ada, "passkeys", form)
    assert page.status == 409
    message = "This passkey is your only way to sign in: add another one before you delete it."
    assert message in alerts(page)
    answer = await post_json(ada, "passkeys", form)
    assert (answer.status, answer.data()["formErrors"]) == (409, [message])
    assert contents(here.store) == before


# Another user's things --------------------------------------------------------------------

OTHERS = [
    ("connections", "unlink", "This account is not linked to you."),
    ("passkeys", "delete", "This passkey is not one of yours."),
    ("passkeys", "rename", "This passkey is not one of yours."),
    ("sessions", "revoke", "This session is not one of yours, or has ended."),
]


@pytest.mark.parametrize(("page", "intent", "message"), OTHERS, ids=[i for _, i, _ in OTHERS])
async def test_another_users_things_are_not_found_like_things_that_never_were(
    page: str, intent: str, message: str
) -> None:
    """Bob's passkey, account or session named in Ada's form: 404, with the same words as
    for one that does not exist, so Ada learns nothing of Bob's."""
    here = await site(oauth=[ACME])
    ada, bob = await here.client("ada"), await here.client("bob")
    await linked(here, "ada")
    await add_passkey(ada)
    await linked(here, "bob")
    if page == "connections":
        bobs = {"provider": "acme", "providerAccountId": "bob-at-acme"}
        nobodys = {"provider": "acme", "providerAccountId": "nobody-at-acme"}
    elif page == "passkeys":
        bobs = {"passkey": await passkey_id(bob), "name": "Mine now"}
        nobodys = {"passkey": "bm9ib2R5cw", "name": "Mine now"}
    else:
        bobs = {"session": await handle_of(bob)}
        nobodys = {"session": "0" * 32}
    before = contents(here.store)

    answers = []
    for form in (bobs, nobodys):
        answer = await post_json(ada, page, {"intent": intent, **form})
        answers.append((answer.status, answer.data()))
        shown = await post(ada, page, {"intent": intent, **form})
        assert shown.status == 404
        assert message in alerts(shown)
    assert (
        answers[0]
        == answers[1]
        == (
            404,
            {"failed": True, "fieldErrors": {}, "formErrors": [message]},
        )
    )
    assert contents(here.store) == before


# Bad values -------------------------------------------------------------------------------

NAME_ERROR = "Enter a name of at most 100 characters."
IMAGE_ERROR = "Enter the address of a picture, starting with https://."
BAD_PROFILES = [
    ("name", {"name": "A" * 101}, NAME_ERROR),
    ("image", {"image": "http://pictures.example/ada.png"}, IMAGE_ERROR),
    ("image", {"image": "javascript:alert(1)"}, IMAGE_ERROR),
    ("image", {"image": "https:///no-host.png"}, IMAGE_ERROR),
    ("image", {"image": "https://pictures.example/" + "a" * 2030 + ".png"}, IMAGE_ERROR),
]


@pytest.mark.parametrize(
    ("field", "form", "message"),
    BAD_PROFILES,
    ids=["long name", "http picture", "script picture", "no host", "long picture"],
)
async def test_a_bad_name_or_picture_is_refused(
    field: str, form: dict[str, str], message: str
) -> None:
    here = await site()
    ada = await here.client("ada")
    before = contents(here.store)
    sent = {"intent": "profile", "name": "Ada", "image": "", **form}
    page = await post(ada, "profile", sent)
    assert page.status == 422
    assert message in text_of(page)
    assert 'aria-invalid="true"' in page.text
    assert html.escape(sent[field]) in page.text  # what was typed is shown again
    answer = await post_json(ada, "profile", sent)
    assert answer.status == 422
    assert answer.data() == {"failed": True, "fieldErrors": {field: [message]}, "formErrors": []}
    assert contents(here.store) == before


BAD_EMAILS = [
    ("ada.example.com", "Enter an email address like name@example.com"),
    ("ADA@Example.com", "This is your address already."),
    ("a" * 250 + "@example.com", "This address is too long."),
]


@pytest.mark.parametrize(("email", "message"), BAD_EMAILS, ids=["bad", "own", "too long"])
async def test_a_bad_or_same_email_address_is_refused(email: str, message: str) -> None:
    here = await site()
    ada = await here.client("ada")
    before = contents(here.store)
    page = await post(ada, "profile", {"intent": "email", "email": email})
    assert page.status == 422
    assert message in text_of(page)
    answer = await post_json(ada, "profile", {"intent": "email", "email": email})
    assert answer.status == 422
    assert answer.data()["fieldErrors"] == {"email": [message]}
    assert contents(here.store) == before
    assert here.outbox.sent == []


async def test_an_address_of_another_user_gets_the_answer_of_a_free_one() -> None:
    """Ada asks for Bob's address: she is told what she would be told for a free address
    (no enumeration), nothing is stored, and Bob is told that someone tried."""
    here = await site()
    ada = await here.client("ada", user_agent="Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0")
    free = await post_json(ada, "profile", {"intent": "email", "email": "free@example.com"})
    before = contents(here.store)
    taken = await post_json(ada, "profile", {"intent": "email", "email": "BOB@example.com"})
    assert (taken.status, taken.data()) == (free.status, free.data())
    assert taken.data()["failed"] is False
    page = await post(ada, "profile", {"intent": "email", "email": "bob@example.com"})
    assert page.header("location") == account_url("profile", notice="email-sent")

    [told, again] = here.outbox.to("bob@example.com")
    assert told.subject == "Your address was given for another account on localhost:3000"
    assert "Firefox on Linux, from 127.0.0.1" in told.text
    assert told.url == f"{APP}/auth/signin"  # a sign-in, no link that changes anything
    assert again.subject == told.subject
    assert contents(here.store) == before  # no token for Bob's address, nothing recorded
    assert (await here.user("ada")) == here.users["ada"]


async def test_the_sixth_change_of_address_within_the_hour_is_refused() -> None:
    here = await site()
    ada = await here.client("ada")
    for n in range(5):
        answer = await post_json(ada, "profile", {"intent": "email", "email": f"a{n}@example.com"})
        assert answer.status == 200
    before = contents(here.store)
    sixth = await post_json(ada, "profile", {"intent": "email", "email": "a5@example.com"})
    assert sixth.status == 429
    assert sixth.data()["formErrors"] == ["Too many changes asked for. Try again in an hour."]
    page = await post(ada, "profile", {"intent": "email", "email": "a5@example.com"})
    assert page.status == 429
    assert "Too many changes asked for. Try again in an hour." in alerts(page)
    assert contents(here.store) == before
    assert len(here.outbox.sent) == 5
    assert here.outbox.to("a5@example.com") == []


async def test_too_many_changes_in_a_short_time_are_refused() -> None:
    here = await site()
    ada = await here.client("ada")
    for n in range(POSTS_PER_WINDOW):
        answer = await post_json(ada, "profile", {"intent": "profile", "name": f"Ada {n}"})
        assert answer.status == 200
    before = contents(here.store)
    answer = await post_json(ada, "profile", {"intent": "profile", "name": "Eve"})
    assert (answer.status, answer.data()["formErrors"]) == (
        429,
        ["Too many changes in a short time. Wait a few minutes."],
    )
    assert contents(here.store) == before
    bob = await here.client("bob")  # counted per user
    assert (await post_json(bob, "profile", {"intent": "profile", "name": "Rob"})).status == 200


# Intents and pages ------------------------------------------------------------------------

INTENTS = [
    ("database", "profile"),
    ("database", "connections"),
    ("database", "passkeys"),
    ("database", "sessions"),
    ("database", "delete"),
    ("jwt", "sessions"),
]


@pytest.mark.parametrize(("strategy", "page"), INTENTS)
@pytest.mark.parametrize("intent", ["dance", "everywhere-else", ""])
async def test_an_unknown_intent_is_refused(strategy: str, page: str, intent: str) -> None:
    here = await site(strategy, oauth=[ACME])
    ada = await here.client("ada")
    before = contents(here.store)
    answer = await post_json(ada, page, {"intent": intent})
    assert (answer.status, answer.data()) == (
        422,
        {"failed": True, "fieldErrors": {}, "formErrors": ["This form cannot do that."]},
    )
    shown = await post(ada, page, {"intent": intent})
    assert shown.status == 422
    assert "This form cannot do that." in alerts(shown)
    swapped = await post(ada, page, {"intent": intent}, headers=HTMX)
    assert swapped.status == 200  # htmx swaps in the card with the error
    assert swapped.header("vary") == "HX-Request"
    assert "This form cannot do that." in alerts(swapped)
    assert contents(here.store) == before


@pytest.mark.parametrize(
    ("strategy", "intent"), [("database", "everywhere"), ("jwt", "revoke-others")]
)
async def test_the_other_strategys_session_intent_is_refused(strategy: str, intent: str) -> None:
    here = await site(strategy)
    ada = await here.client("ada")
    answer = await post_json(ada, "sessions", {"intent": intent})
    assert (answer.status, answer.data()["formErrors"]) == (422, ["This form cannot do that."])


async def test_the_delete_form_needs_its_box_ticked() -> None:
    here = await site()
    ada = await here.client("ada")
    before = contents(here.store)
    answer = await post_json(ada, "delete", {"intent": "delete"})
    assert answer.status == 422
    assert answer.data()["fieldErrors"] == {
        "confirm": ["Tick the box to confirm that the account and its data go for good."]
    }
    assert contents(here.store) == before


@pytest.mark.parametrize("page", ["", "activity", "reauthenticate"])
async def test_a_page_without_a_form_takes_no_post(page: str) -> None:
    here = await site()
    ada = await here.client("ada")
    assert (await post_json(ada, page, {"intent": "anything"})).status == 400


@pytest.mark.parametrize("page", ["nonsense", "deleted-not", "connections"])
async def test_a_page_that_is_not_there_is_not_served(page: str) -> None:
    """``connections`` is not offered without an OAuth provider."""
    here = await site()
    ada = await here.client("ada")
    assert (await ada.get(f"account/{page}", headers=PAGE)).status == 400
    assert (await ada.get(f"account/{page}", headers=JSON)).status == 400


def logged(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR)


async def test_the_account_center_turned_off_is_not_served(
    caplog: pytest.LogCaptureFixture,
) -> None:
    here = await site(account=AccountOptions(enabled=False))
    ada = await here.client("ada")
    before = contents(here.store)
    for page in ("", "profile", "sessions", "reauthenticate"):
        assert (await ada.get(f"account/{page}".rstrip("/"), headers=PAGE)).status == 400
        assert (await ada.get(f"account/{page}".rstrip("/"), headers=JSON)).status == 400
    answer = await post_json(ada, "profile", {"intent": "profile", "name": "Eve"})
    assert (answer.status, answer.data()) == (400, "Bad request.")
    assert contents(here.store) == before
    assert "The account center is turned off (AccountOptions.enabled)" in logged(caplog)


async def test_without_an_adapter_the_account_center_is_not_served(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A JWT site without a store (the test credentials of ``tests.conftest``)."""
    browser = AuthClient(make_config(), origin=APP)
    signed = await browser.sign_in_with_credentials(username="ada", password="correct horse")
    assert signed.status == 302
    assert (await browser.get("account", headers=PAGE)).status == 400
    answer = await post_json(browser, "profile", {"intent": "profile", "name": "Eve"})
    assert answer.status == 400
    assert "The account center needs an adapter" in logged(caplog)


async def test_turned_off_parts_are_not_served() -> None:
    here = await site(account=AccountOptions(allow_delete=False, allow_email_change=False))
    ada = await here.client("ada")
    assert (await ada.get("account/delete", headers=JSON)).status == 400
    menu = (await ada.get("account", headers=PAGE)).text
    assert account_url("delete") not in menu
    profile = await read(ada, "profile")
    assert profile["emailChange"] is False
    answer = await post_json(ada, "profile", {"intent": "email", "email": "ada.new@example.com"})
    assert (answer.status, answer.data()["formErrors"]) == (
        422,
        ["Changing the email address is not offered here."],
    )
    assert here.outbox.sent == []


# A store without a method -----------------------------------------------------------------


def without(method: str) -> MemoryAdapter:
    """A memory store written before ``method`` was an adapter method."""
    lacking = type(f"Without_{method}", (MemoryAdapter,), {method: None})
    store: MemoryAdapter = lacking()
    return store


LACKING = [
    ("database", "delete_user_sessions", "sessions", {"intent": "revoke-others"}),
    ("jwt", "bump_session_version", "sessions", {"intent": "everywhere"}),
    ("database", "delete_authenticator", "passkeys", {"intent": "delete"}),
    ("database", "list_security_events", "activity", None),
]


@pytest.mark.parametrize(
    ("strategy", "missing", "page", "form"), LACKING, ids=[m for _, m, _, _ in LACKING]
)
async def test_a_store_without_a_method_says_so_and_posts_answer_501(
    strategy: str, missing: str, page: str, form: dict[str, str] | None
) -> None:
    here = await site(strategy, store=without(missing))
    ada = await here.client("ada")
    await here.client("ada")
    message = f"This is not available here: the site's data store cannot do it yet ({missing})."
    shown = await ada.get(f"account/{page}", headers=PAGE)
    assert shown.status == 200
    assert alerts(shown) == [message]
    assert (await read(ada, page))["unavailable"] == message
    if form is None:
        return
    if page == "passkeys":
        form = {**form, "passkey": await passkey_id(ada)}
        await add_passkey(ada)  # a second one: deleting is not refused as the last way in
    before = contents(here.store)
    answer = await post_json(ada, page, form)
    assert (answer.status, answer.data()["formErrors"]) == (501, [message])
    refused = await post(ada, page, form)
    assert refused.status == 501
    assert alerts(refused) == [message]  # said once, not twice
    assert contents(here.store) == before


async def test_each_user_sees_only_their_own() -> None:
    """Bob's pages show Bob: the ids in Ada's forms never reach Bob's pages."""
    here = await site(oauth=[ACME])
    ada, bob = await here.client("ada"), await here.client("bob")
    await linked(here, "ada")
    ada_sees, bob_sees = await read(ada, "connections"), await read(bob, "connections")
    assert [a["providerAccountId"] for a in ada_sees["accounts"]] == ["ada-at-acme"]
    assert bob_sees["accounts"] == []
    assert bob_sees["user"]["email"] == "bob@example.com"


# An outage ---------------------------------------------------------------------------------


@pytest.mark.parametrize("accept", ["browser", "api"])
async def test_a_database_that_cannot_be_reached_is_a_503_in_the_callers_form(
    accept: str,
) -> None:
    """The store is down (a PostgreSQL URL on a port where nothing listens): the page says
    so with 503 and Retry-After for a browser, and an API client gets the account center's
    JSON shape, not a page."""
    adapter = SQLAlchemyAdapter("postgresql+asyncpg://authui@127.0.0.1:1/gone")
    client = AuthClient(make_config(adapter=adapter, session=SessionOptions(strategy="database")))
    client.cookies["authjs.session-token"] = "a-session-token"
    answer = await client.get("account/sessions", headers=PAGE if accept == "browser" else JSON)
    await adapter.close()
    assert answer.status == 503
    assert answer.header("retry-after")
    if accept == "browser":
        assert "Temporarily unavailable" in answer.text
    else:
        body = answer.data()
        assert body["failed"] is True
        assert body["formErrors"] == [
            "The service is temporarily unavailable. Nothing was changed: wait a moment, "
            "then try again."
        ]
