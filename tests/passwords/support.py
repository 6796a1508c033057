"""A site with password accounts (``authui.Password``), and what a test does to it: sign up,
follow the emailed links, sign in, read the forms' errors and what the store keeps.

The site (``password_site``) has the password provider (cheap Argon2 parameters unless a
test asks for others), an email provider whose messages go to an ``Outbox`` (the
password pages' links and notices go out through it), a passkey provider, and, when asked,
a plain credentials provider (``tests.account.support.credentials_of``: any user of the
store with ``tests.account.support.PASSWORD``). Every event it emits is recorded.
``tests.mfa`` uses the same site for second factors.
"""

from __future__ import annotations

import dataclasses
import html
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from authui import AuthConfig, Experimental, SessionOptions
from authui.adapters.base import AdapterUser
from authui.adapters.factors import PasswordRecord
from authui.adapters.memory import MemoryAdapter
from authui.dates import now
from authui.http import Response
from authui.jwt import decode, encode
from authui.mail.message import VerificationEmail
from authui.passwords.hashing import Argon2, hash_password
from authui.providers.email import EmailProvider
from authui.providers.password import Password
from authui.providers.webauthn import Passkey
from authui.testing import AuthClient
from tests.account.support import (
    APP,
    LONG_AGO,
    PAGE,
    SESSION_COOKIE,
    Browser,
    Outbox,
    credentials_of,
    forms_of,
    recorder,
    submit,
    token_of,
)
from tests.conftest import SECRET, make_config

CHEAP = Argon2(memory_cost=1024, time_cost=1, parallelism=1)
"""Argon2 parameters that cost next to nothing: every test but those about the defaults
and rehashing."""
STRONG = "tulip-orbit-canyon-41"
"""A password the default rules accept."""
NEWER = "lantern-quarry-mosaic-7"
"""Another one."""
HOME = f"{APP}/home"
"""Where the tests' sign-ins go back to."""
CREDENTIALS_SIGNIN = f"{APP}/auth/signin?error=CredentialsSignin&code=credentials"
"""The one answer of every refused password sign-in."""
MFA_PAGE = f"{APP}/auth/mfa"


@dataclass
class PasswordSite:
    """A configured site, its store, its outbox and what it emitted."""

    config: AuthConfig
    store: Any
    outbox: Outbox
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    @property
    def strategy(self) -> str:
        return self.config.session.strategy or "database"

    def browser(self, **settings: Any) -> Browser:
        """A browser with no cookies yet."""
        return Browser(self.config, origin=APP, **settings)

    async def add_user(
        self,
        email: str,
        password: str | None = STRONG,
        *,
        verified: bool = True,
        name: str | None = None,
        hashing: Argon2 = CHEAP,
    ) -> AdapterUser:
        """A user in the store (confirmed unless ``verified`` is false), with
        ``password`` hashed with ``hashing`` (none for ``None``)."""
        user = AdapterUser(
            id=str(uuid.uuid4()), email=email, name=name, email_verified=now() if verified else None
        )
        stored: AdapterUser = await self.store.create_user(user)
        if password is not None:
            hashed = await hash_password(hashing, password)
            await self.store.set_password(
                PasswordRecord(user_id=stored.id, hash=hashed, updated=now())
            )
        return stored

    async def signed_in(self, email: str, password: str = STRONG, **settings: Any) -> Browser:
        """A new browser, signed in with ``email`` and ``password`` just now."""
        browser = self.browser(**settings)
        answer = await password_sign_in(browser, email, password)
        assert answer.header("location") == HOME, (answer.status, answer.header("location"))
        return browser

    async def hash_of(self, user_id: str) -> str | None:
        """The user's stored password hash."""
        record: PasswordRecord | None = await self.store.get_password(user_id)
        return record.hash if record else None

    async def user_by_email(self, email: str) -> AdapterUser | None:
        found: AdapterUser | None = await self.store.get_user_by_email(email)
        return found

    async def activity(self, user_id: str) -> list[str]:
        """The kinds of the user's security events, newest first, as the store keeps them."""
        return [e.kind for e in await self.store.list_security_events(user_id)]

    def emitted(self, name: str) -> list[dict[str, Any]]:
        return [params for event, params in self.events if event == name]

    def mail_to(self, address: str) -> list[VerificationEmail]:
        return self.outbox.to(address)

    async def session_amr(self, browser: AuthClient) -> list[str]:
        """The ``amr`` of the browser's session: its JWT's claim, or its database
        session's details row."""
        if self.strategy == "jwt":
            return list(token_of(browser)["amr"])
        details = await self.store.get_session_details(browser.cookies[SESSION_COOKIE])
        assert details is not None
        return list(details.amr)

    async def has_session(self, browser: AuthClient) -> bool:
        """Whether ``/auth/session`` names a user for the browser."""
        answer = (await browser.get("session")).data()
        return isinstance(answer, dict) and "user" in answer


