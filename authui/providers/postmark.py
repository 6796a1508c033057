"""Postmark: sign-in links sent through Postmark's ``/email`` API on the ``outbound``
(transactional) message stream.

At Postmark, add a sender signature or verify the sender's domain, and copy a Server API
token (Servers → your server → API Tokens). ``AUTH_POSTMARK_KEY`` holds the token.
"""

from __future__ import annotations

from typing import Any

from authui.mail.http_apis import postmark_transport
from authui.providers.email import EmailProvider
from authui.providers.email_factory import email_provider


def Postmark(**overrides: Any) -> EmailProvider:
    """Sign in with a link sent by Postmark; id ``postmark``.

    Args:
        **overrides: Any ``EmailProvider`` field, e.g. ``sender="Acme <login@acme.example>"``
            (a confirmed sender signature) or ``api_key=…`` (the server token).
    """
    defaults = {"id": "postmark", "name": "Postmark", "transport": postmark_transport}
    return email_provider(defaults, overrides)
