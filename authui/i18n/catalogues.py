"""The message catalogues: authui's, shipped in ``authui/i18n/locales``, and an app's own.

A catalogue lives at ``<folder>/<locale>/LC_MESSAGES/authui.po`` (or ``.mo``), ``<locale>``
in gettext's spelling (``pt_BR``, ``zh_Hans``). The wheel carries compiled ``.mo`` files
(its build compiles them, ``hatch_build.py``); a checkout has only the ``.po`` sources, and
they are compiled in memory when a configuration is resolved. An app's catalogue is laid
over authui's: its messages win, the rest stay authui's, and it may bring a locale authui
does not ship.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from gettext import NullTranslations
from io import BytesIO
from pathlib import Path

from babel import Locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

DOMAIN = "authui"
"""The gettext domain of authui's messages (an app's catalogue for them uses it too)."""

SHIPPED_DIR = Path(__file__).parent / "locales"
"""Where authui's own catalogues are."""

SOURCE_LOCALE = "en"
"""The language the messages are written in: it has no catalogue of its own."""

SHIPPED = (
    "en",
    "ar",
    "de",
    "es",
    "fr",
    "he",
    "it",
    "ja",
    "ko",
    "nl",
    "pl",
    "pt-BR",
    "zh-Hans",
)
"""The locales authui translates every page, email and message into (BCP 47 tags)."""


def gettext_name(tag: str) -> str:
    """The folder name of a locale's catalogue: ``pt-BR`` → ``pt_BR``.

    Raises:
        ValueError: Babel knows no such locale.
    """
    return str(Locale.parse(tag.replace("-", "_")))


def catalogue_file(folder: Path, tag: str) -> Path | None:
    """The file of ``tag``'s catalogue in ``folder`` (its ``.mo``, else its ``.po``), if
    it has one."""
    base = folder / gettext_name(tag) / "LC_MESSAGES" / DOMAIN
    return next(
        (p for p in (base.with_suffix(".mo"), base.with_suffix(".po")) if p.is_file()), None
    )


def catalogue_for(tag: str, app_folders: Sequence[Path]) -> NullTranslations | None:
    """The messages of ``tag``: authui's, under the app's folders' (the first folder
    wins); ``None`` when neither authui nor the app translates it (English needs none).

    Raises:
        ValueError: A catalogue cannot be read.
    """
    layers = [SHIPPED_DIR, *reversed(app_folders)]
    files = [found for found in (catalogue_file(f, tag) for f in layers) if found]
    if not files:
        return None
    if len(files) == 1:
        return _parsed(files[0], files[0].stat().st_mtime_ns)
    merged = Translations(BytesIO(_compiled(files[0], files[0].stat().st_mtime_ns)), DOMAIN)
    for file in files[1:]:
        merged.merge(_parsed(file, file.stat().st_mtime_ns))
    return merged


@functools.lru_cache(maxsize=128)
def _parsed(path: Path, modified: int) -> Translations:
    """A catalogue file as it was at ``modified`` (its mtime), parsed once per process
    and shared by every configuration using it as it is (never merged into)."""
    return Translations(BytesIO(_compiled(path, modified)), DOMAIN)


@functools.lru_cache(maxsize=128)
def _compiled(path: Path, modified: int) -> bytes:
    """The ``.mo`` bytes of a catalogue file as it was at ``modified``; a ``.po`` file is
    compiled here.

    Raises:
        ValueError: The ``.po`` file cannot be read (its message says where).
    """
    del modified  # part of the cache key only
    if path.suffix == ".mo":
        return path.read_bytes()
    try:
        with path.open("rb") as file:
            catalog = read_po(file, domain=DOMAIN, abort_invalid=True)
    except Exception as exc:  # babel raises PoFileError and others for a broken file
        raise ValueError(f"{path} cannot be read: {exc}") from exc
    buffer = BytesIO()
    write_mo(buffer, catalog)
    return buffer.getvalue()
