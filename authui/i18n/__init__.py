"""Every page, email and message in the user's language.

authui's text is written in English and goes through ``translate`` (``_`` in templates,
``N_`` marking a table of texts translated where it is shown); gettext catalogues map it
to the configured locales (``authui.i18n.catalogues``), the request picks one of them
(``authui.i18n.languages``) and ``speaking`` makes it the one answering
(``authui.i18n.language``).
"""

from __future__ import annotations

from authui.i18n.catalogues import DOMAIN, SHIPPED
from authui.i18n.language import (
    ENGLISH,
    N_,
    Language,
    current,
    speaking,
    translate,
    translate_given,
    translate_plural,
)
from authui.i18n.languages import QUERY_PARAMETER, Languages, UnknownLocale

__all__ = [
    "DOMAIN",
    "ENGLISH",
    "N_",
    "QUERY_PARAMETER",
    "SHIPPED",
    "Language",
    "Languages",
    "UnknownLocale",
    "current",
    "speaking",
    "translate",
    "translate_given",
    "translate_plural",
]
