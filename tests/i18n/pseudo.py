"""Pseudo-localisation: an app catalogue that overrides authui's English with itself in
brackets, and what a person reads on a page or in an email once the bracketed text is
taken out.

``write_pseudo_catalogue`` writes ``<folder>/en/LC_MESSAGES/authui.po`` in which every
message (``authui.pot``'s and those of the code as it is now, ``extract()``) says
``⟦Sign in⟧``; a message's ``{placeholders}`` stay outside the brackets
(``⟦Continue with ⟧{name}``), so that what fills them is checked too. With
``AuthConfig(translations=folder, locales=["en"])`` every text that went through the
catalogue is bracketed; ``untranslated`` finds the rest: what a page or an email shows
with letters in it once the brackets (nested ones too) and the allowed data values are
taken out.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from authui.i18n.catalogues import DOMAIN, SOURCE_LOCALE, gettext_name
from authui.messages import TEMPLATE, extract
from tests.i18n.literal_text import BUTTON_INPUTS, READABLE

OPEN, CLOSE = "⟦", "⟧"
SPAN = re.compile(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}")
"""A bracketed text with no brackets inside (taken out innermost first)."""
LETTER = re.compile(r"[^\W\d_]")
HIDDEN = frozenset({"script", "style"})
"""Elements whose text nobody reads."""


def pseudo(message: str) -> str:
    """``message`` as the pseudo catalogue says it: each run of its own text in brackets,
    its ``{placeholders}`` (their format spec and conversion kept) outside them."""
    parts = list(string.Formatter().parse(message))
    if all(field is None for _, field, _, _ in parts):
        return f"{OPEN}{message}{CLOSE}"  # no placeholders: never formatted, braces as is
    said = []
    for text, field, spec, conversion in parts:
        if text:
            said.append(OPEN + text.replace("{", "{{").replace("}", "}}") + CLOSE)
        if field is not None:
            converted = f"!{conversion}" if conversion else ""
            formatted = f":{spec}" if spec else ""
            said.append(f"{{{field}{converted}{formatted}}}")
    return "".join(said)


def _messages() -> Iterator[str | tuple[str, ...]]:
    """The ids of ``authui.pot``'s messages, then of the code's and templates' now."""
    with TEMPLATE.open("rb") as file:
        shipped = read_po(file, domain=DOMAIN)
    for catalog in (shipped, extract()):
        for message in catalog:
            if message.id:
                found = message.id
                yield tuple(str(x) for x in found) if isinstance(found, list | tuple) else found


def write_pseudo_catalogue(folder: Path) -> Path:
    """``<folder>/en/LC_MESSAGES/authui.po``: every authui message in brackets; the
    folder, for ``AuthConfig(translations=folder)``."""
    catalog = Catalog(locale=gettext_name(SOURCE_LOCALE), domain=DOMAIN, fuzzy=False)
    for message in _messages():
        if isinstance(message, tuple):
            catalog.add(message, tuple(pseudo(form) for form in message))
        else:
            catalog.add(message, pseudo(message))
    path = folder / gettext_name(SOURCE_LOCALE) / "LC_MESSAGES" / f"{DOMAIN}.po"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as file:
        write_po(file, catalog)
    return folder


def unbracketed(text: str) -> str:
    """``text`` with every bracketed span taken out, innermost first."""
    while True:
        fewer = SPAN.sub(" ", text)
        if fewer == text:
            return fewer
        text = fewer


@dataclass(frozen=True, slots=True)
class Read:
    """One text a person reads: where (``text``, or the attribute's name) and what."""

    where: str
    text: str


def _runs(chunks: Iterable[str], where: str) -> list[Read]:
    """The texts of ``chunks`` (text nodes, lines), each alone but where a bracketed text
    runs across several: those joined into one."""
    found: list[Read] = []
    pending: list[str] = []
    for chunk in chunks:
        if not chunk.strip() and not pending:
            continue
        pending.append(chunk)
        joined = " ".join(" ".join(pending).split())
        if joined.count(OPEN) <= joined.count(CLOSE):
            found.append(Read(where, joined))
            pending = []
    if pending:
        found.append(Read(where, " ".join(" ".join(pending).split())))
    return found


class _Reader(HTMLParser):
    """A page's text nodes (but those of ``HIDDEN`` elements), and its readable
    attributes (``tests.i18n.literal_text.READABLE``; ``value`` of a button input)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.attributes: list[Read] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        button = tag == "input" and values.get("type", "").lower() in BUTTON_INPUTS
        for name, value in values.items():
            if READABLE.fullmatch(name) or (name == "value" and button):
                self.attributes.append(Read(f"<{tag} {name}>", value))
        if tag in HIDDEN:
            self._hidden += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in HIDDEN:
            self._hidden = max(0, self._hidden - 1)

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.text.append(data)


def html_texts(page: str) -> list[Read]:
    """What a person reads on an HTML page or in an HTML email."""
    reader = _Reader()
    reader.feed(page)
    reader.close()
    return [*_runs(reader.text, "text"), *reader.attributes]


def plain_texts(text: str) -> list[Read]:
    """What a person reads in a plain text (an email's subject or body), line by line."""
    return _runs(text.splitlines(), "line")


def untranslated(texts: Iterable[Read], allowed: Sequence[str | re.Pattern[str]]) -> list[str]:
    """The texts with letters left once the bracketed spans and the ``allowed`` data
    (patterns, and exact texts standing alone, not inside a word) are taken out: ``where:
    text  [left: …]``."""
    exact = sorted((a for a in allowed if isinstance(a, str)), key=len, reverse=True)
    words = re.compile(rf"(?<!\w)({'|'.join(map(re.escape, exact))})(?!\w)") if exact else None
    patterns = [a for a in allowed if isinstance(a, re.Pattern)] + ([words] if words else [])
    problems = []
    for read in texts:
        left = unbracketed(read.text)
        for pattern in patterns:
            left = pattern.sub(" ", left)
        if LETTER.search(left):
            problems.append(f"{read.where}: {read.text!r}  [left: {' '.join(left.split())!r}]")
    return problems
