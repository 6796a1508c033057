"""Magic-link sign-in: a link sent by email; following it signs the user in.

``EmailProvider`` holds what every email provider has (sender address, link lifetime,
token and address handling); ``transport`` says how its messages go out. The built-in
factories (``Email``/``Nodemailer`` for SMTP, ``Resend``, ``SendGrid``, ``Postmark``,
``Mailgun``, ``ForwardEmail``, ``Loops``, ``ConsoleEmail``) fill it in.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from authui.mail.limits import SendLimits
from authui.providers.base import Provider

if TYPE_CHECKING:
    from authui.mail.message import VerificationEmail

Transport = Callable[["VerificationEmail", "EmailProvider"], Awaitable[None]]
"""Sends one message for a provider (which carries the server URL, API key and options);
raises when the message was not accepted."""

SendVerificationRequest = Callable[..., Awaitable[None] | None]
"""Your own sender, called with keyword arguments ``identifier``, ``url``, ``expires``,
``token``, ``provider``, ``theme``, ``request`` and ``message`` (the rendered
``VerificationEmail``); raise to report that the email was not sent."""

DEFAULT_MAX_AGE = 24 * 60 * 60
"""How long a sign-in link works: 24 hours."""


@dataclass(frozen=True, slots=True, kw_only=True)
class EmailProvider(Provider):
    """Sign-in by a link sent to the user's email address.

    Attributes:
        sender: The ``From`` address of the emails.
        max_age: Seconds a link stays valid.
        transport: How the message is sent (the factories choose one).
        send_verification_request: Your own sender; replaces ``transport``.
        server: The SMTP server as a URL (``smtp://``, ``smtps://``), for SMTP transports.
        api_key: The mail API's key (``AUTH_<ID>_KEY``), for HTTP transports.
        generate_verification_token: Makes the secret part of a link; default 32 random
            bytes as 64 hex characters.
        normalize_identifier: Turns what the user typed into the address to use; the
            default is ``authui.mail.addresses.normalize_email``.
        secret: The secret the stored token is hashed with; the configuration's first
            secret by default.
        limits: How many links an address or a client may ask for; ``None`` for no
            limit (not recommended: anyone could flood an inbox).
        one_click: Following the link signs in at once, as in Auth.js. By default
            (``False``) the link opens a page whose button signs in: mail scanners and
            link previewers, which open every link in an email, spend nothing.
        options: Transport settings: ``base_url`` (the API's address), ``region``
            (Mailgun ``"US"``/``"EU"``), ``transactional_id`` (Loops) …
    """

    id: str = "email"
    name: str = "Email"
    type: Literal["email"] = "email"
    sender: str = "authui <no-reply@localhost>"
    max_age: int = DEFAULT_MAX_AGE
    transport: Transport | None = None
    send_verification_request: SendVerificationRequest | None = None
    server: str | None = None
    api_key: str | None = None
    generate_verification_token: Callable[[], str] | None = None
    normalize_identifier: Callable[[str], str] | None = None
    secret: str | None = None
    limits: SendLimits | None = field(default_factory=SendLimits)
    one_click: bool = False
    options: Mapping[str, Any] = field(default_factory=dict)
