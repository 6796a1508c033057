"""The documentation keeps up with the code: error anchors, warning codes, public names.

The site itself is built by ``mkdocs build --strict`` in scripts/test, not here.
"""

from __future__ import annotations

import importlib
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args
from urllib.parse import urldefrag

import pytest

import authui
from authui.errors import DOCS_URL, ERROR_TYPES, AuthError
from authui.logger import WARNING_TEXT, WarningCode

ROOT = Path(__file__).resolve().parent.parent
ERRORS_PAGE = ROOT / "docs" / "reference" / "errors.md"
CONFIG_PAGE = ROOT / "docs" / "reference" / "config.md"
API_PAGE = ROOT / "docs" / "reference" / "api.md"
MKDOCS_YML = ROOT / "mkdocs.yml"


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def headings(markdown_text: str, level: int) -> list[str]:
    """The text of every heading of ``level``, outside fenced code blocks."""
    marker = "#" * level + " "
    found: list[str] = []
    fenced = False
    for line in markdown_text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and line.startswith(marker):
            found.append(line[len(marker) :].strip())
    return found


def slugify(value: str) -> str:
    """Python-Markdown's default ``toc`` slug, which mkdocs.yml keeps."""
    ascii_value = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode("ascii")
    value = re.sub(r"[^\w\s-]", "", ascii_value).strip().lower()
    return re.sub(r"[-\s]+", "-", value)


def fragment(error_class: type[AuthError]) -> str:
    return urldefrag(error_class().docs_url).fragment


def toc_ids(tokens: list[dict[str, Any]]) -> Iterator[str]:
    for token in tokens:
        yield str(token["id"])
        yield from toc_ids(token["children"])


@pytest.mark.parametrize("error_class", ERROR_TYPES, ids=[c.__name__ for c in ERROR_TYPES])
def test_every_error_type_has_its_own_section(error_class: type[AuthError]) -> None:
    sections = headings(read(ERRORS_PAGE), level=2)
    assert error_class.__name__ in sections
    assert error_class.type in sections
    assert fragment(error_class) == slugify(error_class.type)


def test_error_sections_are_unique_so_anchors_get_no_suffix() -> None:
    sections = headings(read(ERRORS_PAGE), level=2)
    slugs = [slugify(section) for section in sections]
    assert sorted(slug for slug in set(slugs) if slugs.count(slug) > 1) == []


def test_error_anchors_exist_on_the_rendered_page() -> None:
    markdown = importlib.import_module("markdown")
    renderer = markdown.Markdown(extensions=["toc", "attr_list", "admonition", "tables"])
    renderer.convert(read(ERRORS_PAGE))
    ids = set(toc_ids(renderer.toc_tokens))
    assert [c.__name__ for c in ERROR_TYPES if fragment(c) not in ids] == []


def test_docs_url_points_at_the_errors_page_of_the_site() -> None:
    match = re.search(r"^site_url:\s*(\S+)\s*$", read(MKDOCS_YML), re.MULTILINE)
    assert match is not None
    assert match.group(1).rstrip("/") + "/reference/errors/" == DOCS_URL


def test_every_warning_code_is_documented() -> None:
    text = read(CONFIG_PAGE)
    codes = set(WARNING_TEXT) | set(get_args(WarningCode))
    assert sorted(code for code in codes if f"`{code}`" not in text) == []


def test_every_public_name_is_in_the_api_reference() -> None:
    text = read(API_PAGE)
    assert [name for name in authui.__all__ if f"`{name}`" not in text] == []
