"""The sign-in email as a MIME message (``multipart/alternative``: text, then HTML), for
SMTP and for any transport that sends raw messages."""

from __future__ import annotations

from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid, parseaddr

from authui.mail.message import VerificationEmail


def sender_domain(sender: str) -> str:
    """The domain of a ``From`` value: ``"Acme <login@mg.acme.example>"`` →
    ``"mg.acme.example"``; ``""`` when the address has none."""
    _, address = parseaddr(sender)
    local, at, domain = address.rpartition("@")
    return domain if at and local else ""


def build_message(message: VerificationEmail) -> EmailMessage:
    """``From``, ``To``, ``Subject``, ``Date`` (now, UTC), a ``Message-ID`` on the sender's
    domain, ``Content-Language``, and the text and HTML bodies as alternatives.

    Raises:
        ValueError: A header value holds a line break.
    """
    mail = EmailMessage()
    mail["From"] = message.sender
    mail["To"] = message.to
    mail["Subject"] = message.subject
    mail["Date"] = format_datetime(datetime.now(UTC))
    # An explicit domain: without one, make_msgid asks the resolver for this host's name.
    mail["Message-ID"] = make_msgid(domain=sender_domain(message.sender) or "localhost")
    mail.set_content(message.text)
    mail.add_alternative(message.html, subtype="html")
    mail["Content-Language"] = message.language  # after the bodies, which clear Content-*
    return mail
