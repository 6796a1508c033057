"""Theme packs: folders of Jinja templates (and static files) that give the pages a look.

A pack has a name, a parent whose templates it falls back to, and a folder with templates
and an optional ``static/`` folder. ``base`` is the root: semantic markup, the contract
every pack honours. Packs shipped in the ``themes`` folder are found by folder; others are
installed through the ``authui.themes`` entry point group, whose entries load to a
:class:`ThemePack` (or a function returning one).
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path

from authui.pages.data import data_dir

THEMES_DIR = data_dir("themes")
ENTRY_POINT_GROUP = "authui.themes"


@dataclass(frozen=True, slots=True)
class ThemePack:
    """A theme pack.

    Attributes:
        name: What ``Theme(pack=…)`` names it by.
        directory: The folder holding its templates (``signin.html``, ``layouts/…``,
            ``elements/…``) and optionally ``static/`` with its stylesheet.
        parent: The pack it falls back to for templates it does not have; ``None`` only
            for ``base``.
        stylesheets: Files of its ``static/`` folder that every page links, in order.
        label: A human name for theme pickers.
    """

    name: str
    directory: Path
    parent: str | None = "base"
    stylesheets: tuple[str, ...] = ()
    label: str = ""


class UnknownThemePack(LookupError):
    """``Theme(pack=…)`` names no installed pack."""


def _from_folder(directory: Path) -> ThemePack:
    manifest = directory / "theme.toml"
    data = tomllib.loads(manifest.read_text("utf-8")) if manifest.is_file() else {}
    parent = data.get("parent", "base")
    return ThemePack(
        name=directory.name,
        directory=directory,
        parent=None if directory.name == "base" else parent,
        stylesheets=tuple(data.get("stylesheets", ())),
        label=str(data.get("label", directory.name.title())),
    )


@cache
def installed_packs() -> Mapping[str, ThemePack]:
    """Every pack: the shipped folders and the entry points, by name."""
    packs = {d.name: _from_folder(d) for d in sorted(THEMES_DIR.iterdir()) if d.is_dir()}
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        loaded: ThemePack | Callable[[], ThemePack] = entry.load()
        pack = loaded if isinstance(loaded, ThemePack) else loaded()
        if entry.name in packs:
            raise UnknownThemePack(
                f"Theme pack {entry.name!r} from {entry.value!r} clashes with a pack of that name"
            )
        packs[entry.name] = dataclasses.replace(pack, name=entry.name)
    return packs


def pack_chain(name: str) -> list[ThemePack]:
    """The pack and its ancestors, nearest first, ending with ``base``.

    Raises:
        UnknownThemePack: A name in the chain is not installed, or the chain loops.
    """
    packs = installed_packs()
    chain: list[ThemePack] = []
    current: str | None = name
    while current is not None:
        if current not in packs:
            raise UnknownThemePack(
                f"Theme pack {current!r} is not installed; installed packs: {sorted(packs)}"
            )
        if any(p.name == current for p in chain):
            raise UnknownThemePack(f"Theme pack {name!r} has a parent loop at {current!r}")
        chain.append(packs[current])
        current = packs[current].parent
    return chain


def load_pack_folder(directory: str | Path) -> ThemePack:
    """A :class:`ThemePack` from a folder with a ``theme.toml``; for entry points."""
    return _from_folder(Path(directory))
