"""Static files of the pages (htmx, authui.js, pack stylesheets, provider marks, the
theme's own stylesheet) under cache-busting names.

Each file is served at ``<base path>/_static/<stem>.<hash><suffix>``, the hash taken from
its content, so browsers may cache it for a year and still never see a stale copy. The
files are read once, when the configuration is resolved.
"""

from __future__ import annotations

import hashlib
import mimetypes
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from authui.pages.data import data_dir
from authui.pages.packs import ThemePack

STATIC_DIR = data_dir("static")
STATIC_PREFIX = "/_static/"
CACHE_FOREVER = "public, max-age=31536000, immutable"


@dataclass(frozen=True, slots=True)
class Asset:
    """One static file: its logical name, its served (hashed) name, its content and type."""

    name: str
    served_name: str
    body: bytes
    content_type: str


def _hashed(name: str, body: bytes) -> str:
    digest = hashlib.sha256(body).hexdigest()[:10]
    path = PurePosixPath(name)
    return f"{path.parent}/" * (path.parent.name != "") + f"{path.stem}.{digest}{path.suffix}"


def _content_type(name: str) -> str:
    guessed = mimetypes.guess_type(name)[0] or "application/octet-stream"
    return (
        f"{guessed}; charset=utf-8"
        if guessed.startswith("text/") or guessed.endswith("javascript")
        else guessed
    )


class Assets:
    """The static files of one theme: the shared ones plus those of its packs, and
    ``generated`` ones (logical name → content)."""

    def __init__(
        self,
        url_prefix: str,
        chain: Iterable[ThemePack],
        generated: Mapping[str, bytes] | None = None,
    ):
        folders = [STATIC_DIR, *(p.directory / "static" for p in reversed(list(chain)))]
        files: dict[str, Path] = {}
        for folder in folders:
            if folder.is_dir():
                files.update(
                    {
                        f.relative_to(folder).as_posix(): f
                        for f in sorted(folder.rglob("*"))
                        if f.is_file()
                    }
                )
        self._url_prefix = url_prefix
        bodies = {name: path.read_bytes() for name, path in files.items()}
        bodies.update(generated or {})
        self._by_name = {
            name: Asset(name, _hashed(name, body), body, _content_type(name))
            for name, body in bodies.items()
        }
        self._by_served = {a.served_name: a for a in self._by_name.values()}
        self.htmx = next(n for n in self._by_name if n.startswith("htmx-"))

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def url(self, name: str) -> str:
        """The URL path of a static file by its plain name (``"authui.js"``).

        Raises:
            KeyError: There is no such file.
        """
        return self._url_prefix + self._by_name[name].served_name

    def find(self, served_name: str) -> Asset | None:
        """The asset served under ``served_name`` (the path after the prefix), if any."""
        return self._by_served.get(served_name)
