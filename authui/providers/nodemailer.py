"""Email and Nodemailer: sign-in links sent through an SMTP server.

``Email(server=…)`` (id ``email``) and ``Nodemailer(server=…)`` (id ``nodemailer``) are the
same provider under Auth.js's two names. ``server`` is a URL, e.g.
``smtps://login%40acme.example:PASSWORD@smtp.example.com`` or
``smtp://user:PASSWORD@smtp.example.com:587`` (STARTTLS); ``authui.mail.smtp`` describes
the URL. Keep it in an environment variable of your own (``EMAIL_SERVER``) and pass it
in: authui reads no environment variable for it. Needs ``pip install 'authui[mail]'``.

At the mail service, create SMTP credentials and allow the sender address (or its
domain: SPF, DKIM) to send.
"""

from __future__ import annotations

from typing import Any

from authui.mail.smtp import SmtpServer, smtp_transport
from authui.providers.email import EmailProvider
from authui.providers.email_factory import email_provider


def Email(*, server: str, **overrides: Any) -> EmailProvider:
    """Sign in with a link sent over SMTP; id ``email``.

    Args:
        server: The SMTP server's URL (``smtp://…`` or ``smtps://…``).
        **overrides: Any ``EmailProvider`` field, e.g. ``sender="Acme <login@acme.example>"``
            or ``options={"tls_context": ssl_context}``.

    Raises:
        TypeError: ``server`` is missing or empty.
        ValueError: ``server`` is not an SMTP URL.
    """
    return _smtp_provider("email", "Email", server, overrides)


def Nodemailer(*, server: str, **overrides: Any) -> EmailProvider:
    """``Email`` under the id ``nodemailer`` and the name "Nodemailer", as in Auth.js."""
    return _smtp_provider("nodemailer", "Nodemailer", server, overrides)


def _smtp_provider(id: str, name: str, server: str, overrides: dict[str, Any]) -> EmailProvider:
    if not server:
        raise TypeError(f"{name} requires a `server`: an SMTP URL such as smtps://host")
    SmtpServer.from_url(server)  # a malformed URL fails now, not at the first sign-in
    defaults = {"id": id, "name": name, "server": server, "transport": smtp_transport}
    return email_provider(defaults, overrides)
