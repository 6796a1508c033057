"""No template of a shipped pack writes words a catalogue cannot translate: every text a
person reads or hears goes through ``_()`` or ``ngettext()`` (``tests/i18n/literal_text``
says what counts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.i18n.literal_text import problems

THEMES = Path(__file__).resolve().parents[2] / "themes"


def test_the_shipped_packs_write_no_untranslatable_text() -> None:
    assert problems(THEMES) == []


@pytest.mark.parametrize(
    ("template", "reported"),
    [
        ("<p>Welcome back</p>", "Welcome"),
        ('<input placeholder="Your email">', "placeholder"),
        ('<button aria-label="Close">&times;</button>', "aria-label"),
        ('<input type="submit" value="Send">', "value"),
        ('{{ "Sign in" }}', "Sign in"),
        ('{{ _("Hello " ~ name) }}', "_("),
        ('{{ _("{n} codes left", n=count) }}', "ngettext"),
        ('{{ _("Hi {name}") }}', "name"),
        ('{% macro alert(message) %}<p>{{ message }}</p>{% endmacro %}{{ alert("Oops") }}', "Oops"),
    ],
)
def test_a_literal_text_is_reported(tmp_path: Path, template: str, reported: str) -> None:
    pack = tmp_path / "themes" / "planted"
    pack.mkdir(parents=True)
    (pack / "page.html").write_text(template, "utf-8")
    found = problems(tmp_path / "themes")
    assert found
    assert all(problem.startswith("themes/planted/page.html:1: ") for problem in found)
    assert any(reported in problem for problem in found)


def test_translated_text_and_markup_pass(tmp_path: Path) -> None:
    pack = tmp_path / "themes" / "planted"
    pack.mkdir(parents=True)
    page = (
        '<p class="note" role="status">{{ _("Welcome back, {name}", name=user) }} · 3</p>'
        '<input placeholder="{{ _(\'Your email\') }}" autocomplete="email">'
        '{{ ngettext("{n} code left", "{n} codes left", count) }}{{ _(heading) }}'
    )
    (pack / "page.html").write_text(page, "utf-8")
    assert problems(tmp_path / "themes") == []
