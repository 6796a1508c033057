"""The languages a configuration speaks, and which one answers a request.

The choice, first that applies: the ``lang`` query parameter (the pages' language menu
links carry it; the answer then keeps it in the ``authui.locale`` cookie), that cookie, the
browser's ``Accept-Language`` matched against the configured locales, the default locale.

Matching a browser's preference: its exact tag first; else a configured locale of the same
language and script (``de-AT`` finds ``de``, ``zh-CN`` finds ``zh-Hans``, ``pt-PT`` finds
``pt-BR``, while ``zh-TW``, written in Traditional characters, finds none).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from gettext import NullTranslations
from os import PathLike
from pathlib import Path

from babel import Locale, UnknownLocaleError
from babel.core import get_global

from authui.i18n.catalogues import SOURCE_LOCALE, catalogue_for, gettext_name
from authui.i18n.language import Language

QUERY_PARAMETER = "lang"
"""The query parameter that picks a page's language (and keeps it in a cookie)."""

MAX_PREFERENCES = 20
"""How many ``Accept-Language`` entries are looked at (a header may list hundreds)."""

MAX_HEADER = 256
"""How much of an ``Accept-Language`` header is read: browsers send a few dozen characters,
and only this much of a longer one is kept as a key of the negotiation cache."""


class UnknownLocale(ValueError):
    """A configured locale Babel does not know, or that no catalogue translates."""


def language_of(tag: str, app_folders: Sequence[Path]) -> Language:
    """The ``Language`` of a configured locale tag.

    Raises:
        UnknownLocale: Babel knows no such locale, or neither authui nor the app's
            folders hold a catalogue for it.
        ValueError: Its catalogue cannot be read.
    """
    try:
        locale = Locale.parse(gettext_name(tag))
    except (ValueError, UnknownLocaleError) as exc:
        raise UnknownLocale(f"{tag!r} is not a locale Babel knows") from exc
    catalogue = catalogue_for(tag, app_folders)
    if catalogue is None:
        if locale.language != SOURCE_LOCALE:
            raise UnknownLocale(
                f"authui has no catalogue for {tag!r}, and neither has the app's "
                "translations folder: add <folder>/"
                f"{gettext_name(tag)}/LC_MESSAGES/authui.po"
            )
        catalogue = NullTranslations()
    return Language(tag, locale, catalogue)


def _language_and_script(locale: Locale) -> tuple[str, str | None]:
    """A locale's language and its script, the likely one where it names none."""
    if locale.script:
        return locale.language, locale.script
    likely: Mapping[str, str] = get_global("likely_subtags")
    keys = [f"{locale.language}_{locale.territory}"] if locale.territory else []
    for key in [*keys, locale.language]:
        parts = likely.get(key, "").split("_")
        scripts = [p for p in parts[1:] if len(p) == 4]
        if scripts:
            return locale.language, scripts[0]
    return locale.language, None


def _parse_tag(tag: str) -> Locale | None:
    try:
        return Locale.parse(tag.strip().replace("-", "_"))
    except (ValueError, TypeError, UnknownLocaleError):
        return None


def preferences(header: str) -> list[str]:
    """The tags of an ``Accept-Language`` header, most wanted first (``*`` and tags of
    weight 0 left out; equal weights keep their order)."""
    weighted: list[tuple[float, int, str]] = []
    for position, entry in enumerate(header.split(",")[:MAX_PREFERENCES]):
        tag, _, parameters = entry.partition(";")
        tag = tag.strip()
        weight = 1.0
        for parameter in parameters.split(";"):
            name, _, value = parameter.partition("=")
            if name.strip() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        if tag and tag != "*" and weight > 0:
            weighted.append((-weight, position, tag))
    return [tag for _, _, tag in sorted(weighted)]


NEGOTIATED_CACHE_SIZE = 1024
"""How many ``Accept-Language`` values a configuration remembers the match of (browsers
send a few distinct ones; the cache is emptied when full)."""


@dataclass(frozen=True, slots=True)
class Languages:
    """The configured locales, in the configured order, and the default one."""

    available: tuple[Language, ...]
    default: Language
    _negotiated: dict[str, Language | None] = field(default_factory=dict, compare=False)

    def find(self, tag: str) -> Language | None:
        """The configured language of exactly this tag (any case, ``-`` or ``_``)."""
        wanted = tag.strip().replace("_", "-").lower()
        return next((x for x in self.available if x.tag.lower() == wanted), None)

    def negotiate(self, accept_language: str) -> Language | None:
        """The configured language a browser's ``Accept-Language`` prefers, if any."""
        accept_language = accept_language[:MAX_HEADER]
        if accept_language in self._negotiated:
            return self._negotiated[accept_language]
        if len(self._negotiated) >= NEGOTIATED_CACHE_SIZE:
            self._negotiated.clear()
        found = self._negotiated[accept_language] = self._match(accept_language)
        return found

    def _match(self, accept_language: str) -> Language | None:
        for tag in preferences(accept_language):
            exact = self.find(tag)
            if exact is not None:
                return exact
            wanted = _parse_tag(tag)
            if wanted is None:
                continue
            kin = [x for x in self.available if _same_writing(x.locale, wanted)]
            if kin:
                same_region = [x for x in kin if x.locale.territory == wanted.territory]
                return (same_region or kin)[0]
        return None

    def choose(
        self, query: Mapping[str, str], cookie: str | None, accept_language: str | None
    ) -> tuple[Language, bool]:
        """The language of a request, and whether the request chose it explicitly (its
        ``lang`` query parameter names a configured locale: the answer keeps it)."""
        asked = query.get(QUERY_PARAMETER)
        if asked:
            picked = self.find(asked)
            if picked is not None:
                return picked, True
        kept = self.find(cookie) if cookie else None
        if kept is not None:
            return kept, False
        negotiated = self.negotiate(accept_language) if accept_language else None
        return negotiated or self.default, False


def _same_writing(configured: Locale, wanted: Locale) -> bool:
    return _language_and_script(configured) == _language_and_script(wanted)


def configured_languages(
    locales: Sequence[str], default: str, app_folders: Sequence[Path]
) -> Languages:
    """The ``Languages`` of a configuration's ``locales`` and ``default_locale``.

    Raises:
        UnknownLocale: A locale is unknown or untranslated, or the default is not one of
            the locales.
        ValueError: A catalogue cannot be read.
    """
    available = tuple(language_of(tag, app_folders) for tag in dict.fromkeys(locales))
    languages = Languages(available, available[0] if available else language_of("en", ()))
    chosen = languages.find(default)
    if chosen is None:
        raise UnknownLocale(
            f"default_locale {default!r} is not one of the configured locales "
            f"({', '.join(x.tag for x in available)})"
        )
    return Languages(available, chosen)


def translation_folders(
    setting: str | PathLike[str] | Sequence[str | PathLike[str]],
) -> tuple[Path, ...]:
    """``AuthConfig.translations`` as folders (one folder, or several)."""
    if isinstance(setting, str | PathLike):
        return (Path(setting),)
    return tuple(Path(folder) for folder in setting)
