"""A site with the account center, its users, and what a test does to them: sign in, make
the sign-in old, read the pages as a browser or as an API client.

The site (``site``) has a credentials provider that checks the store's users (password
``PASSWORD``), an email provider whose messages go to an ``Outbox`` (or, with
``email_server``, to a real SMTP server), a passkey provider, and records every event it
emits. Its users are ``ada`` and ``bob``; ``site.client("ada")`` is a browser signed in
as Ada with credentials.

Old sign-ins are made the way an old session looks, not by waiting (``make_old``,
``aged``): a JWT session's token is encoded again with an old ``auth_time`` (the server's
own secret and cookie name, its other claims kept), a database session's details row is
saved again with an old ``auth_time``.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import html
import json
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from typing import Any

from authui import (
    AccountOptions,
    AuthConfig,
    Credentials,
    Events,
    Experimental,
    SessionOptions,
)
from authui.adapters.account import SecurityEvent
from authui.adapters.base import AdapterAccount, AdapterUser, user_record
from authui.adapters.memory import MemoryAdapter
from authui.http import Response
from authui.jwt import decode, encode
from authui.mail.message import VerificationEmail
from authui.providers.email import EmailProvider
from authui.providers.nodemailer import Email
from authui.providers.oauth import OIDC, OAuth2, OAuthProvider
from authui.providers.webauthn import Passkey
from authui.testing import AuthClient
from authui.urls import with_query
from tests.conftest import SECRET, make_config
from tests.peers.oidc_provider import log_in
from tests.soft_authenticator import SoftAuthenticator

APP = "http://localhost:3000"
PAGE = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
"""What a browser sends when it opens a page or posts a form."""
JSON = {"accept": "application/json"}
"""What an API client sends."""
HTMX = {**PAGE, "hx-request": "true"}
"""What htmx sends for a form of an account page."""
PASSWORD = "correct horse battery staple"
SESSION_COOKIE = "authjs.session-token"
LONG_AGO = timedelta(hours=2)
"""How old an old sign-in is (the step-up window is 10 minutes)."""


@dataclass
class Browser(AuthClient):
    """An ``AuthClient`` that sends a ``User-Agent`` (and, behind a proxy, the
    ``X-Forwarded-For`` it adds) with every request, as a browser does."""

    user_agent: str | None = None
    forwarded_for: str | None = None

    async def request(
        self, method: str, path: str, *, headers: Mapping[str, str] | None = None, **kwargs: Any
    ) -> Response:
        sent = {"user-agent": self.user_agent, "x-forwarded-for": self.forwarded_for}
        all_headers = {k: v for k, v in sent.items() if v is not None} | dict(headers or {})
        return await super().request(method, path, headers=all_headers, **kwargs)


class Outbox:
    """An email transport that keeps what it is given."""

    def __init__(self) -> None:
        self.sent: list[VerificationEmail] = []

    async def __call__(self, message: VerificationEmail, provider: EmailProvider) -> None:
        self.sent.append(message)

    def to(self, address: str) -> list[VerificationEmail]:
        return [m for m in self.sent if m.to == address]


@dataclass
class Site:
    """A configured site, its store and what it emitted."""

    config: AuthConfig
    store: Any
    outbox: Outbox
    events: list[tuple[str, dict[str, Any]]]
    users: dict[str, AdapterUser] = field(default_factory=dict)

    def browser(self, **settings: Any) -> Browser:
        """A browser with no cookies yet."""
        return Browser(self.config, origin=APP, **settings)

    async def client(self, name: str, **settings: Any) -> Browser:
        """A browser signed in as ``name`` with credentials, just now."""
        browser = self.browser(**settings)
        answer = await sign_in(browser, self.users[name].email or "")
        assert answer.status == 302, answer.text
        assert "error" not in str(answer.header("location")), answer.header("location")
        return browser

    @property
    def strategy(self) -> str:
        return self.config.session.strategy or "database"

    def emitted(self, name: str) -> list[dict[str, Any]]:
        return [params for event, params in self.events if event == name]

    def activity(self) -> list[SecurityEvent]:
        """The ``activity`` events emitted, oldest first."""
        return [params["event"] for params in self.emitted("activity")]

    async def user(self, name: str) -> AdapterUser | None:
        """The user ``name`` as the store has it now."""
        found: AdapterUser | None = await self.store.get_user(self.users[name].id)
        return found


def recorder(events: list[tuple[str, dict[str, Any]]]) -> Events:
    """Events that append ``(name, params)`` to ``events``."""

    def keep(name: str) -> Any:
        async def emitted(**params: Any) -> None:
            events.append((name, params))

        return emitted

    names = [f.name for f in dataclasses.fields(Events)]
    return Events(**{name: keep(name) for name in names})


def credentials_of(store: Any) -> Credentials:
    """Email and password, checked against the store's users (every one has
    ``PASSWORD``)."""

    async def authorize(values: Mapping[str, Any], request: Any) -> dict[str, Any] | None:
        email = str(values.get("email") or "").strip().lower()
        user: AdapterUser | None = await store.get_user_by_email(email) if email else None
        if user is None or values.get("password") != PASSWORD:
            return None
        return user_record(user)

    return Credentials(
        credentials={
            "email": {"label": "Email", "type": "email", "autocomplete": "username"},
            "password": {"label": "Password", "type": "password"},
        },
        authorize=authorize,
    )


async def site(
    strategy: str = "database",
    *,
    store: Any = None,
    account: AccountOptions | None = None,
    email_server: str | None = None,
    mail: bool = True,
    oauth: list[OAuthProvider] | None = None,
    passkeys: bool = True,
    **config: Any,
) -> Site:
    """A site with Ada and Bob in ``store`` (a new ``MemoryAdapter`` by default). Its
    email provider sends to an ``Outbox``, or to ``email_server`` (an SMTP URL); without
    ``mail`` it has none. ``config`` adds to the ``AuthConfig``; a ``session`` there
    replaces ``SessionOptions(strategy=strategy)``."""
    store = store if store is not None else MemoryAdapter()
    outbox = Outbox()
    sender = "Acme <account@acme.example>"
    providers: list[Any] = [credentials_of(store), *(oauth or [])]
    if email_server:
        providers.append(Email(server=email_server, sender=sender))
    elif mail:
        providers.append(EmailProvider(transport=outbox, sender=sender))
    if passkeys:
        providers.append(Passkey())
    events: list[tuple[str, dict[str, Any]]] = []
    made = make_config(
        providers=providers,
        adapter=store,
        session=config.pop("session", None) or SessionOptions(strategy=strategy),  # type: ignore[arg-type]
        experimental=Experimental(enable_webauthn=True),
        events=recorder(events),
        account=account or AccountOptions(),
        **config,
    )
    here = Site(made, store, outbox, events)
    for name in ("ada", "bob"):
        user = AdapterUser(
            id=str(uuid.uuid4()), email=f"{name}@example.com", name=name.capitalize()
        )
        here.users[name] = await store.create_user(user)
    return here


async def sign_in(browser: AuthClient, email: str, password: str = PASSWORD) -> Response:
    """A credentials sign-in, as the sign-in page's form posts it."""
    return await browser.sign_in_with_credentials(
        email=email, password=password, callbackUrl=f"{APP}/home"
    )


