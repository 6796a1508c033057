"""Mailgun: sign-in links sent through Mailgun's messages API.

At Mailgun, add and verify a sending domain (e.g. ``mg.acme.example``) and create a
sending API key for it. ``AUTH_MAILGUN_KEY`` holds the key. Messages go to
``/v3/<domain>/messages``, the domain being the sender address's (or
``options={"domain": …}``), in the account's region: ``Mailgun(region="EU")`` for an EU
account.
"""

from __future__ import annotations

from typing import Any, Literal

from authui.mail.http_apis import MAILGUN_HOSTS, mailgun_transport
from authui.providers.email import EmailProvider
from authui.providers.email_factory import email_provider


def Mailgun(*, region: Literal["US", "EU"] = "US", **overrides: Any) -> EmailProvider:
    """Sign in with a link sent by Mailgun; id ``mailgun``.

    Args:
        region: Where the Mailgun account lives: ``"US"`` (``api.mailgun.net``) or
            ``"EU"`` (``api.eu.mailgun.net``).
        **overrides: Any ``EmailProvider`` field, e.g. ``sender="Acme <login@mg.acme.example>"``
            (on the sending domain) or ``api_key=…``.

    Raises:
        ValueError: ``region`` is neither ``"US"`` nor ``"EU"``.
    """
    if region not in MAILGUN_HOSTS:
        raise ValueError(f"Mailgun region must be one of {sorted(MAILGUN_HOSTS)}, not {region!r}")
    defaults = {
        "id": "mailgun",
        "name": "Mailgun",
        "transport": mailgun_transport,
        "options": {"region": region},
    }
    return email_provider(defaults, overrides)
