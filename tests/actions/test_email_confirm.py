"""Magic links survive mail scanners: opening a link shows a page and spends nothing; its
button (a CSRF-checked POST carrying the token in its body) signs in.

Scanners and link previewers open every link of an email with a plain GET, without the
user's cookies. ``EmailProvider(one_click=True)`` keeps Auth.js's behaviour, where that
GET signs in."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import replace
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest

from authui import Theme
from authui.adapters.memory import MemoryAdapter
from authui.http import Response
from authui.pages.packs import installed_packs
from authui.testing import AuthClient
from tests.actions.test_email import (
    APP,
    WELCOME,
    WELCOME_NEW,
    ConfirmForm,
    confirm,
    follow,
    request_link,
    setup,
)

CALLBACK = f"{APP}/auth/callback/email"


class WatchedAdapter(MemoryAdapter):
    """A memory adapter that notes the name of every adapter method called."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def __getattribute__(self, name: str) -> Any:
        value = super().__getattribute__(name)
        if name.startswith("_") or not inspect.iscoroutinefunction(value):
            return value
        calls: list[str] = super().__getattribute__("calls")

        async def noted(*args: Any, **kwargs: Any) -> Any:
            calls.append(name)
            return await value(*args, **kwargs)

        return noted


async def open_link(client: AuthClient, link: str) -> Response:
    return await client.get(link.removeprefix(f"{APP}/auth/"))


def stranger(client: AuthClient) -> AuthClient:
    """A client of the same site without ``client``'s cookies (a scanner, another browser)."""
    return AuthClient(client.config, origin=APP)


async def asked(**provider: Any) -> tuple[AuthClient, str, WatchedAdapter]:
    """A link sent to ada@example.com (new to the site): the client that asked, the link,
    the adapter."""
    adapter = WatchedAdapter()
    client, outbox, _ = setup(adapter=adapter, **provider)
    await request_link(client, "ada@example.com")
    return client, outbox.link, adapter


def token_of(link: str) -> str:
    return dict(parse_qsl(urlsplit(link).query))["token"]


async def test_opening_the_link_shows_the_page_and_spends_nothing() -> None:
    client, link, adapter = await asked()
    stored = dict(adapter.tokens)
    adapter.calls.clear()
    scanner = stranger(client)

    page = await open_link(scanner, link)

    assert page.status == 200
    assert page.header("location") is None
    assert adapter.calls == []  # no use_verification_token, no write of any kind
    assert adapter.tokens == stored
    assert adapter.users == {}
    assert adapter.sessions == {}
    assert (await scanner.get("session")).data() is None
    html = page.text
    assert '<h1 class="authui-heading">Confirm sign-in</h1>' in html
    assert "You are signing in to localhost:3000 as ada@example.com." in html
    assert ">Sign in as ada@example.com</button>" in html
    assert page.header("referrer-policy") == "no-referrer"
    assert page.header("cache-control") == "no-store"


async def test_the_page_issues_the_csrf_cookie_and_posts_the_token_in_its_body() -> None:
    client, link, _ = await asked()
    browser = stranger(client)
    page = await open_link(browser, link)
    assert "authjs.csrf-token" in browser.cookies  # issued by this very page
    form = ConfirmForm(page.text)
    assert (form.method, form.action) == ("post", CALLBACK)  # no token in the form's URL
    assert form.fields["token"] == token_of(link)
    assert form.fields["email"] == "ada@example.com"
    assert form.fields["callbackUrl"] == WELCOME
    assert form.fields["csrfToken"] == browser.cookies["authjs.csrf-token"].split("%7C")[0]


async def test_a_scanner_opens_the_link_twice_and_the_user_still_signs_in() -> None:
    client, link, adapter = await asked()
    scanner = stranger(client)
    assert (await open_link(scanner, link)).status == 200
    assert (await open_link(scanner, link)).status == 200

    user = stranger(client)
    done = await follow(user, link)

    assert done.header("location") == WELCOME_NEW
    assert (await user.get("session")).data()["user"]["email"] == "ada@example.com"
    assert (await scanner.get("session")).data() is None
    assert adapter.tokens == {}
    [stored] = adapter.users.values()
    assert stored.email_verified is not None


