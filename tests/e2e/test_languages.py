"""The pages and emails in other languages, in Chromium: German, Japanese and Arabic
(right to left).

- The sign-in page speaks the language the browser prefers (its ``Accept-Language``, a
  regional tag such as ``ar-EG``), or the one chosen in the page's language menu, which is
  then kept (a reload without ``?lang`` still speaks it): ``<html lang dir>``, the title,
  the heading, the buttons', labels' and links' names are the catalogue's translations
  (read through ``authui.i18n``, not copied here), and none of authui's English is left.
- In Arabic and Hebrew the sign-in page is laid out right to left in every shipped pack, on
  a desktop and a phone: measured in the browser (``language_support.Layout``), and compared with
  the German page (the card, the language menu and its open list are where the German page
  has them, read from the other side).
- The sign-in email asked for on a page in a language is written in it (subject, plain
  text, HTML with its ``<html lang dir>``; every text centred, laid out in the language's
  direction).
- axe-core finds no serious violation on the sign-in page in the three languages, in every
  pack, nor in the emails.
- The gallery: ``docs/assets/gallery/<pack>-signin-<lang>-light.png`` (the sign-in page,
  900 wide, whole) and ``email-signin-<lang>.png`` (the email as a browser shows its HTML,
  the site's address shown as the demo's usual ``localhost:5000``); ``docs/gallery.md``'s
  "Languages" section shows them.

The demo runs here on a server of this module's, with the gallery's OAuth buttons and its
links sent through an SMTP sink (``email_support``).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from playwright.async_api import expect

from authui.providers.email import DEFAULT_MAX_AGE
from tests.e2e.conftest import SHIPPED_PACKS, choose_theme, demo_env, demo_page, demo_site
from tests.e2e.email_support import SENDER, SmtpSink, read_sign_in_email, smtp_sink
from tests.e2e.language_support import (
    EMAIL_LAYOUT,
    LEFT_TO_RIGHT,
    LOCALES,
    MEASURE,
    RIGHT_TO_LEFT,
    Layout,
    email_layout_problems,
    english_left,
    language,
    mirrored,
    page_texts,
    require_font,
    sideways_arrows,
)
from tests.e2e.test_accessibility import axe_source, failures, run_axe
from tests.e2e.test_gallery import GALLERY, SHOWN_HOST, SIZE, check_png, screenshot

if TYPE_CHECKING:
    from playwright.async_api import Page

    from authui.i18n import Language
    from tests.e2e.conftest import NewContext

__all__ = ["axe_source"]  # the fixture, used by name

BROWSER_LOCALES = {"de": "de-DE", "ja": "ja-JP", "ar": "ar-EG", "he": "he-IL"}
"""What each browser prefers: a regional tag, which finds the configured language."""
SIGN_IN_NAMES: tuple[tuple[Any, str, dict[str, str]], ...] = (
    ("heading", "Sign in", {}),
    ("button", "Continue with {name}", {"name": "GitHub"}),
    ("button", "Email me a sign-in link", {}),
    ("button", "Sign in with a passkey", {}),
    ("button", "New here? Sign up with a passkey", {}),
    ("button", "Sign in", {}),
    ("link", "Forgot your password?", {}),
    ("link", "Create an account", {}),
    ("navigation", "Language", {}),
)
"""The sign-in page's parts, by role and (English) accessible name."""
SIGN_IN_LABELS = ("Email", "Password", "Username")
"""The fields' labels ("Username" is the demo's, translated by its own catalogue)."""
VIEWPORTS = {"desktop": (SIZE, SIZE), "phone": (375, 812)}
LOCALE_COOKIE = "authui.locale"
EXPIRY = (
    "The link works once and expires in {n} hour. If you did not ask for it, you can ignore"
    " this email.",
    "The link works once and expires in {n} hours. If you did not ask for it, you can ignore"
    " this email.",
)
PIN_TEXT = """([found, shown]) => {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    node.nodeValue = node.nodeValue.replaceAll(found, shown);
  }
}"""
"""Show every ``found`` in the page's text as ``shown``."""
ZERO_WIDTH_SPACE = "\u200b"
EMAIL_VIEWPORT = {"width": SIZE, "height": 200}
"""The email's window: as wide as the gallery's pictures, and lower than the email (its
picture is the whole email)."""


# --- the demo ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sink() -> Iterator[SmtpSink]:
    """The SMTP server the demo sends its links through."""
    with smtp_sink() as running:
        yield running


@pytest.fixture(scope="module")
def demo_server(sink: SmtpSink) -> Iterator[str]:
    """The Quart demo with the gallery's OAuth buttons, sending its links through ``sink``."""
    with tempfile.TemporaryDirectory(prefix="authui-demo-languages-") as folder:
        env = demo_env(Path(folder) / "demo.db") | {
            "AUTH_EMAIL_SERVER": sink.url,
            "AUTH_EMAIL_FROM": SENDER,
        }
        with demo_site("quart", env) as url:
            yield url


