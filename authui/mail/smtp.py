"""Sending the sign-in email to an SMTP server, on aiosmtplib (``pip install 'authui[mail]'``).

The server is a URL:

- ``smtp://[user[:password]@]host[:port][?starttls=auto|required|never]``: a plain
  connection (default port 587) upgraded with STARTTLS. ``auto`` upgrades when the server
  offers it; ``required`` refuses to go on without it; ``never`` stays in clear text
  (a local relay). The default is ``required`` when the URL has a user name, so that a
  password is never sent in clear unless ``?starttls=never`` says so, and ``auto`` without.
- ``smtps://[user[:password]@]host[:port]``: TLS from the first byte (default port 465).

User name and password are percent-decoded (write ``@`` as ``%40``, ``:`` as ``%3A``).
Certificates are checked against the system's CAs; ``options={"tls_context": ctx}`` gives
an ``ssl.SSLContext`` of your own (a private CA, a client certificate).
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field
from typing import Any, Literal, cast, get_args
from urllib.parse import parse_qs, unquote, urlsplit

import aiosmtplib

from authui.mail.message import (
    DeliveryError,
    MailServiceUnavailable,
    TransportSettings,
    VerificationEmail,
    tls_failure,
)
from authui.mail.mime import build_message

StartTLS = Literal["auto", "required", "never"]
"""When an ``smtp://`` connection is upgraded with STARTTLS."""

SMTP_TIMEOUT = 15.0
"""Seconds to wait for the server at each step: a hung server must not hold a sign-in."""
SERVICE_NOT_AVAILABLE = 421
"""The SMTP reply of a server that is shutting down or overloaded (RFC 5321 §4.2.3)."""

_DEFAULT_PORTS = {"smtp": 587, "smtps": 465}
_STARTTLS_FLAG: dict[StartTLS, bool | None] = {"auto": None, "required": True, "never": False}
_REFUSALS: tuple[tuple[type[aiosmtplib.SMTPResponseException], str], ...] = (
    (aiosmtplib.SMTPAuthenticationError, "refused the login"),
    (aiosmtplib.SMTPSenderRefused, "refused the sender"),
    (aiosmtplib.SMTPRecipientRefused, "refused the recipient"),
    (aiosmtplib.SMTPDataError, "refused the message"),
)


@dataclass(frozen=True, slots=True)
class SmtpServer:
    """An SMTP server URL, read.

    Attributes:
        host: The server's host name or IP address.
        port: Its port.
        implicit_tls: ``smtps://``: TLS from the start.
        starttls: For ``smtp://``: when to upgrade with STARTTLS.
        username: The login's user name, decoded.
        password: Its password, decoded; kept out of ``repr``.
    """

    host: str
    port: int
    implicit_tls: bool
    starttls: StartTLS
    username: str | None = None
    password: str | None = field(default=None, repr=False)

    @classmethod
    def from_url(cls, url: str) -> SmtpServer:
        """Read ``smtp://…`` or ``smtps://…`` (see the module's description).

        Raises:
            ValueError: Not such a URL, or an unknown parameter. The message never
                repeats the URL, which may hold a password.
        """
        parts = urlsplit(url.strip())
        scheme = parts.scheme.lower()
        if scheme not in _DEFAULT_PORTS:
            raise ValueError("An SMTP server URL starts with smtp:// or smtps://")
        try:
            port = parts.port or _DEFAULT_PORTS[scheme]
        except ValueError:
            raise ValueError("The SMTP server URL has an invalid port") from None
        if not parts.hostname:
            raise ValueError("The SMTP server URL has no host")
        query = parse_qs(parts.query, keep_blank_values=True)
        unknown = sorted(set(query) - {"starttls"})
        if unknown:
            raise ValueError(f"Unknown SMTP server URL parameters: {unknown}")
        username = unquote(parts.username) if parts.username else None
        given = query.get("starttls", [None])[-1]
        if scheme == "smtps" and given is not None:
            raise ValueError("smtps:// is TLS from the start: ?starttls= is for smtp://")
        if given is not None and given not in get_args(StartTLS):
            raise ValueError(f"?starttls= must be one of {get_args(StartTLS)}")
        return cls(
            host=parts.hostname,
            port=port,
            implicit_tls=scheme == "smtps",
            starttls=cast(StartTLS, given or ("required" if username else "auto")),
            username=username,
            password=unquote(parts.password) if parts.password is not None else None,
        )

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"

    def connection(self) -> dict[str, Any]:
        """aiosmtplib's connection arguments for this server."""
        return {
            "hostname": self.host,
            "port": self.port,
            "use_tls": self.implicit_tls,
            "start_tls": False if self.implicit_tls else _STARTTLS_FLAG[self.starttls],
            "username": self.username,
            "password": self.password,
        }


async def smtp_transport(message: VerificationEmail, provider: TransportSettings) -> None:
    """Send ``message`` through the SMTP server ``provider.server``.

    Raises:
        MailServiceUnavailable: The server could not be reached (connection refused or
            dropped, a timeout) or answered 421 (not available).
        DeliveryError: No or a malformed server URL; the TLS handshake or the login
            failed, or the server refused the sender, the recipient or the message. The
            message names the server and its answer, never the password.
    """
    if not provider.server:
        raise DeliveryError(f"SMTP: the provider {provider.id!r} has no server URL")
    try:
        server = SmtpServer.from_url(provider.server)
    except ValueError as exc:
        raise DeliveryError(f"SMTP: {exc}") from None
    tls_context: ssl.SSLContext | None = provider.options.get("tls_context")
    try:
        await aiosmtplib.send(
            build_message(message),
            **server.connection(),
            tls_context=tls_context,
            timeout=SMTP_TIMEOUT,
        )
    except aiosmtplib.SMTPRecipientsRefused as exc:
        answers = "; ".join(f"{r.code} {r.message}" for r in exc.recipients)
        raise DeliveryError(f"SMTP server {server} refused the recipient: {answers}") from exc
    except aiosmtplib.SMTPResponseException as exc:
        what = next((text for kind, text in _REFUSALS if isinstance(exc, kind)), "answered")
        error = MailServiceUnavailable if exc.code == SERVICE_NOT_AVAILABLE else DeliveryError
        raise error(f"SMTP server {server} {what}: {exc.code} {exc.message}") from exc
    except (aiosmtplib.SMTPException, OSError) as exc:
        error = MailServiceUnavailable if _unreachable(exc) else DeliveryError
        raise error(f"SMTP server {server} failed: {exc}") from exc


def _unreachable(exc: Exception) -> bool:
    """A refused, dropped or timed-out connection (aiosmtplib's connection errors are
    ``ConnectionError``s, its timeouts ``TimeoutError``s): the server is down or out of
    reach. A TLS failure or a missing extension needs a change of settings instead."""
    return isinstance(exc, ConnectionError | TimeoutError) and not tls_failure(exc)