async def test_confirming_signs_in_once_and_a_replay_is_refused() -> None:
    client, link, _ = await asked()
    page = await open_link(client, link)

    done = await confirm(client, page)
    replay = await confirm(client, page)

    assert done.status == 302
    assert done.header("location") == WELCOME_NEW
    assert replay.header("location") == f"{APP}/auth/error?error=Verification"


@pytest.mark.parametrize(
    "forge",
    [
        pytest.param(lambda fields: fields.pop("csrfToken"), id="no-token"),
        pytest.param(lambda fields: fields.update(csrfToken="0" * 64), id="wrong-token"),
    ],
)
async def test_confirming_without_csrf_is_refused(forge: Callable[[dict[str, str]], Any]) -> None:
    client, link, adapter = await asked()
    page = await open_link(client, link)
    fields = ConfirmForm(page.text).fields
    forge(fields)

    refused = await client.post("callback/email", form=fields)

    assert refused.header("location") == f"{APP}/auth/signin?error=MissingCSRF"
    assert len(adapter.tokens) == 1
    assert adapter.sessions == {}
    assert (await confirm(client, page)).header("location") == WELCOME_NEW  # still usable


async def test_a_cross_site_post_without_the_cookie_is_refused() -> None:
    """Another site can make a browser post the form, but not send its CSRF cookie."""
    client, link, adapter = await asked()
    fields = ConfirmForm((await open_link(client, link)).text).fields
    refused = await stranger(client).post("callback/email", form=fields)
    assert refused.header("location") == f"{APP}/auth/signin?error=MissingCSRF"
    assert len(adapter.tokens) == 1


async def test_the_token_is_in_no_location_header() -> None:
    client, link, _ = await asked()
    token = token_of(link)
    page = await open_link(client, link)
    answers = [
        page,
        await confirm(client, page),
        await confirm(client, page),  # the replay's error redirect
        await client.post("callback/email", form={"token": token, "email": "ada@example.com"}),
    ]
    api = await client.post(
        "callback/email",
        form=ConfirmForm(page.text).fields,
        headers={"X-Auth-Return-Redirect": "1"},
    )
    locations = [a.header("location") or "" for a in answers]
    assert all(locations[1:])
    assert not any(token in location for location in locations)
    assert token not in api.data()["url"]


async def test_the_address_on_the_page_is_escaped() -> None:
    client, _, _ = await asked()
    odd = "<b>x</b>@example.com"  # an address the default normaliser lets through
    query = urlencode({"callbackUrl": WELCOME, "token": "t" * 64, "email": odd})
    page = await client.get(f"callback/email?{query}")
    assert page.status == 200
    assert "<b>" not in page.text
    assert "Sign in as &lt;b&gt;x&lt;/b&gt;@example.com" in page.text
    assert ConfirmForm(page.text).fields["email"] == odd


async def test_one_click_keeps_the_auth_js_behaviour() -> None:
    client, link, adapter = await asked(one_click=True)
    scanner = stranger(client)
    done = await open_link(scanner, link)
    assert done.header("location") == WELCOME_NEW
    assert adapter.tokens == {}
    assert (await scanner.get("session")).data()["user"]["email"] == "ada@example.com"
    again = await open_link(client, link)
    assert again.header("location") == f"{APP}/auth/error?error=Verification"


@pytest.mark.parametrize("pack", sorted(installed_packs()))
async def test_every_pack_renders_the_page(pack: str) -> None:
    client, link, _ = await asked()
    client.config = replace(client.config, theme=Theme(pack=pack))
    page = await open_link(client, link)
    assert page.status == 200
    html = page.text
    assert "authui-page-confirm-signin" in html
    assert 'class="authui-heading">Confirm sign-in</h1>' in html
    assert "Sign in as ada@example.com" in html
    assert set(ConfirmForm(html).fields) == {"csrfToken", "callbackUrl", "token", "email"}
