"""SendGrid: sign-in links sent through SendGrid's v3 Mail Send API.

At SendGrid (Twilio), authenticate the sender's domain or verify the single sender address
(Settings → Sender Authentication), and create an API key with the "Mail Send" permission.
``AUTH_SENDGRID_KEY`` holds the key.
"""

from __future__ import annotations

from typing import Any

from authui.mail.http_apis import sendgrid_transport
from authui.providers.email import EmailProvider
from authui.providers.email_factory import email_provider


def SendGrid(**overrides: Any) -> EmailProvider:
    """Sign in with a link sent by SendGrid; id ``sendgrid``.

    Args:
        **overrides: Any ``EmailProvider`` field, e.g. ``sender="Acme <login@acme.example>"``
            (a verified sender) or ``api_key=…``.
    """
    defaults = {"id": "sendgrid", "name": "SendGrid", "transport": sendgrid_transport}
    return email_provider(defaults, overrides)