# --- helpers ----------------------------------------------------------------------------------


async def assert_speaks(page: Page, speech: Language) -> None:
    """The sign-in page is in ``speech``: its ``<html>`` tag, title, parts and texts."""
    html = page.locator("html")
    await expect(html).to_have_attribute("lang", speech.tag)
    await expect(html).to_have_attribute("dir", speech.direction)
    assert await page.title() == speech.gettext("Sign In")
    for role, message, params in SIGN_IN_NAMES:
        name = speech.gettext(message, **params)
        await expect(page.get_by_role(role, name=name, exact=True).first).to_be_visible()
    for label in SIGN_IN_LABELS:
        await expect(page.get_by_label(speech.gettext(label), exact=True).first).to_be_visible()
    menu = page.get_by_role("navigation", name=speech.gettext("Language"))
    assert " ".join((await menu.locator("summary").inner_text()).split()) == speech.name
    left = english_left(await page_texts(page), speech)
    assert not left, f"authui's English on the {speech.tag} sign-in page: {left}"


async def locale_cookie(page: Page) -> str | None:
    cookies = await page.context.cookies()
    return next((c["value"] for c in cookies if c["name"] == LOCALE_COOKIE), None)


async def open_menu(page: Page) -> None:
    """Open the language menu (a disclosure) and wait for its list."""
    menu = page.locator(".authui-languages")
    await menu.locator("summary").click()
    await expect(menu.locator(".authui-languages-list")).to_be_visible()


async def ask_for_link(page: Page, speech: Language, address: str) -> None:
    """Ask for a sign-in link to ``address`` on the sign-in page, which speaks ``speech``,
    and meet the "Check your email" page in it."""
    await page.goto("/auth/signin")
    form = page.locator("form#authui-form-email")
    await form.get_by_label(speech.gettext("Email"), exact=True).fill(address)
    button = form.get_by_role("button", name=speech.gettext("Email me a sign-in link"))
    await button.click()
    await page.wait_for_url(lambda url: urlsplit(url).path == "/auth/verify-request")
    heading = page.get_by_role("heading", name=speech.gettext("Check your email"), exact=True)
    await expect(heading).to_be_visible()


# --- choosing the language --------------------------------------------------------------------


@pytest.mark.parametrize("tag", LOCALES)
async def test_the_browser_language_chooses_the_sign_in_page_language(
    new_demo_context: NewContext, tag: str
) -> None:
    page = await demo_page(new_demo_context, locale=BROWSER_LOCALES[tag])
    await page.goto("/auth/signin")
    await assert_speaks(page, language(tag))
    assert await locale_cookie(page) is None, "a language nobody chose was kept"


@pytest.mark.parametrize("tag", LOCALES)
async def test_the_language_menu_chooses_a_language_that_is_kept(
    new_demo_context: NewContext, demo_server: str, tag: str
) -> None:
    speech = language(tag)
    page = await demo_page(new_demo_context, locale="en-US")
    await page.goto("/auth/signin?" + urlencode({"callbackUrl": "/profile"}))
    await expect(page.locator("html")).to_have_attribute("lang", "en")

    await open_menu(page)
    menu = page.get_by_role("navigation", name="Language")
    await menu.get_by_role("link", name=speech.name, exact=True).click()
    await page.wait_for_url(lambda url: "lang=" in url)
    address = urlsplit(page.url)
    assert (address.path, parse_qs(address.query)) == (
        "/auth/signin",
        {"callbackUrl": ["/profile"], "lang": [tag]},
    ), "the menu's link lost the page's query"
    await assert_speaks(page, speech)
    assert await locale_cookie(page) == tag

    await page.goto("/auth/signin")
    await assert_speaks(page, speech)


# --- right to left ----------------------------------------------------------------------------


@pytest.mark.parametrize("rtl_tag", RIGHT_TO_LEFT)
@pytest.mark.parametrize("pack", SHIPPED_PACKS)
async def test_a_right_to_left_sign_in_page_is_laid_out_mirrored(
    new_demo_context: NewContext, pack: str, rtl_tag: str
) -> None:
    """Arabic and Hebrew, measured on a desktop and a phone (the window narrowed), with the
    language menu open (its list must fit in the window too)."""
    layouts: dict[tuple[str, str], Layout] = {}
    for tag in (LEFT_TO_RIGHT, rtl_tag):
        page = await demo_page(new_demo_context, locale=BROWSER_LOCALES[tag])
        await choose_theme(page, pack, "light", "/auth/signin")
        await open_menu(page)
        for viewport, (width, height) in VIEWPORTS.items():
            await page.set_viewport_size({"width": width, "height": height})
            layout = Layout(language(tag).direction == "rtl", await page.evaluate(MEASURE))
            problems = layout.problems()
            assert not problems, f"the {tag} sign-in page, {pack} pack, {viewport}: {problems}"
            layouts[tag, viewport] = layout

    for viewport in VIEWPORTS:
        ltr, rtl = layouts[LEFT_TO_RIGHT, viewport], layouts[rtl_tag, viewport]
        assert rtl.rtl
        assert not ltr.rtl
        arrows = sideways_arrows(rtl)
        assert not arrows or arrows != sideways_arrows(ltr), f"the menu's arrows stay: {arrows}"
        for part in ("card", "menu", "list"):
            assert ltr.measured[part] is not None, f"no {part} on the {LEFT_TO_RIGHT} page"
            seen = (ltr.span(ltr.measured[part]), rtl.span(rtl.measured[part]))
            assert mirrored(*seen), f"the {part} is not mirrored ({pack}, {viewport}): {seen}"


