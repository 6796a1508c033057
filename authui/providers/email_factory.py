"""What the built-in email providers (``Resend``, ``Nodemailer`` …) share: their defaults,
completed by the caller's keyword arguments."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from authui.providers.email import EmailProvider


def email_provider(defaults: Mapping[str, Any], overrides: Mapping[str, Any]) -> EmailProvider:
    """An ``EmailProvider`` of a factory's ``defaults`` where ``overrides`` (any
    ``EmailProvider`` field) leave them; ``options`` are merged key by key.

    Raises:
        TypeError: An override is not an ``EmailProvider`` field.
    """
    options = {**defaults.get("options", {}), **(overrides.get("options") or {})}
    return EmailProvider(**{**defaults, **overrides, "options": options})
