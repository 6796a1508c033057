"""One language the pages speak, and the language of the request being answered.

A ``Language`` is a locale's merged catalogue (the shipped one under the app's own) with
what Babel knows of the locale: its tag, its script's direction, its name in itself, its
plural rule and its date formats.

``speaking(language)`` makes it the language of the code it wraps: ``translate`` and
``translate_plural`` (``_`` and ``ngettext`` in the templates) read it. It is a context
variable, set for the length of one request's answer, because the pages' macros are
imported without their caller's context and so can only see what the environment's globals
reach; outside any request, text is English.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from gettext import NullTranslations
from typing import Any, Literal

from babel import Locale
from babel.dates import format_date, format_time, get_datetime_format
from babel.numbers import format_decimal

Direction = Literal["ltr", "rtl"]


@dataclass(frozen=True, slots=True)
class Language:
    """A locale the pages speak.

    Attributes:
        tag: Its BCP 47 tag, as configured and as ``<html lang>`` says it (``pt-BR``).
        locale: Babel's locale for it (plural rule, dates, its own name).
        catalogue: Its messages: the app's catalogue over authui's.
    """

    tag: str
    locale: Locale
    catalogue: NullTranslations

    @property
    def direction(self) -> Direction:
        """``rtl`` for a right-to-left script (Arabic, Hebrew), else ``ltr``."""
        return "rtl" if self.locale.character_order == "right-to-left" else "ltr"

    @property
    def name(self) -> str:
        """The language's name in itself (``Deutsch``, ``العربية``), for the language menu."""
        own = self.locale.get_display_name(self.locale) or self.tag
        return own[:1].upper() + own[1:]

    def gettext(self, message: str, **params: Any) -> str:
        """``message`` in this language, with its ``{name}`` placeholders filled (the
        English one when a translation's placeholders do not fit ``params``)."""
        text = self.catalogue.gettext(message)
        return _filled(text, message, params) if params else text

    def ngettext(self, singular: str, plural: str, n: int, **params: Any) -> str:
        """The form of ``singular``/``plural`` this language uses for ``n``, filled with
        ``params`` and ``n`` as the language writes a number (``1.000`` in German)."""
        english = singular if n == 1 else plural
        filling = {"n": format_decimal(n, locale=self.locale), **params}
        return _filled(self.catalogue.ngettext(singular, plural, n), english, filling)

    def datetime(self, value: datetime) -> str:
        """A moment as this language writes it, to the minute, in UTC (``Nov 27, 2026,
        3:09 PM UTC``; ``27.11.2026, 15:09 UTC``); a naive ``value`` is UTC."""
        moment = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
        pattern = str(get_datetime_format("medium", locale=self.locale))
        day = format_date(moment, "medium", locale=self.locale)
        time = format_time(moment, "short", tzinfo=UTC, locale=self.locale)
        return f"{pattern.format(time, day)} UTC"


def _filled(text: str, english: str, params: dict[str, Any]) -> str:
    """``text`` with ``params`` filled in; ``english`` (the message itself) when a
    translation names a placeholder the message does not have, or is no valid format (an
    app's catalogue may be wrong: the page is still shown)."""
    try:
        return text.format(**params)
    except (KeyError, IndexError, ValueError, AttributeError):
        return english.format(**params)


ENGLISH = Language("en", Locale("en"), NullTranslations())
"""The source language: what is said outside a request, and what every catalogue maps from."""


@dataclass(frozen=True, slots=True)
class Speech:
    """What the request being answered speaks, what else it could, and the page's path and
    query (for the language menu's links; ``None`` when the answer is no page one can
    reload, such as the answer to a form's post)."""

    language: Language
    choices: tuple[Language, ...] = ()
    page: str | None = None


_SILENT = Speech(ENGLISH)
"""What is spoken outside a request: English, no menu."""
_CURRENT: ContextVar[Speech] = ContextVar("authui_speech", default=_SILENT)


def current() -> Language:
    """The language of the request being answered (English outside one)."""
    return _CURRENT.get().language


def current_speech() -> Speech:
    """The language of the request being answered, its alternatives and page."""
    return _CURRENT.get()


@contextmanager
def speaking(
    language: Language, *, choices: tuple[Language, ...] = (), page: str | None = None
) -> Iterator[Language]:
    """Make ``language`` the one ``translate`` uses inside the ``with`` block; the
    language menu offers ``choices`` as links to ``page``."""
    token = _CURRENT.set(Speech(language, choices, page))
    try:
        yield language
    finally:
        _CURRENT.reset(token)


def translate(message: str, **params: Any) -> str:
    """``message`` (authui's English text) in the request's language, ``{name}``
    placeholders filled from ``params``."""
    return current().gettext(message, **params)


def translate_plural(singular: str, plural: str, n: int, **params: Any) -> str:
    """The request's language's form of a message about ``n`` things; ``{n}`` and the
    other placeholders filled."""
    return current().ngettext(singular, plural, n, **params)


def translate_given(text: str) -> str:
    """A text the app gave (a form field's label, a provider's button text) in the
    request's language, when a catalogue translates it (an app's own, see
    ``AuthConfig.translations``); else as given."""
    return current().catalogue.gettext(text)


def N_(message: str) -> str:
    """Mark ``message`` for extraction where it is defined (a table of texts), to be
    translated where it is shown; returns it unchanged."""
    return message
