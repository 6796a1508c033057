"""Loops: sign-in links sent as a Loops transactional email.

At loops.so, create a transactional email with a data variable ``url`` (the sign-in link:
use it as the button's link) and publish it; its id is ``transactional_id``. The sender,
subject and body are the ones designed at Loops, not authui's theme. Create an API key
(Settings → API); ``AUTH_LOOPS_KEY`` holds it.
"""

from __future__ import annotations

from typing import Any

from authui.mail.http_apis import loops_transport
from authui.providers.email import EmailProvider
from authui.providers.email_factory import email_provider


def Loops(*, transactional_id: str, **overrides: Any) -> EmailProvider:
    """Sign in with a link sent by Loops; id ``loops``.

    Args:
        transactional_id: The id of the published transactional email.
        **overrides: Any ``EmailProvider`` field, e.g. ``api_key=…``.

    Raises:
        TypeError: ``transactional_id`` is missing or empty.
    """
    if not transactional_id:
        raise TypeError("Loops requires a `transactional_id`: the id of a transactional email")
    defaults = {
        "id": "loops",
        "name": "Loops",
        "transport": loops_transport,
        "options": {"transactional_id": transactional_id},
    }
    return email_provider(defaults, overrides)
