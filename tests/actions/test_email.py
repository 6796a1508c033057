"""Magic-link sign-in through the core: the request, the email, the link, the limits.

Following a link means what a browser does: open it (``GET``: the confirmation page) and
press the page's button (a ``POST`` of its form); ``tests/actions/test_email_confirm.py`` tests
that split itself.

Messages go to a capturing transport; the SMTP and HTTP transports have their own tests
(``tests/mail``), and the browser test drives the whole thing through a real SMTP server."""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

import pytest

from authui import Callbacks, Events, Pages, SessionOptions, Theme
from authui.adapters.base import AdapterUser, VerificationToken
from authui.adapters.memory import MemoryAdapter
from authui.http import Response
from authui.mail.limits import SendLimits
from authui.mail.message import DeliveryError, VerificationEmail
from authui.providers.email import EmailProvider
from authui.testing import AuthClient
from tests.conftest import SECRET, make_config

APP = "http://localhost:3000"
WELCOME = f"{APP}/welcome"
WELCOME_QUOTED = quote(WELCOME, safe="")
WELCOME_NEW = f"{APP}/auth/new-user?callbackUrl={WELCOME_QUOTED}"


class Outbox:
    """A transport that keeps what it was given (or fails, when told to)."""

    def __init__(self) -> None:
        self.sent: list[VerificationEmail] = []
        self.failing = False

    async def __call__(self, message: VerificationEmail, provider: EmailProvider) -> None:
        if self.failing:
            raise DeliveryError("Example Mail answered 503: service unavailable")
        self.sent.append(message)

    @property
    def link(self) -> str:
        return self.sent[-1].url


def setup(
    strategy: str = "database", adapter: MemoryAdapter | None = None, **provider: Any
) -> tuple[AuthClient, Outbox, MemoryAdapter]:
    outbox = Outbox()
    store = adapter or MemoryAdapter()
    email = EmailProvider(transport=outbox, sender="Acme <login@acme.example>", **provider)
    config = make_config(
        providers=[email],
        adapter=store,
        session=SessionOptions(strategy=strategy),  # type: ignore[arg-type]
        theme=Theme(brand_color="#0a7d4f"),
    )
    return AuthClient(config, origin=APP), outbox, store


async def request_link(client: AuthClient, email: str, **headers: str) -> Any:
    form = {"csrfToken": await client.csrf_token(), "email": email, "callbackUrl": "/welcome"}
    return await client.post("signin/email", form=form, headers=headers)


class ConfirmForm(HTMLParser):
    """The confirmation page's form: its method, where it posts, its hidden fields."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.method: str | None = None
        self.action: str | None = None
        self.fields: dict[str, str] = {}
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "form":
            self.method, self.action = found.get("method"), found.get("action")
        elif tag == "input" and found.get("type") == "hidden" and found.get("name"):
            self.fields[str(found["name"])] = found.get("value") or ""


async def confirm(client: AuthClient, page: Response) -> Response:
    """Press the confirmation page's button: post its form, as a browser does."""
    form = ConfirmForm(page.text)
    assert (form.method, form.action) == ("post", f"{APP}/auth/callback/email")
    return await client.post("callback/email", form=form.fields)


async def follow(client: AuthClient, link: str) -> Response:
    """Open a sign-in link, and press the button of the page it shows (a link refused on
    sight answers with its redirect)."""
    page = await client.get(link.removeprefix(f"{APP}/auth/"))
    return await confirm(client, page) if page.status == 200 else page


@pytest.mark.parametrize("strategy", ["database", "jwt"])
async def test_new_user_signs_in_with_the_link(strategy: str) -> None:
    client, outbox, adapter = setup(strategy)
    asked = await request_link(client, "  Ada@Example.COM ")
    assert asked.header("location") == f"{APP}/auth/verify-request?provider=email&type=email"
    [message] = outbox.sent
    assert message.to == "ada@example.com"
    assert message.sender == "Acme <login@acme.example>"
    assert message.subject == "Sign in to localhost:3000"
    assert message.url in message.text
    assert message.url.replace("&", "&amp;") in message.html
    assert "#0a7d4f" in message.html  # the theme's brand colour
    link = urlsplit(message.url)
    assert f"{link.scheme}://{link.netloc}{link.path}" == f"{APP}/auth/callback/email"
    params = dict(parse_qsl(link.query))
    assert list(params) == ["callbackUrl", "token", "email"]
    assert params["email"] == "ada@example.com"
    assert len(params["token"]) == 64
    [stored] = adapter.tokens.values()
    assert stored.token == hashlib.sha256((params["token"] + SECRET).encode()).hexdigest()
    assert stored.expires - stored.expires.now(stored.expires.tzinfo) > timedelta(hours=23)
    done = await follow(client, message.url)
    assert done.header("location") == f"{APP}/auth/new-user?callbackUrl={WELCOME_QUOTED}"
    session = (await client.get("session")).data()
    assert session["user"]["email"] == "ada@example.com"
    [user] = adapter.users.values()
    assert user.email_verified is not None
    assert adapter.tokens == {}


