"""The wheel's build step: compile the catalogues (``authui/i18n/locales/**/authui.po``)
into the ``.mo`` files the wheel carries in their place. The repository holds only the
``.po`` sources; a checkout compiles them in memory (``authui.i18n.catalogues``)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from hatchling.builders.hooks.plugin.interface import BuildHookInterface

LOCALES = Path("authui") / "i18n" / "locales"


class CompiledCatalogues(BuildHookInterface):  # type: ignore[type-arg]
    """Adds a compiled ``authui.mo`` beside where each ``authui.po`` was."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        compiled = Path(tempfile.mkdtemp(prefix="authui-mo-"))
        root = Path(self.root)
        for source in sorted((root / LOCALES).glob("*/LC_MESSAGES/authui.po")):
            with source.open("rb") as file:
                catalog = read_po(file, abort_invalid=True)
            where = source.relative_to(root).with_suffix(".mo")
            target = compiled / where
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("wb") as file:
                write_mo(file, catalog)
            build_data["force_include"][str(target)] = where.as_posix()
