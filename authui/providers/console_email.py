"""Console email, for development: sign-in links printed to stderr and kept in memory
instead of being sent.

Nothing is set up anywhere: the link appears in the server's output and in the outbox
(``provider.options["outbox"]``, a ``ConsoleOutbox``), which a development page may list.
Never use it in production: whoever reads the output can sign in as anyone.
"""

from __future__ import annotations

from typing import Any

from authui.mail.console import ConsoleOutbox
from authui.providers.email import EmailProvider
from authui.providers.email_factory import email_provider


def ConsoleEmail(*, outbox: ConsoleOutbox | None = None, **overrides: Any) -> EmailProvider:
    """Sign in with a link shown on the console; id ``email``.

    Args:
        outbox: Where the messages are kept; a new ``ConsoleOutbox`` if unset. Also in
            ``provider.options["outbox"]``.
        **overrides: Any ``EmailProvider`` field, e.g. ``id="dev-email"``.
    """
    kept = outbox if outbox is not None else ConsoleOutbox()
    defaults = {
        "id": "email",
        "name": "Email",
        "transport": kept.transport,
        "options": {"outbox": kept},
    }
    return email_provider(defaults, overrides)
