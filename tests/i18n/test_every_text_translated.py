"""Every text a person reads on authui's pages and in its emails comes from the message
catalogue: with a pseudo catalogue that brackets every message (``tests/i18n/pseudo``),
the pages and emails show no letters outside brackets but the test's own data (``ALLOWED``:
its users, the OAuth provider's name, the site's address, the browser, dates, codes).

The pages are reached as a browser reaches them, on a site of ``tests.passwords.support``
(password accounts, a credentials form, email links, passkeys, an OAuth provider, the
account center, second factors, two languages for the language menu): each page in its
states (empty, filled, a refused form, a notice), and every email those steps send.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from authui import AccountOptions, Credentials, Theme
from authui.actions.account.outcome import NOTICES
from authui.actions.pages import COMPACT_FROM, SIGNIN_NOTICES
from authui.adapters.base import AdapterAccount
from authui.http import Response
from authui.integrations.buttons import PageRequest, sign_in_button, sign_out_button
from authui.mail.message import VerificationEmail
from authui.options import resolve
from authui.pages import ERROR_PAGES, SIGNIN_ERRORS, UNKNOWN_ERROR_PAGE
from authui.providers.base import Provider
from authui.testing import AuthClient
from tests.account.support import (
    ACME,
    APP,
    HTMX,
    PAGE,
    account_url,
    add_passkey,
    form_for,
    forms_of,
    submit,
)
from tests.i18n.pseudo import (
    OPEN,
    Read,
    html_texts,
    plain_texts,
    untranslated,
    write_pseudo_catalogue,
)
from tests.mfa.support import (
    App,
    Clock,
    challenged,
    enrol,
    recovery_codes,
    start_totp,
    totp_key,
    verify,
)
from tests.passwords.support import (
    NEWER,
    STRONG,
    PasswordSite,
    email_sign_in,
    form_post,
    last_link,
    local,
    make_old,
    password_sign_in,
    password_site,
    sign_up,
)

FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
ANN, BEA, CY, NEW_ADDRESS = "ann@example.com", "bea@example.com", "cy@example.com", "an@x.org"

ALLOWED: tuple[str | re.Pattern[str], ...] = (
    # the test's users and what they type
    "Ann",
    ANN,
    BEA,
    NEW_ADDRESS,
    # the OAuth provider's name; its monogram and Ann's initial (a name's first letter)
    "Acme",
    re.compile(r"^A$"),
    # the site's address, and the links of its emails
    re.compile(re.escape(APP) + r"\S*"),
    "localhost:3000",
    # the test's browser, as the pages name it
    "Firefox",
    "Linux",
    # the language menu: each language's name in itself
    "English",
    "Deutsch",
    # dates, as Babel writes them in English
    re.compile(
        r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{1,2}, \d{4}, "
        r"\d{1,2}:\d{2}\s?(AM|PM) UTC"
    ),
)
"""What may be read outside the catalogue's brackets: the test's own data. A test adds
what it makes on the way (a passkey's name, the TOTP key, recovery codes)."""


@pytest.fixture(scope="module")
def translations(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pseudo catalogue's folder."""
    return write_pseudo_catalogue(tmp_path_factory.mktemp("pseudo"))


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The time of ``authui.mfa.totp``, at the start of a step (as ``tests/mfa``'s)."""
    moved = Clock(1_800_000_001)
    monkeypatch.setattr("authui.mfa.totp.time", moved)
    return moved


@dataclass
class Proof:
    """What the pages and emails read so far showed outside the brackets."""

    allowed: list[str | re.Pattern[str]] = field(default_factory=lambda: list(ALLOWED))
    problems: list[str] = field(default_factory=list)

    def texts(self, name: str, texts: list[Read]) -> None:
        """Read ``texts`` (of the page or email ``name``), some from the catalogue."""
        assert any(OPEN in t.text for t in texts), f"{name}: nothing from the catalogue"
        self.problems += [f"{name}: {p}" for p in untranslated(texts, self.allowed)]

    def page(self, name: str, answer: Response, status: int = 200) -> Response:
        """Read a page, answered with ``status``."""
        assert answer.status == status, (name, answer.status, answer.header("location"))
        self.texts(name, html_texts(answer.text))
        return answer

    def emails(self, site: PasswordSite, name: str, since: int = 0) -> int:
        """Read the emails the site sent after its first ``since`` (subject, text and
        HTML); how many it has sent."""
        sent = site.outbox.sent
        assert len(sent) > since, f"{name}: no email"
        for number, message in enumerate(sent[since:], start=1):
            self.email(f"{name} #{number}", message)
        return len(sent)

    def email(self, name: str, message: VerificationEmail) -> None:
        self.texts(f"{name} (subject)", plain_texts(message.subject))
        self.texts(f"{name} (text)", plain_texts(message.text))
        self.texts(f"{name} (html)", html_texts(message.html or ""))

    def verdict(self) -> str:
        return "text not from the catalogue:\n" + "\n".join(self.problems)


async def site_with(translations: Path, *providers: Provider, **config: Any) -> PasswordSite:
    """A site speaking the pseudo catalogue (and German, for the language menu): password
    accounts, the credentials form, email links, passkeys, an OAuth provider, the account
    center with deletion and new-browser notices, second factors; and ``providers``."""
    return await password_site(
        credentials=True,
        extra=[ACME, *providers],
        translations=translations,
        locales=["en", "de"],
        account=AccountOptions(allow_delete=True, notify_new_browser=True),
        **config,
    )


async def follow(browser: AuthClient, answer: Response) -> Response:
    """The page a redirect leads to, opened as a browser does."""
    assert answer.status in (302, 303), (answer.status, answer.text[:300])
    return await browser.get(local(answer.header("location")), headers=PAGE)


async def account_page(browser: AuthClient, page: str = "") -> Response:
    """An account page (``""``: the overview), opened as a browser does."""
    return await browser.get(f"account/{page}".rstrip("/"), headers=PAGE)


async def until_held(attempt: Callable[[], Awaitable[Response]], limit: int) -> Response:
    """The answer to ``attempt`` once it is refused as one too many (429), when the
    attempts are limited to ``limit`` per window (tried twice as often: the window may
    start anew meanwhile); else its last answer."""
    for _ in range(2 * limit + 1):
        answer = await attempt()
        if answer.status == 429:
            break
    return answer


def error_queries() -> Iterator[str]:
    """The query of the sign-in page for each of its messages (``error``, ``code``)."""
    for key in SIGNIN_ERRORS:
        error, _, code = key.partition(":")
        yield f"error={error}" + (f"&code={code}" if code else "")


@pytest.mark.parametrize("pack", ["default", "terminal"])
async def test_the_entrance_pages(translations: Path, pack: str) -> None:
    site = await site_with(translations, theme=Theme(pack=pack))
    await site.add_user(ANN, name="Ann")
    proof = Proof()
    browser = site.browser(user_agent=FIREFOX)

    proof.page("sign-in", await browser.get("signin", headers=PAGE))
    many = [dataclasses.replace(ACME, id=f"acme{n}") for n in range(COMPACT_FROM)]
    crowded = await site_with(translations, *many, theme=Theme(pack=pack))
    proof.page("sign-in (many providers)", await crowded.browser().get("signin", headers=PAGE))
    for query in error_queries():
        proof.page(f"sign-in ?{query}", await browser.get(f"signin?{query}", headers=PAGE))
    notice = await browser.get("signin?notice=password-reset", headers=PAGE)
    proof.page("sign-in after a reset", notice)
    for error in [*ERROR_PAGES, "Nonsense"]:
        status = ERROR_PAGES.get(error, UNKNOWN_ERROR_PAGE)[0]
        proof.page(f"error {error}", await browser.get(f"error?error={error}"), status)
    proof.page("verify request", await browser.get("verify-request?provider=email&type=email"))
    wrong = await password_sign_in(browser, ANN, NEWER, headers=HTMX)
    proof.page("sign-in refused (htmx)", wrong)
    typo = await form_post(browser, "signin/email", {"email": "ann at example"}, headers=HTMX)
    proof.page("sign-in link refused (htmx)", typo)

    asked = await form_post(browser, "signin/email", {"email": ANN})
    proof.page("verify request after an email", await follow(browser, asked))
    proof.emails(site, "sign-in email")
    opened = proof.page("confirm sign-in", await browser.get(local(last_link(site, ANN))))
    [confirm] = [f for f in forms_of(opened) if f.action.endswith("/auth/callback/email")]
    await submit(browser, confirm)
    proof.page("new user", await browser.get("new-user", headers=PAGE))
    proof.page("new user refused", await form_post(browser, "new-user", {"name": " "}), 422)
    proof.page("sign out", await browser.get("signout", headers=PAGE))

    sent = len(site.outbox.sent)
    await password_sign_in(site.browser(user_agent=FIREFOX), ANN, STRONG)  # new to Ann
    proof.emails(site, "new browser", sent)

    assert not proof.problems, proof.verdict()


async def test_the_password_pages(translations: Path) -> None:
    site = await site_with(translations, provider={"emails_per_address": 2})  # then held
    await site.add_user(ANN, name="Ann")
    proof = Proof()
    browser = site.browser(user_agent=FIREFOX)

    proof.page("sign-up", await browser.get("password/signup", headers=PAGE))
    weak = await sign_up(browser, BEA, "short")
    proof.page("sign-up refused (password)", weak, 422)
    proof.page("sign-up refused (address)", await sign_up(browser, "bea at example"), 422)
    proof.page("sign-up refused (htmx)", await sign_up(browser, BEA, "short", headers=HTMX))
    signed_up = await sign_up(browser, BEA, name="Bea")
    proof.page("sent (sign-up)", await follow(browser, signed_up))
    sent = proof.emails(site, "sign-up confirmation")
    opened = proof.page("verify", await browser.get(local(last_link(site, BEA)), headers=PAGE))
    await sign_up(browser, ANN)
    sent = proof.emails(site, "sign-up with a known address", sent)
    [confirm] = [f for f in forms_of(opened) if f.action.endswith("/auth/password/verify")]
    await submit(browser, confirm)

    stranger = site.browser(user_agent=FIREFOX)
    proof.page("forgot", await stranger.get("password/forgot", headers=PAGE))
    bad = await form_post(stranger, "password/forgot", {"email": "ann at example"})
    proof.page("forgot refused", bad, 422)
    asked = await form_post(stranger, "password/forgot", {"email": ANN})
    proof.page("sent (reset)", await follow(stranger, asked))
    await form_post(stranger, "password/forgot", {"email": CY})  # no account
    proof.emails(site, "reset", sent)
    link = local(site.mail_to(ANN)[-1].url)
    reset = proof.page("reset", await stranger.get(link, headers=PAGE))
    [form] = [f for f in forms_of(reset) if f.action.endswith("/auth/password/reset")]
    proof.page("reset refused", await submit(stranger, form, password="short"), 422)
    done = await submit(stranger, form, password=NEWER)
    proof.page("sign-in after the reset", await follow(stranger, done))
    proof.page("reset link used", await submit(stranger, form, password=STRONG), 403)
    held = await until_held(lambda: form_post(stranger, "password/forgot", {"email": CY}), 2)
    proof.page("forgot refused (too many)", held, 429)

    assert not proof.problems, proof.verdict()


ACCOUNT_PAGES = ("", "profile", "connections", "passkeys", "password", "two-factor", "sessions")


async def test_the_account_center(translations: Path, clock: Clock) -> None:
    site = await site_with(translations)
    ann = await site.add_user(ANN, name="Ann")
    await site.add_user(BEA)
    acme = AdapterAccount(user_id=ann.id, type="oauth", provider="acme", provider_account_id="1")
    await site.store.link_account(acme)
    proof = Proof()
    browser = await site.signed_in(ANN, user_agent=FIREFOX)
    for page in ACCOUNT_PAGES:
        proof.page(f"account/{page} (new)", await account_page(browser, page))
    for notice in NOTICES:
        shown = await browser.get(f"account?notice={notice}", headers=PAGE)
        proof.page(f"account notice {notice}", shown)

    profile = form_for(await account_page(browser, "profile"), "profile")
    refused = await submit(browser, profile, name="Ann", image="ftp://example.com/ann.png")
    proof.page("profile refused", refused, 422)
    proof.page("profile saved", await follow(browser, await submit(browser, profile, name="Ann")))

    passkeys = proof.page("passkeys (one)", await follow(browser, await add_passkey(browser)))
    proof.allowed.append("Laptop")
    renamed = await submit(browser, form_for(passkeys, "rename"), name="Laptop")
    proof.page("passkey renamed", await follow(browser, renamed))

    password = form_for(await account_page(browser, "password"), "save")
    proof.page("password refused", await submit(browser, password, password="short"), 422)
    fields = {"intent": "save", "password": "short"}
    swapped = await form_post(browser, "account/password", fields, headers=HTMX)
    proof.page("password refused (htmx)", swapped)
    changed = await submit(browser, password, password=NEWER)
    proof.page("password changed", await follow(browser, changed))

    setup = await start_totp(browser)
    app = App(totp_key(setup).replace(" ", ""), clock)
    proof.allowed.append(totp_key(setup))
    proof.page("two-factor set-up", setup)
    confirm = form_for(setup, "totp-confirm")
    [guess] = app.wrong_codes()
    proof.page("two-factor code refused", await submit(browser, confirm, code=guess), 422)
    enrolled = await submit(browser, confirm, code=app.code())
    proof.allowed += recovery_codes(enrolled)
    proof.page("two-factor recovery codes", enrolled)
    on = await account_page(browser, "two-factor")
    proof.page("two-factor on", on)
    passkeys_on = await submit(browser, form_for(on, "passkey-on"))
    proof.page("two-factor with passkeys", await follow(browser, passkeys_on))

    clock.tick()
    other = await challenged(site, ANN, NEWER, site.browser(user_agent=FIREFOX))
    proof.page("second step", await other.get("mfa", headers=PAGE))
    proof.page("second step refused", await verify(other, guess), 422)
    for method in ("recovery", "passkey"):
        shown = await other.get(f"mfa?method={method}", headers=PAGE)
        proof.page(f"second step ({method})", shown)
        proof.page(f"second step refused ({method})", await verify(other, guess, method), 422)
    await verify(other, app.code(), trust=True)
    two_factor = await account_page(browser, "two-factor")
    proof.page("two-factor with a trusted browser", two_factor)
    codes = await submit(browser, form_for(two_factor, "recovery-new"))
    proof.allowed += recovery_codes(codes)
    proof.page("two-factor new recovery codes", codes)
    third = await challenged(site, ANN, NEWER, site.browser(user_agent=FIREFOX))
    held = await until_held(lambda: verify(third, guess), site.config.mfa.attempts.count)
    proof.page("second step refused (too many)", held, 429)

    sessions = proof.page("sessions (two)", await account_page(browser, "sessions"))
    ended = await submit(browser, form_for(sessions, "revoke-others"))
    proof.page("sessions ended", await follow(browser, ended))
    connections = await account_page(browser, "connections")
    unlinked = await submit(browser, form_for(connections, "unlink"))
    proof.page("account unlinked", await follow(browser, unlinked))

    email = form_for(await account_page(browser, "profile"), "email")
    proof.page("email change refused", await submit(browser, email, email="an at x"), 422)
    await submit(browser, email, email=BEA)  # Bea's: she is told
    asked = await submit(browser, email, email=NEW_ADDRESS)
    proof.page("email change asked", await follow(browser, asked))
    link = local(last_link(site, NEW_ADDRESS))
    confirmation = proof.page("confirm the new address", await browser.get(link, headers=PAGE))
    [form] = forms_of(confirmation)
    proof.page("address changed", await follow(browser, await submit(browser, form)))
    proof.page("activity", await account_page(browser, "activity"))
    proof.emails(site, "account email")

    await make_old(site, browser)
    for page in ACCOUNT_PAGES:
        proof.page(f"account/{page} (old sign-in)", await account_page(browser, page))
    back = account_url("two-factor")
    step_up = await browser.get(f"account/reauthenticate?callbackUrl={back}", headers=PAGE)
    proof.page("reauthenticate", step_up)

    assert not proof.problems, proof.verdict()


async def test_the_account_center_of_other_accounts(translations: Path, clock: Clock) -> None:
    """A JWT session's sessions page; an account without a password (signed in by an
    emailed link), which sets one and turns two-step verification on and off; the deletion
    of an account."""
    site = await site_with(translations, strategy="jwt")
    await site.add_user(ANN, password=None, name="Ann")
    proof = Proof()
    browser = site.browser(user_agent=FIREFOX)
    await email_sign_in(site, browser, ANN)
    for page in ("", "password", "two-factor", "passkeys", "sessions", "activity"):
        proof.page(f"account/{page} (no password)", await account_page(browser, page))
    ended = await submit(browser, form_for(await account_page(browser, "sessions"), "everywhere"))
    proof.page("sessions ended everywhere", await follow(browser, ended))
    password = form_for(await account_page(browser, "password"), "save")
    proof.page(
        "password set", await follow(browser, await submit(browser, password, password=STRONG))
    )
    await enrol(browser, clock)
    off = await submit(browser, form_for(await account_page(browser, "two-factor"), "off"))
    proof.page("two-factor off", await follow(browser, off))
    removed = await submit(browser, form_for(await account_page(browser, "password"), "remove"))
    proof.page("password removed", await follow(browser, removed))

    delete = proof.page("delete", await account_page(browser, "delete"))
    form = form_for(delete, "delete")
    proof.page("delete refused", await submit(browser, form), 422)
    await make_old(site, browser)
    proof.page("delete (old sign-in)", await account_page(browser, "delete"))
    await make_old(site, browser, timedelta(0))
    deleted = await submit(browser, form, confirm="yes")
    proof.page("account deleted", await follow(browser, deleted))
    proof.emails(site, "account email")

    assert not proof.problems, proof.verdict()


async def test_the_buttons_of_the_apps_pages(translations: Path) -> None:
    """``SignIn()`` and ``SignOut()`` in the app's own pages."""
    options = resolve((await site_with(translations)).config)
    page = PageRequest(url=f"{APP}/home", host="localhost:3000", current="/home")
    proof = Proof()
    for name, snippet in [
        ("sign-in link", sign_in_button(options, page, "token")),
        ("sign-in with Acme", sign_in_button(options, page, "token", provider="acme")),
        ("sign-out", sign_out_button(options, page, "token")),
    ]:
        proof.texts(name, html_texts(str(snippet)))

    assert not proof.problems, proof.verdict()


async def nobody(values: Mapping[str, Any], request: Any) -> None:
    """A credentials form that lets no one in."""


async def test_text_from_outside_the_catalogue_is_found(
    translations: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The proof finds what does not come from the catalogue: a notice written in English
    (not ``N_``-marked), a credentials form whose label and name the app's catalogue does
    not translate."""
    monkeypatch.setitem(SIGNIN_NOTICES, "planted", "Welcome back")
    pin = Credentials(
        id="pin", name="PIN", credentials={"pin": {"label": "Your PIN"}}, authorize=nobody
    )
    site = await site_with(translations, pin)
    proof = Proof()
    proof.page("sign-in", await site.browser().get("signin?notice=planted", headers=PAGE))
    assert proof.problems == [
        "sign-in: text: 'Welcome back'  [left: 'Welcome back']",
        "sign-in: text: 'Your PIN'  [left: 'Your PIN']",
        "sign-in: text: '⟦Sign in with ⟧PIN'  [left: 'PIN']",
    ]


async def test_the_account_pages_of_a_limited_store(
    translations: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page whose store lacks what it shows says so, naming the methods."""
    site = await site_with(translations)
    await site.add_user(ANN, name="Ann")
    browser = await site.signed_in(ANN, user_agent=FIREFOX)
    lacking = {"activity": "list_security_events", "sessions": "list_user_sessions"}
    proof = Proof()
    proof.allowed += lacking.values()
    for page, method in lacking.items():
        monkeypatch.setattr(site.store, method, None)
        proof.page(f"account/{page} (the store cannot)", await account_page(browser, page))

    assert not proof.problems, proof.verdict()
