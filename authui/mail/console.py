"""Development only: sign-in emails printed to stderr and kept in memory, never sent.

``ConsoleOutbox().transport`` is a transport: each message is printed (with its link) and
kept, the newest ``limit`` of them, so a development page can list them. Anyone who can
read the process's output can sign in as anyone: do not use it in production.
"""

from __future__ import annotations

import sys
from collections import deque
from typing import TextIO

from authui.mail.message import TransportSettings, VerificationEmail

DEFAULT_LIMIT = 50
"""How many messages an outbox keeps."""

_RULE = "-" * 72


class ConsoleOutbox:
    """The last messages "sent" through the console transport, oldest first.

    Args:
        limit: How many messages to keep; older ones are dropped.
        stream: Where to print; ``sys.stderr`` (as it is when a message is printed) if unset.
    """

    def __init__(self, limit: int = DEFAULT_LIMIT, *, stream: TextIO | None = None) -> None:
        if limit < 1:
            raise ValueError("A console outbox keeps at least one message")
        self._messages: deque[VerificationEmail] = deque(maxlen=limit)
        self._stream = stream

    @property
    def messages(self) -> list[VerificationEmail]:
        """The kept messages, oldest first (a copy)."""
        return list(self._messages)

    def last(self, to: str | None = None) -> VerificationEmail | None:
        """The newest message, or the newest to the address ``to``; ``None`` if there is none."""
        return next((m for m in reversed(self._messages) if to in (None, m.to)), None)

    def clear(self) -> None:
        """Forget every message."""
        self._messages.clear()

    async def transport(self, message: VerificationEmail, provider: TransportSettings) -> None:
        """Keep ``message`` and print it with its link (the ``Transport`` of
        ``ConsoleEmail``)."""
        self._messages.append(message)
        lines = (
            _RULE,
            f"authui DEVELOPMENT email ({provider.id}): printed here, not sent",
            f"To:      {message.to}",
            f"Subject: {message.subject}",
            f"Link:    {message.url}",
            f"Expires: {message.expires.isoformat(timespec='seconds')}",
            _RULE,
        )
        print("\n".join(lines), file=self._stream or sys.stderr, flush=True)


def is_console(transport: object) -> bool:
    """Whether ``transport`` is a console outbox's (it prints links instead of sending)."""
    return isinstance(getattr(transport, "__self__", None), ConsoleOutbox)