async def password_site(
    strategy: str = "database",
    *,
    store: Any = None,
    hashing: Argon2 = CHEAP,
    provider: Mapping[str, Any] | None = None,
    credentials: bool = False,
    passkeys: bool = True,
    extra: list[Any] | None = None,
    transport: Any = None,
    **config: Any,
) -> PasswordSite:
    """A site with password accounts on ``store`` (a new ``MemoryAdapter`` by default);
    ``provider`` adds to the ``Password`` provider's options, ``extra`` providers to the
    site's, ``transport`` sends the emails instead of the outbox, ``config`` to the
    ``AuthConfig`` (a ``session`` there replaces ``SessionOptions(strategy=strategy)``)."""
    store = store if store is not None else MemoryAdapter()
    outbox = Outbox()
    providers: list[Any] = [Password(hashing=hashing, **dict(provider or {}))]
    if credentials:
        providers.append(credentials_of(store))
    sender = "Acme <account@acme.example>"
    providers.append(EmailProvider(transport=transport or outbox, sender=sender))
    if passkeys:
        providers.append(Passkey())
    providers += extra or []
    events: list[tuple[str, dict[str, Any]]] = []
    made = make_config(
        providers=providers,
        adapter=store,
        session=config.pop("session", None) or SessionOptions(strategy=strategy),  # type: ignore[arg-type]
        experimental=Experimental(enable_webauthn=True),
        events=recorder(events),
        **config,
    )
    return PasswordSite(made, store, outbox, events)


# Requests ----------------------------------------------------------------------------------


async def form_post(
    browser: AuthClient,
    path: str,
    fields: Mapping[str, str],
    *,
    headers: Mapping[str, str] = PAGE,
    csrf: bool = True,
) -> Response:
    """A form posted to ``<base>/<path>`` as a browser posts it, with the CSRF token unless
    ``csrf`` is false."""
    body = {"csrfToken": await browser.csrf_token(), **fields} if csrf else dict(fields)
    return await browser.post(path, form=body, headers=headers)


async def password_sign_in(
    browser: AuthClient,
    email: str,
    password: str,
    *,
    headers: Mapping[str, str] = PAGE,
    callback_url: str = HOME,
) -> Response:
    """The sign-in page's password form, posted."""
    fields = {"email": email, "password": password, "callbackUrl": callback_url}
    return await form_post(browser, "callback/password", fields, headers=headers)


async def sign_up(
    browser: AuthClient,
    email: str,
    password: str = STRONG,
    name: str = "",
    *,
    headers: Mapping[str, str] = PAGE,
) -> Response:
    """The sign-up form, posted."""
    fields = {"email": email, "password": password, "name": name}
    return await form_post(browser, "password/signup", fields, headers=headers)


def local(url: str | None) -> str:
    """The path under ``<base>/`` of an absolute URL of the site (a link of an email, a
    redirect)."""
    assert url is not None
    url = html.unescape(url)
    prefix = f"{APP}/auth/"
    assert url.startswith(prefix), url
    return url.removeprefix(prefix)


def field_errors(page: Response) -> dict[str, list[str]]:
    """The field errors of an entrance form (sign-up, reset, forgot) by field name."""
    found: dict[str, list[str]] = {}
    for form, name, text in re.findall(
        r'<p class="authui-field-error" id="authui-([a-z]+)-([a-z]+)-error"[^>]*>(.*?)</p>',
        page.text,
        re.S,
    ):
        del form
        found.setdefault(name, []).append(html.unescape(re.sub(r"<[^>]+>", "", text)).strip())
    return found


def hidden(page: Response, name: str) -> str:
    """The value of the page's hidden input ``name``."""
    match = re.search(rf'<input type="hidden" name="{name}" value="([^"]*)"', page.text)
    assert match is not None, f"no hidden {name!r}"
    return html.unescape(match.group(1))


def query_of(url: str) -> dict[str, str]:
    """The query parameters of a URL."""
    from urllib.parse import parse_qsl, urlsplit

    return dict(parse_qsl(urlsplit(html.unescape(url)).query))


def last_link(site: PasswordSite, address: str) -> str:
    """The link of the last email to ``address``."""
    sent = site.mail_to(address)
    assert sent, f"no email to {address}"
    return sent[-1].url


async def make_old(site: PasswordSite, browser: AuthClient, ago: timedelta = LONG_AGO) -> None:
    """Make the browser's sign-in ``ago`` old, the way an old session looks: a JWT encoded
    anew with an old ``auth_time`` (its other claims kept), or the database session's
    details row saved again with one."""
    long_ago = datetime.now(UTC) - ago
    token = browser.cookies[SESSION_COOKIE]
    if site.strategy == "jwt":
        claims = decode(token=token, secret=SECRET, salt=SESSION_COOKIE)
        assert claims is not None
        kept = {k: v for k, v in claims.items() if k not in ("iat", "exp", "jti")}
        kept["auth_time"] = int(long_ago.timestamp())
        browser.cookies[SESSION_COOKIE] = encode(token=kept, secret=SECRET, salt=SESSION_COOKIE)
        return
    details = await site.store.get_session_details(token)
    assert details is not None
    await site.store.save_session_details(dataclasses.replace(details, auth_time=long_ago))


async def email_sign_in(site: PasswordSite, browser: AuthClient, email: str) -> Response:
    """Sign in with a link emailed to ``email``, as a browser does: the answer to the
    link's confirmation."""
    asked = await browser.post(
        "signin/email",
        form={"csrfToken": await browser.csrf_token(), "email": email, "callbackUrl": HOME},
        headers=PAGE,
    )
    assert asked.status == 302, asked.text
    opened = await browser.get(local(site.mail_to(email)[-1].url), headers=PAGE)
    assert opened.status == 200, opened.text
    [confirm] = [f for f in forms_of(opened) if f.action.endswith("/auth/callback/email")]
    done = await submit(browser, confirm)
    assert done.status == 302, done.text
    return done