async def test_existing_user_is_verified_and_sent_on() -> None:
    adapter = MemoryAdapter()
    await adapter.create_user(AdapterUser(id="u1", email="ada@example.com", name="Ada"))
    updated: list[Any] = []
    client, outbox, _ = setup(adapter=adapter)
    client.config = replace(
        client.config, events=Events(update_user=lambda user: updated.append(user))
    )
    await request_link(client, "ada@example.com")
    done = await follow(client, outbox.link)
    assert done.header("location") == WELCOME
    assert len(updated) == 1
    assert adapter.users["u1"].email_verified is not None
    assert (await client.get("session")).data()["user"]["name"] == "Ada"


async def test_a_link_works_once() -> None:
    client, outbox, _ = setup()
    await request_link(client, "ada@example.com")
    await follow(client, outbox.link)
    again = await follow(AuthClient(client.config, origin=APP), outbox.link)
    assert again.header("location") == f"{APP}/auth/error?error=Verification"


async def test_an_expired_link_is_refused() -> None:
    client, outbox, adapter = setup()
    await request_link(client, "ada@example.com")
    [(key, token)] = adapter.tokens.items()
    adapter.tokens[key] = replace(token, expires=token.expires - timedelta(days=2))
    refused = await follow(client, outbox.link)
    assert refused.header("location") == f"{APP}/auth/error?error=Verification"
    assert (await client.get("session")).data() is None


@pytest.mark.parametrize(
    "change",
    [
        {"email": "eve@example.com"},
        {"token": "0" * 64},
        {"token": ""},
        {"email": ""},
    ],
)
async def test_an_altered_link_is_refused(change: dict[str, str]) -> None:
    client, outbox, adapter = setup()
    await request_link(client, "ada@example.com")
    link = urlsplit(outbox.link)
    params = {**dict(parse_qsl(link.query)), **change}
    refused = await follow(client, f"{APP}/auth/callback/email?{urlencode(params)}")
    assert refused.header("location") == f"{APP}/auth/error?error=Verification"
    assert len(adapter.tokens) == 1  # the real link still works
    assert (await follow(client, outbox.link)).header("location") == WELCOME_NEW


@pytest.mark.parametrize(
    "typed",
    [
        "",
        "no-at-sign",
        "two@@example.com",
        'quo"te@example.com',
        "a b@example.com",
        "@example.com",
        "ada@",
    ],
)
async def test_a_bad_address_is_a_form_error(typed: str) -> None:
    client, outbox, adapter = setup()
    refused = await request_link(client, typed)
    assert refused.header("location") == (
        f"{APP}/auth/signin?error=EmailSignInError&code=invalid_email"
    )
    page = await client.get("signin?error=EmailSignInError&code=invalid_email")
    assert "Enter a valid email address." in page.body.decode()
    assert outbox.sent == []
    assert adapter.tokens == {}


async def test_a_bad_address_with_htmx_gets_the_form_back_with_its_message() -> None:
    client, _, _ = setup()
    refused = await request_link(client, "ada at example", **{"HX-Request": "true"})
    assert refused.status == 200
    html = refused.body.decode()
    assert "Enter a valid email address." in html
    assert 'value="ada at example"' in html
    assert 'aria-invalid="true"' in html


async def test_full_width_at_sign_is_normalised() -> None:
    client, outbox, _ = setup()
    await request_link(client, "ada\uff20example.com")
    assert outbox.sent[0].to == "ada@example.com"


async def test_failed_delivery_leaves_no_usable_link(caplog: pytest.LogCaptureFixture) -> None:
    client, outbox, adapter = setup()
    outbox.failing = True
    refused = await request_link(client, "ada@example.com")
    assert (
        refused.header("location") == f"{APP}/auth/signin?error=EmailSignInError&code=send_failed"
    )
    assert adapter.tokens == {}
    page = await client.get("signin?error=EmailSignInError&code=send_failed")
    assert "The e-mail could not be sent." in page.body.decode()
    assert "503" in "\n".join(r.getMessage() for r in caplog.records)


async def test_unknown_and_known_addresses_get_the_same_answer() -> None:
    adapter = MemoryAdapter()
    await adapter.create_user(AdapterUser(id="u1", email="known@example.com"))
    client, outbox, _ = setup(adapter=adapter)
    known = await request_link(client, "known@example.com")
    unknown = await request_link(client, "unknown@example.com")
    assert known.status == unknown.status == 302
    assert known.header("location") == unknown.header("location")
    assert len(outbox.sent) == 2


async def test_sign_in_callback_sees_the_verification_request_and_may_refuse() -> None:
    seen: list[Any] = []

    def sign_in(user: Any, account: Any, email: Any = None) -> bool:
        seen.append((user["email"], account["provider"], email))
        return False

    client, outbox, adapter = setup()
    client.config = replace(client.config, callbacks=Callbacks(sign_in=sign_in))
    refused = await request_link(client, "ada@example.com")
    assert refused.header("location") == f"{APP}/auth/error?error=AccessDenied"
    assert seen == [("ada@example.com", "email", {"verification_request": True})]
    assert outbox.sent == []
    assert adapter.tokens == {}


