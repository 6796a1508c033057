"""What the browser tests of the pages' languages read and measure.

The words: a language is authui's shipped catalogue of it under the demo's own
(``authui.i18n``), so a test asks for "Sign in" in Arabic as the pages do, never through
a copy of the translation; ``english_left`` finds the texts that are still one of authui's
English messages (``authui.pot``'s, their placeholders filled with anything) although the
language translates it.

The layout: ``MEASURE`` reads where the parts of a sign-in page sit (their horizontal
extents on the screen, the text's own extent for a text), and ``Layout`` tells from them
whether the page is laid out for its direction: read along the line (from the right on a
right-to-left page), each label starts where its input does, each provider's mark comes
before its name, "Forgot your password?" before "Create an account", the language menu's
first entry before its second, a heading is centred or starts at its start side, nothing
is aligned to a physical side and nothing reaches out of the window. The same checks hold
for a left-to-right page, which is the control; ``mirrored`` compares a part's place on an
Arabic page with its place on a German one.
"""

from __future__ import annotations

import functools
import itertools
import re
import shutil
import string
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from babel.messages.pofile import read_po

from authui.i18n import DOMAIN, Language
from authui.i18n.languages import language_of
from authui.messages import TEMPLATE
from tests.e2e.conftest import ROOT
from tests.i18n.pseudo import html_texts
from tests.peers.availability import peer_missing

if TYPE_CHECKING:
    from playwright.async_api import Page

LOCALES = ("de", "ja", "ar")
"""The languages the tests show: a Latin script, a CJK one and a right-to-left one."""
RIGHT_TO_LEFT = ("ar", "he")
"""The right-to-left languages whose layout is measured."""
LEFT_TO_RIGHT = "de"
"""The left-to-right language a right-to-left page is compared with."""
DEMO_TRANSLATIONS = ROOT / "demo" / "translations"
"""The demo's catalogues (``AuthConfig(translations=...)`` in ``demo/settings.py``)."""
TOLERANCE = 2.0
"""How far (in CSS pixels) two edges may be apart and still count as lined up."""
ENGLISH_WORD = re.compile(r"[A-Za-z]{2}")
"""A message whose own text (outside its placeholders) has no such run is no sign of
English (``{name} ({n})``)."""
FONT_PACKAGES = {"ja": "fonts-ipafont-gothic"}
"""Debian's package of a font for a language the machine may lack one for (DejaVu, which
Chromium brings, writes German and Arabic)."""


