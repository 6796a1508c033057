"""Finding authui's messages in its code and templates (Babel's extractors), for the
catalogue template ``authui.pot`` and the locales' ``.po`` files made from it.

``authui messages template`` prints the template (to start a catalogue of a locale authui
does not ship); ``authui messages update``, in a checkout, rewrites ``authui.pot`` and
brings every shipped ``.po`` up to it: new messages untranslated, gone ones dropped, the
translations of the others kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from authui.i18n.catalogues import DOMAIN, SHIPPED, SHIPPED_DIR, SOURCE_LOCALE, gettext_name
from authui.pages.data import PACKAGE_DIR, data_dir, is_checkout

TEMPLATE = SHIPPED_DIR / f"{DOMAIN}.pot"
"""The catalogue template in the repository."""

KEYWORDS: dict[str, tuple[int, ...] | None] = {
    "translate": None,
    "translate_plural": (1, 2),
    "N_": None,
    "refused": None,
    "_": None,
    "gettext": None,
    "ngettext": (1, 2),
}
"""The functions whose literal arguments are messages: the Python API
(``authui.i18n``; ``refused`` is the account center's form error) and the templates'
globals."""

_FLAGS = ("python-brace-format",)
FIXED_DATE = datetime(2026, 1, 1, tzinfo=UTC)
"""The date every written catalogue says (a real one would change every file at every
update)."""


def _found(folder: Path, method: str, pattern: str) -> Iterator[tuple[str, str | tuple[str, ...]]]:
    options = {"trim_blocks": "true", "lstrip_blocks": "true"} if method != "python" else {}
    for name, _line, message, _comments, _context in extract_from_dir(
        folder,
        method_map=[(pattern, method)],
        options_map={pattern: options},
        keywords=KEYWORDS,
    ):
        yield f"{folder.name}/{name}", message


def _catalog(tag: str | None) -> Catalog:
    """An empty catalogue of ``tag`` (the template without one)."""
    about = f"the {tag} catalogue" if tag else "the catalogue template"
    return Catalog(
        locale=gettext_name(tag) if tag else None,
        domain=DOMAIN,
        project="authui",
        version="",
        copyright_holder="the authui developers",
        msgid_bugs_address="",
        header_comment=f"# authui's pages, emails and messages: {about}.\n"
        "# `authui messages update` brings it up to the code; translate the msgstr lines.",
        fuzzy=False,
    )


def extract() -> Catalog:
    """Every message of authui's code and of its theme packs, in a catalogue template."""
    template = _catalog(None)
    sources = [
        (PACKAGE_DIR, "python", "**.py"),
        (data_dir("themes"), "jinja2.ext:babel_extract", "**.html"),
        (data_dir("themes"), "jinja2.ext:babel_extract", "**.txt"),
    ]
    for folder, method, pattern in sources:
        for where, message in _found(folder, method, pattern):
            if method == "python" and where.startswith(f"{PACKAGE_DIR.name}/testing/"):
                continue
            template.add(message, locations=[(where, 0)], flags=_FLAGS)
    return template


def template_text(catalog: Catalog) -> bytes:
    """A catalogue as ``.po`` text, without dates, so that it changes only with its
    messages."""
    catalog.creation_date = catalog.revision_date = FIXED_DATE
    buffer = BytesIO()
    write_po(buffer, catalog, include_lineno=False, width=96, ignore_obsolete=True)
    return buffer.getvalue()


def in_checkout() -> bool:
    """Whether the running authui is a checkout of its repository (where ``update``
    writes)."""
    return is_checkout(PACKAGE_DIR.parent)


def update() -> list[Path]:
    """Rewrite ``authui.pot`` from the sources and bring every shipped locale's ``.po`` up
    to it; the files written."""
    template = extract()
    TEMPLATE.parent.mkdir(parents=True, exist_ok=True)
    TEMPLATE.write_bytes(template_text(template))
    written = [TEMPLATE]
    for tag in SHIPPED:
        if tag == SOURCE_LOCALE:
            continue
        path = SHIPPED_DIR / gettext_name(tag) / "LC_MESSAGES" / f"{DOMAIN}.po"
        if path.is_file():
            with path.open("rb") as file:
                catalog = read_po(file, locale=gettext_name(tag), domain=DOMAIN)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            catalog = _catalog(tag)
        catalog.update(template, no_fuzzy_matching=True)
        path.write_bytes(template_text(catalog))
        written.append(path)
    return written