# --- the gallery and axe ----------------------------------------------------------------------


@pytest.mark.parametrize("tag", LOCALES)
@pytest.mark.parametrize("pack", SHIPPED_PACKS)
async def test_sign_in_page_pictures_and_accessibility(
    new_demo_context: NewContext, axe_source: str, pack: str, tag: str
) -> None:
    require_font(tag)
    started = time.time()
    page = await demo_page(
        new_demo_context,
        locale=BROWSER_LOCALES[tag],
        viewport={"width": SIZE, "height": SIZE},
        device_scale_factor=1,
        color_scheme="light",
        reduced_motion="reduce",
    )
    await choose_theme(page, pack, "light", "/auth/signin")
    await expect(page.locator("html")).to_have_attribute("lang", tag)
    target = GALLERY / f"{pack}-signin-{tag}-light.png"
    height = max(SIZE, await page.evaluate("document.documentElement.scrollHeight"))
    await screenshot(page, target, full_page=True)
    check_png(target, started - 1, (SIZE, height))

    problems = failures(f"/auth/signin ({tag})", await run_axe(page, axe_source))
    assert not problems, (
        f"axe-core found serious or critical violations in the {pack} pack:\n" + "\n".join(problems)
    )


# --- the email --------------------------------------------------------------------------------


@pytest.mark.parametrize("tag", LOCALES)
async def test_the_sign_in_email_is_in_the_page_language(
    new_demo_context: NewContext, demo_server: str, sink: SmtpSink, axe_source: str, tag: str
) -> None:
    require_font(tag)
    started = time.time()
    speech = language(tag)
    address = f"reader.{tag}@example.com"
    page = await demo_page(new_demo_context, locale=BROWSER_LOCALES[tag])
    await ask_for_link(page, speech, address)

    received = await sink.mailbox.wait_for(address)
    sent = read_sign_in_email(received)
    host = urlsplit(demo_server).netloc
    greeting = speech.gettext("Sign in to {host}", host=host)
    assert sent.subject == greeting
    assert received.message["Content-Language"] == tag
    lines = [line for line in sent.text.splitlines() if line.strip()]
    assert lines[0] == greeting
    assert speech.ngettext(*EXPIRY, DEFAULT_MAX_AGE // 3600) in lines
    left = english_left([sent.subject, *lines], speech)
    assert not left, f"authui's English in the {tag} email's text: {left}"

    html = received.message.get_body(("html",))
    assert html is not None
    letter = await demo_page(
        new_demo_context, viewport=EMAIL_VIEWPORT, device_scale_factor=1, reduced_motion="reduce"
    )
    await letter.set_content(html.get_content())
    root = letter.locator("html")
    await expect(root).to_have_attribute("lang", speech.tag)
    await expect(root).to_have_attribute("dir", speech.direction)
    await expect(letter.locator("body")).to_have_attribute("dir", speech.direction)
    assert await letter.title() == greeting
    button = letter.get_by_role("link", name=speech.gettext("Sign in"), exact=True)
    await expect(button).to_have_attribute("href", sent.link)
    unlinked_host = host.replace(".", ZERO_WIDTH_SPACE + ".")
    shown_greeting = speech.gettext("Sign in to {host}", host=unlinked_host)
    await expect(letter.get_by_text(shown_greeting, exact=True)).to_be_visible()
    left = english_left(await page_texts(letter), speech)
    assert not left, f"authui's English in the {tag} email's HTML: {left}"
    problems = email_layout_problems(await letter.evaluate(EMAIL_LAYOUT), speech)
    assert not problems, f"the {tag} email: {problems}"

    await letter.evaluate(PIN_TEXT, [unlinked_host, SHOWN_HOST])
    target = GALLERY / f"email-signin-{tag}.png"
    height = await letter.evaluate("document.documentElement.scrollHeight")
    await screenshot(letter, target, full_page=True)
    check_png(target, started - 1, (SIZE, max(EMAIL_VIEWPORT["height"], height)))

    problems = failures(f"the {tag} sign-in email", await run_axe(letter, axe_source))
    assert not problems, "axe-core found serious or critical violations:\n" + "\n".join(problems)
