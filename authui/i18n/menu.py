"""The pages' language menu: a link per configured locale to the page being shown, with
its ``lang`` parameter, so that choosing works without JavaScript and keeps the rest of
the page's query (its ``callbackUrl``, its ``error``).

The links are query-only references (``?callbackUrl=%2F&lang=de``): the browser keeps the
page's own path, and nothing of a request's path (which an attacker may shape, as in
``//evil.example/…``) is written into them."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

from authui.i18n.language import current_speech
from authui.i18n.languages import QUERY_PARAMETER


@dataclass(frozen=True, slots=True)
class MenuEntry:
    """One language of the menu."""

    tag: str
    name: str
    """The language's name in itself."""
    url: str
    """The page being shown, in that language: a reference to this page with another
    query."""
    current: bool


def language_menu() -> list[MenuEntry]:
    """The menu of the page being rendered: empty when there is nothing to choose (one
    locale) or no page to reload in another language (the answer to a form's post)."""
    speech = current_speech()
    if speech.page is None or len(speech.choices) < 2:
        return []
    query = speech.page.partition("?")[2]
    kept = [
        (name, value)
        for name, value in parse_qsl(query, keep_blank_values=True)
        if name != QUERY_PARAMETER
    ]
    return [
        MenuEntry(
            tag=choice.tag,
            name=choice.name,
            url="?" + urlencode([*kept, (QUERY_PARAMETER, choice.tag)]),
            current=choice is speech.language,
        )
        for choice in speech.choices
    ]
