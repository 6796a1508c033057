"""Writing an app's own catalogue, as an app does for ``AuthConfig(translations=…)``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from authui.i18n.catalogues import DOMAIN, gettext_name


def write_catalogue(folder: Path, tag: str, messages: Mapping[str, str]) -> Path:
    """``<folder>/<tag>/LC_MESSAGES/authui.po`` holding ``messages`` (English → text);
    the folder, for ``AuthConfig(translations=folder)``."""
    catalog = Catalog(locale=gettext_name(tag), domain=DOMAIN, fuzzy=False)
    for message, text in messages.items():
        catalog.add(message, text)
    path = folder / gettext_name(tag) / "LC_MESSAGES" / f"{DOMAIN}.po"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as file:
        write_po(file, catalog)
    return folder
