"""Every user-visible string goes through :func:`translate` (``_`` in templates).

English is the source language and the only catalogue shipped; a later catalogue maps
the English strings to another language without touching templates.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

CATALOGUES: dict[str, Mapping[str, str]] = {"en": {}}


def translate(message: str, locale: str = "en", **params: Any) -> str:
    """``message`` in ``locale`` (falling back to English), with ``{name}`` params filled."""
    text = CATALOGUES.get(locale, {}).get(message, message)
    return text.format(**params) if params else text