async def post(
    browser: AuthClient,
    page: str,
    form: Mapping[str, str],
    *,
    headers: Mapping[str, str] = PAGE,
    csrf: bool = True,
) -> Response:
    """A form of an account page (``page``: ``"sessions"`` …), posted as a browser does,
    with the CSRF token unless ``csrf`` is false."""
    body = {"csrfToken": await browser.csrf_token(), **form} if csrf else dict(form)
    return await browser.post(f"account/{page}".rstrip("/"), form=body, headers=headers)


async def post_json(browser: AuthClient, page: str, body: Mapping[str, str]) -> Response:
    """The same as an API client sends it: JSON, with the CSRF token."""
    data = {"csrfToken": await browser.csrf_token(), **body}
    return await browser.post(f"account/{page}".rstrip("/"), json_body=data, headers=JSON)


async def read(browser: AuthClient, page: str) -> Any:
    """A page's data, as an API client reads it (fails unless it answers 200)."""
    answer = await browser.get(f"account/{page}".rstrip("/"), headers=JSON)
    assert answer.status == 200, (answer.status, answer.text)
    return answer.data()


async def session_of(browser: AuthClient) -> Any:
    """What ``/auth/session`` says for ``browser``."""
    return (await browser.get("session")).data()


def account_url(page: str, **query: str) -> str:
    """The absolute URL of an account page."""
    url = f"{APP}/auth/account/{page}".rstrip("/")
    return with_query(url, query) if query else url


