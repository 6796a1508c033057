"""The email address a user typed, made into the one identifier authui stores."""

from __future__ import annotations

import unicodedata

from authui.i18n import N_


class InvalidEmailAddress(ValueError):
    """What the user typed is not an email address authui accepts; the message says why
    and may be shown to the user."""


def normalize_email(value: object) -> str:
    """``local@domain``, lower-cased, after Unicode NFKC and trimming.

    NFKC turns look-alike characters into plain ones (a full-width at sign, U+FF20, becomes
    ``@``) before anything is checked. The domain is cut at a ``,`` (``a@x.com,b@y.com``
    is ``a@x.com``), as Auth.js does.

    Raises:
        InvalidEmailAddress: Nothing was given, or it has a ``"``, whitespace or a control
            character inside, or not exactly one ``@`` between a local part and a domain.
    """
    if not isinstance(value, str) or not value.strip():
        raise InvalidEmailAddress(N_("Enter an email address"))
    address = unicodedata.normalize("NFKC", value).lower().strip()
    if '"' in address:
        raise InvalidEmailAddress(N_("An email address cannot contain quotes"))
    if any(c.isspace() or unicodedata.category(c).startswith("C") for c in address):
        raise InvalidEmailAddress(N_("An email address cannot contain spaces"))
    local, at, domain = address.partition("@")
    domain = domain.split(",", 1)[0]
    if not at or "@" in domain or not local or not domain:
        raise InvalidEmailAddress(N_("Enter an email address like name@example.com"))
    if domain.startswith(".") or domain.endswith(".") or ".." in domain:
        raise InvalidEmailAddress(N_("Enter an email address like name@example.com"))
    return f"{local}@{domain}"
