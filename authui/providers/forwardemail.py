"""Forward Email: sign-in links sent through Forward Email's ``/v1/emails`` API.

At forwardemail.net, set up the sender's domain with outbound SMTP enabled and create an
API token (My Account → Security). ``AUTH_FORWARDEMAIL_KEY`` holds the token.
"""

from __future__ import annotations

from typing import Any

from authui.mail.http_apis import forwardemail_transport
from authui.providers.email import EmailProvider
from authui.providers.email_factory import email_provider


def ForwardEmail(**overrides: Any) -> EmailProvider:
    """Sign in with a link sent by Forward Email; id ``forwardemail``.

    Args:
        **overrides: Any ``EmailProvider`` field, e.g. ``sender="Acme <login@acme.example>"``
            (on your Forward Email domain) or ``api_key=…``.
    """
    defaults = {"id": "forwardemail", "name": "Forward Email", "transport": forwardemail_transport}
    return email_provider(defaults, overrides)