def token_of(browser: AuthClient) -> dict[str, Any]:
    """The claims of a browser's JWT session."""
    claims = decode(token=browser.cookies[SESSION_COOKIE], secret=SECRET, salt=SESSION_COOKIE)
    assert claims is not None
    return claims


async def aged(here: Site, token: str, ago: timedelta = LONG_AGO) -> str:
    """The session cookie ``token`` with its sign-in ``ago`` old: a JWT encoded anew with
    an old ``auth_time`` (its other claims kept), or the same database session token, whose
    details row is saved again with an old ``auth_time``."""
    long_ago = datetime.now(UTC) - ago
    if here.strategy == "jwt":
        claims = decode(token=token, secret=SECRET, salt=SESSION_COOKIE)
        assert claims is not None
        kept = {k: v for k, v in claims.items() if k not in ("iat", "exp", "jti")}
        kept["auth_time"] = int(long_ago.timestamp())
        return encode(token=kept, secret=SECRET, salt=SESSION_COOKIE)
    details = await here.store.get_session_details(token)
    assert details is not None
    await here.store.save_session_details(dataclasses.replace(details, auth_time=long_ago))
    return token


async def make_old(here: Site, browser: AuthClient, ago: timedelta = LONG_AGO) -> None:
    """Make the browser's sign-in ``ago`` old (see ``aged``)."""
    browser.cookies[SESSION_COOKIE] = await aged(here, browser.cookies[SESSION_COOKIE], ago)


@dataclass
class Form:
    """A form of a page: where it posts, and its hidden fields."""

    action: str
    fields: dict[str, str]


