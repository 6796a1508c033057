"""The shipped catalogues: the template is what the code and the templates hold today,
and every locale translates every message of it, with the same placeholders, in every
plural form its language has."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
from babel import Locale
from babel.messages.catalog import Catalog, Message
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po

from authui.i18n.catalogues import DOMAIN, SHIPPED, SHIPPED_DIR, SOURCE_LOCALE, gettext_name
from authui.messages import TEMPLATE, extract, template_text

TRANSLATED = [tag for tag in SHIPPED if tag != SOURCE_LOCALE]


def read(path: Path) -> Catalog:
    with path.open("rb") as file:
        return read_po(file, domain=DOMAIN)


def catalogue(tag: str) -> Catalog:
    return read(SHIPPED_DIR / gettext_name(tag) / "LC_MESSAGES" / f"{DOMAIN}.po")


def placeholders(text: str) -> set[str]:
    """The ``{name}`` fields of a message."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def ids(message: Message) -> tuple[str, ...]:
    """The message's English: its one text, or its singular and plural."""
    found = message.id
    return tuple(str(x) for x in found) if isinstance(found, tuple | list) else (str(found),)


def texts(message: Message) -> tuple[str, ...]:
    """Its translation: one text, or one per plural form."""
    found = message.string
    return tuple(found) if isinstance(found, tuple | list) else (found or "",)


def test_the_template_is_what_the_code_and_templates_hold() -> None:
    """A new or changed message in the code or a template is in ``authui.pot`` (run
    ``authui messages update``) and so, by the tests below, translated in every locale."""
    fresh = template_text(extract())
    assert TEMPLATE.read_bytes() == fresh, "authui.pot is stale: run `authui messages update`"


@pytest.mark.parametrize("tag", TRANSLATED)
def test_every_message_is_translated(tag: str) -> None:
    template = {m.id for m in read(TEMPLATE) if m.id}
    found = catalogue(tag)
    assert {m.id for m in found if m.id} == template
    untranslated = [ids(m)[0] for m in found if m.id and not all(texts(m))]
    assert untranslated == []
    assert [ids(m)[0] for m in found if m.id and m.fuzzy] == []


@pytest.mark.parametrize("tag", TRANSLATED)
def test_the_plural_forms_are_the_languages(tag: str) -> None:
    found = catalogue(tag)
    expected = get_plural(Locale.parse(gettext_name(tag)))
    assert found.plural_forms == expected.plural_forms
    for message in found:
        if message.id and isinstance(message.id, tuple):
            assert len(texts(message)) == expected.num_plurals, message.id


@pytest.mark.parametrize("tag", TRANSLATED)
def test_every_translation_has_the_placeholders_of_its_message(tag: str) -> None:
    for message in catalogue(tag):
        if not message.id:
            continue
        wanted = set().union(*(placeholders(text) for text in ids(message)))
        # A plural form may say its number in words ("one minute"): only {n} may go.
        optional = {"n"} if isinstance(message.id, tuple) else set()
        for text in texts(message):
            found = placeholders(text)
            assert wanted - optional <= found <= wanted, (message.id, text)
            assert re.search(r"\{[^}]*\{|\}[^{]*\}\}", text) is None, (message.id, text)


@pytest.mark.parametrize("tag", TRANSLATED)
def test_the_markup_of_a_message_survives_translation(tag: str) -> None:
    """Messages hold no HTML; a translation adds none (the pages escape it anyway)."""
    for message in catalogue(tag):
        for text in texts(message) if message.id else ():
            assert "<" not in text, (message.id, text)
