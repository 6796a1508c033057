"""Resend: sign-in links sent through Resend's HTTP API.

At resend.com, verify the domain of the sender address (Domains → Add domain, then its DNS
records) and create an API key with "Sending access". ``AUTH_RESEND_KEY`` holds the key.
"""

from __future__ import annotations

from typing import Any

from authui.mail.http_apis import resend_transport
from authui.providers.email import EmailProvider
from authui.providers.email_factory import email_provider


def Resend(**overrides: Any) -> EmailProvider:
    """Sign in with a link sent by Resend; id ``resend``.

    Args:
        **overrides: Any ``EmailProvider`` field, e.g. ``sender="Acme <login@acme.example>"``
            (on a verified domain) or ``api_key=…``.
    """
    defaults = {"id": "resend", "name": "Resend", "transport": resend_transport}
    return email_provider(defaults, overrides)