class _Forms(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.forms: list[Form] = []
        self._open: Form | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "form" and found.get("method") == "post":
            self._open = Form(str(found.get("action")), {})
            self.forms.append(self._open)
        elif tag == "input" and found.get("type") == "hidden" and self._open is not None:
            self._open.fields[str(found.get("name"))] = found.get("value") or ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._open = None


def forms_of(page: Response) -> list[Form]:
    """The ``method="post"`` forms of a page, in order."""
    parser = _Forms()
    parser.feed(page.text)
    return parser.forms


def form_for(page: Response, intent: str) -> Form:
    """The one form of an account page with ``intent``."""
    [form] = [f for f in forms_of(page) if f.fields.get("intent") == intent]
    return form


async def submit(browser: AuthClient, form: Form, **values: str) -> Response:
    """Post ``form`` as a browser does when its button is pressed, with ``values`` typed
    into its visible fields."""
    assert form.action.startswith(f"{APP}/auth/"), form.action
    path = form.action.removeprefix(f"{APP}/auth/")
    return await browser.post(path, form={**form.fields, **values}, headers=PAGE)


async def add_passkey(browser: AuthClient, key: SoftAuthenticator | None = None) -> Response:
    """The signed-in browser adds a passkey (``key``, a new one by default), as the
    passkeys page's button does; the answer to the ceremony's last step."""
    asked = await browser.get("webauthn-options/passkey?action=register")
    assert asked.status == 200, asked.text
    key = key or SoftAuthenticator(APP)
    form = {
        "csrfToken": await browser.csrf_token(),
        "action": "register",
        "data": json.dumps(key.register(asked.data()["options"])),
        "callbackUrl": account_url("passkeys"),
    }
    return await browser.post("callback/passkey", form=form)


async def passkey_sign_in(browser: AuthClient, key: SoftAuthenticator) -> Response:
    """A sign-in with the passkey ``key``."""
    asked = await browser.get("webauthn-options/passkey?action=authenticate")
    assert asked.status == 200, asked.text
    form = {
        "csrfToken": await browser.csrf_token(),
        "action": "authenticate",
        "data": json.dumps(key.authenticate(asked.data()["options"])),
        "callbackUrl": f"{APP}/home",
    }
    return await browser.post("callback/passkey", form=form)


# Linked accounts, and what the store keeps ----------------------------------------------

ACME = OAuth2(
    id="acme",
    name="Acme",
    authorization="https://acme.example/authorize",
    token="https://acme.example/token",
    userinfo="https://acme.example/me",
    client_id="acme-app",
    client_secret="acme-secret",
)
"""An OAuth provider that is never reached: its accounts are linked in the store, and
it has no revocation endpoint."""

KEPT = (  # what a MemoryAdapter keeps of its users
    "users",
    "accounts",
    "sessions",
    "tokens",
    "authenticators",
    "session_details",
    "session_versions",
    "passkey_details",
    "security_events",
    "passwords",
    "mfa",
    "recovery_codes",
    "trusted_browsers",
)


def contents(store: MemoryAdapter) -> dict[str, Any]:
    """What the store keeps of its users (not its rate-limit counts or challenges)."""
    return copy.deepcopy({name: getattr(store, name) for name in KEPT})


def text_of(page: Response) -> str:
    """A page's text, entities decoded (``it's``, not ``it&#39;s``)."""
    return html.unescape(page.text)


def alerts(page: Response) -> list[str]:
    """The texts of the alerts of an account page's card (errors, notices, "not
    available")."""
    found = re.findall(r'class="authui-alert [^"]*" role="[a-z]+">(.*?)</div>', page.text, re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", f)).strip() for f in found]


async def linked(here: Site, name: str, provider: str = "acme") -> AdapterAccount:
    """An account at ``provider`` linked to the user ``name`` in the store."""
    account = AdapterAccount(
        user_id=here.users[name].id,
        type="oauth",
        provider=provider,
        provider_account_id=f"{name}-at-{provider}",
    )
    await here.store.link_account(account)
    return account


async def passkey_id(browser: AuthClient) -> str:
    """The browser's user adds a passkey; its id as the passkeys page names it."""
    added = await add_passkey(browser)
    assert added.header("location") == account_url("passkeys")
    passkeys = (await read(browser, "passkeys"))["passkeys"]
    return str(passkeys[-1]["id"])


async def handle_of(browser: AuthClient) -> str:
    """The handle of the browser's own session, from its sessions page."""
    [own] = [s for s in (await read(browser, "sessions"))["sessions"] if s["current"]]
    return str(own["handle"])


# The OpenID provider (``conftest.op``) ----------------------------------------------------

OP_CLIENT, OP_SECRET = "account-center", "account-center-secret-0123456789"
OP_CALLBACK = f"{APP}/auth/callback/op"


def op_provider(issuer: str, **settings: Any) -> OAuthProvider:
    """The site's provider ``op``: the real provider at ``issuer``, found by discovery."""
    return OIDC(
        id="op", name="OP", issuer=issuer, client_id=OP_CLIENT, client_secret=OP_SECRET, **settings
    )


async def oauth_sign_in(
    browser: AuthClient, login: str, callback_url: str = f"{APP}/home"
) -> Response:
    """Sign in (or link, when signed in) at ``op`` as ``login``: the sign-in form's post,
    the provider's login and consent pages, and the callback, as a browser goes through
    them; the answer to the callback."""
    form = {"csrfToken": await browser.csrf_token(), "callbackUrl": callback_url}
    started = await browser.post("signin/op", form=form)
    assert started.status == 302, started.text
    back = await asyncio.to_thread(log_in, str(started.header("location")), OP_CALLBACK, login)
    return await browser.get(back.removeprefix(f"{APP}/auth/"), headers=PAGE)