async def test_limit_per_address() -> None:
    client, outbox, _ = setup(limits=SendLimits(per_address=2, per_client=None))
    for _ in range(2):
        sent = await request_link(client, "ada@example.com")
        assert str(sent.header("location")).endswith("type=email")
    third = await request_link(client, "ADA@example.com")
    assert third.status == 429  # TooManyAttempts: see tests/test_throttle.py
    assert len(outbox.sent) == 2
    other = await request_link(client, "bob@example.com")
    assert str(other.header("location")).endswith("type=email")


async def test_limit_per_client_counts_the_server_address_not_a_forged_header() -> None:
    client, _outbox, _ = setup(limits=SendLimits(per_address=None, per_client=2))
    client.config = replace(client.config, trust_host=False, url=APP)
    for n in range(3):
        answer = await request_link(
            client, f"user{n}@example.com", **{"X-Forwarded-For": f"10.0.0.{n}"}
        )
    assert answer.status == 429  # TooManyAttempts: see tests/test_throttle.py


async def test_twenty_parallel_clicks_sign_in_once() -> None:
    client, outbox, adapter = setup()
    await request_link(client, "ada@example.com")
    link = outbox.link
    browsers = [AuthClient(client.config, origin=APP) for _ in range(20)]
    answers = await asyncio.gather(*(follow(b, link) for b in browsers))
    signed_in = [a for a in answers if "error=" not in str(a.header("location"))]
    assert len(signed_in) == 1
    assert len(adapter.sessions) == 1
    assert len(adapter.users) == 1


async def test_custom_new_user_page() -> None:
    client, outbox, _ = setup()
    client.config = replace(client.config, pages=Pages(new_user="/welcome/new"))
    await request_link(client, "ada@example.com")
    done = await follow(client, outbox.link)
    assert done.header("location") == f"/welcome/new?callbackUrl={WELCOME_QUOTED}"


@pytest.mark.parametrize("strategy", ["database", "jwt"])
async def test_without_a_new_user_page_new_users_go_straight_to_the_callback(
    strategy: str,
) -> None:
    """``Pages(new_user=False)``: as Auth.js without ``pages.newUser``, the sign-in that
    creates the user ends on the callback URL, signed in; a returning user too."""
    client, outbox, adapter = setup(strategy)
    client.config = replace(client.config, pages=Pages(new_user=False))
    await request_link(client, "ada@example.com")
    done = await follow(client, outbox.link)
    assert done.header("location") == WELCOME
    assert len(adapter.users) == 1
    session = (await client.get("session")).data()
    assert session["user"]["email"] == "ada@example.com"
    await request_link(client, "ada@example.com")
    assert (await follow(client, outbox.link)).header("location") == WELCOME


async def test_a_link_stored_by_auth_js_with_rotated_secrets_still_works() -> None:
    """Auth.js hashes with its secrets joined by commas; authui accepts that form too."""
    adapter = MemoryAdapter()
    client, _, _ = setup(adapter=adapter)
    client.config = replace(client.config, secret=["new-secret-0123456789abcdef0123", SECRET])
    joined = f"new-secret-0123456789abcdef0123,{SECRET}"
    stored = hashlib.sha256(("t" * 64 + joined).encode()).hexdigest()
    expires = datetime.now(UTC) + timedelta(hours=1)
    await adapter.create_verification_token(
        VerificationToken(identifier="ada@example.com", token=stored, expires=expires)
    )
    link = urlencode({"callbackUrl": WELCOME, "token": "t" * 64, "email": "ada@example.com"})
    done = await follow(client, f"{APP}/auth/callback/email?{link}")
    assert done.header("location") == WELCOME_NEW


async def test_behind_a_trusted_proxy_the_client_is_the_last_forwarded_address() -> None:
    client, outbox, _ = setup(limits=SendLimits(per_address=None, per_client=1))
    client.config = replace(client.config, trusted_proxies=1)
    first = await request_link(client, "a@example.com", **{"X-Forwarded-For": "1.1.1.1, 10.0.0.1"})
    assert str(first.header("location")).endswith("type=email")
    # the client may forge the first entry; the proxy's own (last) one still counts
    forged = await request_link(client, "b@example.com", **{"X-Forwarded-For": "2.2.2.2, 10.0.0.1"})
    assert forged.status == 429  # TooManyAttempts: see tests/test_throttle.py
    other = await request_link(client, "c@example.com", **{"X-Forwarded-For": "10.0.0.2"})
    assert str(other.header("location")).endswith("type=email")
    assert len(outbox.sent) == 2


async def test_the_app_can_override_the_email_templates(tmp_path: Path) -> None:
    emails = tmp_path / "authui" / "emails"
    emails.mkdir(parents=True)
    (emails / "signin.subject.txt").write_text("Your Acme login link")
    (emails / "signin.txt").write_text("Hello! {{ url }}")
    client, outbox, _ = setup()
    client.config = replace(client.config, theme=Theme(template_dirs=[str(tmp_path)]))
    await request_link(client, "ada@example.com")
    [message] = outbox.sent
    assert message.subject == "Your Acme login link"
    assert message.text == f"Hello! {message.url}"
    assert "Sign in to" in message.html  # not overridden: the pack's