def require_font(tag: str) -> None:
    """Skip (fail under CI) when fontconfig knows no font for ``tag``: its pictures would
    show boxes. Without fontconfig's ``fc-list`` to ask, go on."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return
    fonts = subprocess.run(
        [fc_list, f":lang={tag}", "family"], capture_output=True, text=True, check=False
    )
    if not fonts.stdout.strip():
        package = FONT_PACKAGES.get(tag, f"a font for {tag!r}")
        peer_missing(f"no font writes {tag!r} here: apt-get install {package}")


@functools.cache
def language(tag: str) -> Language:
    """``tag`` as the demo speaks it: authui's catalogue under the demo's own (the labels
    of its credentials form)."""
    return language_of(tag, (DEMO_TRANSLATIONS,))


@dataclass(frozen=True, slots=True)
class Message:
    """One of authui's English messages: its id (both forms of a plural one) and the texts
    it can become, its placeholders filled with anything."""

    forms: tuple[str, ...]
    shown: re.Pattern[str]

    def translated_in(self, language: Language) -> bool:
        """Whether ``language`` says it otherwise than English (a German "Passkey" is
        German too)."""
        if len(self.forms) == 1:
            return language.catalogue.gettext(self.forms[0]) != self.forms[0]
        singular, plural = self.forms[:2]
        return any(
            language.catalogue.ngettext(singular, plural, n) != (singular if n == 1 else plural)
            for n in (1, 2)
        )


def _pattern(form: str) -> str | None:
    """The regular expression of the texts ``form`` (its whitespace runs made single
    spaces, as the texts' are) becomes; ``None`` when its own text has no English word."""
    literal, pattern = "", ""
    for text, field, _, _ in string.Formatter().parse(form):
        literal += text
        pattern += re.escape(text)
        if field is not None:
            pattern += ".+?"
    return pattern if ENGLISH_WORD.search(literal) else None


@functools.cache
def english_messages() -> tuple[Message, ...]:
    """authui's messages (``authui.pot``), each with the texts it can show."""
    with TEMPLATE.open("rb") as file:
        catalog = read_po(file, domain=DOMAIN)
    messages = []
    for message in catalog:
        if not message.id:
            continue
        forms = (
            tuple(str(x) for x in message.id)
            if isinstance(message.id, list | tuple)
            else (str(message.id),)
        )
        patterns = [p for p in (_pattern(" ".join(f.split())) for f in forms) if p]
        if patterns:
            messages.append(Message(forms, re.compile(f"(?:{'|'.join(patterns)})", re.DOTALL)))
    return tuple(messages)


def english_left(texts: Iterable[str], language: Language) -> list[str]:
    """The ``texts`` that are one of authui's English messages which ``language``
    translates: ``'Sign in' (authui's 'Sign in')``."""
    found = []
    for text in dict.fromkeys(" ".join(t.split()) for t in texts):
        for message in english_messages():
            if message.shown.fullmatch(text) and message.translated_in(language):
                found.append(f"{text!r} (authui's {message.forms[0]!r})")
                break
    return found


READ_ELEMENTS = """() => [...document.querySelectorAll(
  "title, h1, h2, label, button, a, summary, legend, p, li")].map((e) => e.textContent)"""
"""The whole text of each element a person reads as one (a label, a button, a link …),
which may run across several text nodes."""


async def page_texts(page: Page) -> list[str]:
    """What a person reads on ``page`` as it is now: each text node,
    each readable attribute (placeholders, ``aria-label``, the dividers' ``data-label``,
    the passkey messages …) and each label's, button's, link's … whole text."""
    texts = [read.text for read in html_texts(await page.content())]
    elements: list[str] = await page.evaluate(READ_ELEMENTS)
    return texts + elements


# --- the layout -------------------------------------------------------------------------------

MEASURE = """() => {
  const span = (rect) => [rect.left, rect.right];
  const box = (element) => span(element.getBoundingClientRect());
  const text = (element) => {
    const range = document.createRange();
    range.selectNodeContents(element);
    return span(range.getBoundingClientRect());
  };
  const content = (element) => {
    const [left, right] = box(element);
    const style = getComputedStyle(element);
    return [left + parseFloat(style.borderLeftWidth) + parseFloat(style.paddingLeft),
            right - parseFloat(style.borderRightWidth) - parseFloat(style.paddingRight)];
  };
  const name = (element) => element.tagName.toLowerCase()
    + (element.id ? `#${element.id}` : "")
    + [...element.classList].map((c) => `.${c}`).join("");
  const card = document.querySelector(".authui-card");
  const heading = card.querySelector("h1");
  const summary = document.querySelector(".authui-languages summary");
  const list = document.querySelector(".authui-languages-list");
  const visible = (element) => element.getClientRects().length > 0;
  return {
    width: document.documentElement.clientWidth,
    scrollWidth: document.documentElement.scrollWidth,
    card: box(card),
    outside: [...document.querySelectorAll("body *")].filter((element) => {
      const rect = element.getBoundingClientRect();
      return rect.width > 0
        && (rect.left < -0.5 || rect.right > document.documentElement.clientWidth + 0.5);
    }).map(name),
    directions: Object.fromEntries([["html", document.documentElement], ["card", card],
      ...[...card.querySelectorAll("form")].map((form) => [name(form), form])]
      .map(([key, element]) => [key, getComputedStyle(element).direction])),
    physicallyAligned: [...document.querySelectorAll("body, body *")]
      .filter((e) => /left|right/.test(getComputedStyle(e).textAlign))
      .map((e) => `${name(e)}: text-align ${getComputedStyle(e).textAlign}`),
    heading: {text: text(heading), content: content(heading),
              align: getComputedStyle(heading).textAlign},
    fields: [...card.querySelectorAll(".authui-field")].filter(visible).map((field) => ({
      name: field.querySelector("label").textContent.trim(),
      label: text(field.querySelector("label")),
      input: box(field.querySelector("input")),
    })),
    marks: [...card.querySelectorAll(".authui-provider-button")].filter(visible).map((b) => ({
      name: b.querySelector(".authui-provider-label").textContent.trim(),
      mark: box(b.querySelector(".authui-provider-logo, .authui-provider-monogram")),
      label: text(b.querySelector(".authui-provider-label")),
    })),
    sequences: {
      "the password links": [...card.querySelectorAll(".authui-password-links a")].map(text),
      "the language menu's first entries": list && visible(list)
        ? [...list.querySelectorAll("a")].slice(0, 2).map(text) : [],
    },
    menu: summary ? text(summary) : null,
    marker: summary ? ["::marker", "::before", "::after"]
      .map((pseudo) => getComputedStyle(summary, pseudo).content).join(" ") : "",
    list: list && visible(list) ? box(list) : null,
  };
}"""
"""Where a sign-in page's parts sit, as ``[left, right]`` in CSS pixels of the viewport
(a text's own extent, not its box's), and how it is aligned; the language menu's list
when it is open, and what its summary draws beside its text (the ``content`` of its
``::marker``, ``::before`` and ``::after``: ``normal`` for the browser's disclosure
triangle, which points along the line by itself). ``sequences`` are parts one line shows
in order (the first two languages of the menu's list fit on one line in any window)."""


@dataclass(frozen=True, slots=True)
class Span:
    """A horizontal extent on the screen, read along a line of the page's direction:
    ``start`` and ``end`` are distances from the window's edge where lines start (the
    right edge, right to left)."""

    start: float
    end: float

    @classmethod
    def of(cls, extent: list[float], rtl: bool, width: float) -> Span:
        left, right = extent
        return cls(width - right, width - left) if rtl else cls(left, right)


@dataclass(frozen=True, slots=True)
class Layout:
    """A sign-in page as ``MEASURE`` found it."""

    rtl: bool
    measured: dict[str, Any]

    def span(self, extent: list[float]) -> Span:
        return Span.of(extent, self.rtl, float(self.measured["width"]))

    def problems(self) -> list[str]:
        """What is not laid out for the page's direction."""
        return self._frame_problems() + self._heading_problems() + self._order_problems()

    def _frame_problems(self) -> list[str]:
        """Parts in the other direction, aligned to a physical side, or out of the window."""
        m = self.measured
        direction = "rtl" if self.rtl else "ltr"
        found = [
            f"{name} is {seen}, not {direction}"
            for name, seen in m["directions"].items()
            if seen != direction
        ]
        found += [f"aligned to a physical side: {e}" for e in m["physicallyAligned"]]
        if m["scrollWidth"] > m["width"]:
            found.append(f"the page is {m['scrollWidth']} px wide in a {m['width']} px window")
        if m["outside"]:
            found.append(
                f"{len(m['outside'])} elements reach out of the window: {m['outside'][:3]}"
            )
        return found

    def _heading_problems(self) -> list[str]:
        """A centred heading off centre, or another one nearer its end side than its start."""
        heading = self.measured["heading"]
        text, box = self.span(heading["text"]), self.span(heading["content"])
        before, after = text.start - box.start, box.end - text.end
        centred = heading["align"] == "center"
        if (abs(before - after) > TOLERANCE) if centred else (before >= after):
            return [
                f"the heading (text-align {heading['align']}) is {before:.0f} px from its "
                f"start side and {after:.0f} px from its end"
            ]
        return []

    def _order_problems(self) -> list[str]:
        """Labels that do not start where their inputs do, marks after their names, parts
        of a line out of reading order."""
        m = self.measured
        found = []
        for field in m["fields"]:
            label, input_ = self.span(field["label"]), self.span(field["input"])
            if label.start > input_.start + TOLERANCE:
                found.append(f"the label {field['name']!r} starts after its input's start")
        for button in m["marks"]:
            mark, label = self.span(button["mark"]), self.span(button["label"])
            if mark.end > label.start + TOLERANCE:
                found.append(f"the mark of {button['name']!r} is not before its name")
        for name, extents in m["sequences"].items():
            spans = [self.span(extent) for extent in extents]
            if any(a.end > b.start + TOLERANCE for a, b in itertools.pairwise(spans)):
                found.append(f"{name} are not in reading order: {spans}")
        return found


SIDEWAYS_ARROWS = re.compile("[←→\u2039\u203a\u00ab\u00bb\u25b6-\u25bb\u25c0-\u25c5\u276e\u276f]")
"""Arrows pointing left or right (← and →, the angle quotation marks, ▶ … ▻ and ◀ … ◅
among the triangles): drawn as text, they do not turn with the line's direction."""


def sideways_arrows(layout: Layout) -> list[str]:
    """The arrows pointing left or right that the language menu's summary draws."""
    return SIDEWAYS_ARROWS.findall(str(layout.measured["marker"]))


def mirrored(ltr: Span, rtl: Span, tolerance: float = TOLERANCE) -> bool:
    """Whether a part sits on a right-to-left page where it sits on a left-to-right one of
    the same width, read from the side lines start on: its start as far from the window's
    start (it is placed at the start), its end as far from the window's end (placed at the
    end), or its middle where the other's is (centred). Its width may differ (its text
    does)."""
    return (
        abs(ltr.start - rtl.start) <= tolerance
        or abs(ltr.end - rtl.end) <= tolerance
        or abs((ltr.start + ltr.end) - (rtl.start + rtl.end)) <= 2 * tolerance
    )


EMAIL_LAYOUT = """() => {
  const root = document.documentElement;
  const gaps = (element) => {
    const range = document.createRange();
    range.selectNodeContents(element);
    const text = range.getBoundingClientRect();
    const box = element.getBoundingClientRect();
    const style = getComputedStyle(element);
    return [
      text.left - box.left - parseFloat(style.borderLeftWidth) - parseFloat(style.paddingLeft),
      box.right - text.right - parseFloat(style.borderRightWidth) - parseFloat(style.paddingRight),
    ];
  };
  const own = (element) => [...element.childNodes]
    .some((node) => node.nodeType === Node.TEXT_NODE && node.nodeValue.trim());
  return {
    width: root.clientWidth,
    scrollWidth: root.scrollWidth,
    directions: [...new Set([...document.querySelectorAll("body, body *")]
      .map((element) => getComputedStyle(element).direction))],
    texts: [...document.querySelectorAll("td, a")].filter(own)
      .map((element) => ({text: element.textContent.trim(), gaps: gaps(element)})),
  };
}"""
"""An HTML email's layout: its width, the directions its elements are laid out in, and
for each text, how far it is from its cell's (or button's) left and right sides."""


def email_layout_problems(measured: dict[str, Any], language: Language) -> list[str]:
    """What in an email (``EMAIL_LAYOUT``'s findings) is not laid out for ``language``:
    an element in the other direction, a text not centred (authui's emails centre every
    line, in either direction), a page wider than the window."""
    found = [
        f"an element is laid out {seen}, not {language.direction}"
        for seen in measured["directions"]
        if seen != language.direction
    ]
    if measured["scrollWidth"] > measured["width"]:
        found.append(f"the email is {measured['scrollWidth']} px wide in {measured['width']} px")
    for text in measured["texts"]:
        left, right = text["gaps"]
        if abs(left - right) > TOLERANCE:
            found.append(f"{text['text']!r} is not centred ({left:.0f} px | {right:.0f} px)")
    return found
