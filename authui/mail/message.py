"""The sign-in email as authui hands it to a transport, what a transport reads of its
provider, and how a transport reports that a message was not sent."""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol


@dataclass(frozen=True, slots=True, kw_only=True)
class VerificationEmail:
    """One magic-link email, rendered and ready to send.

    Attributes:
        to: The recipient's normalised address.
        sender: The ``From`` address, e.g. ``"Acme <no-reply@acme.example>"``.
        subject: ``Sign in to <host>`` unless the theme says otherwise.
        text: The plain-text body.
        html: The HTML body.
        url: The sign-in link.
        host: The site's host, as shown in the email.
        expires: When the link stops working.
        language: The BCP 47 tag of the language it is written in (the request's):
            SMTP sends it as ``Content-Language``.
    """

    to: str
    sender: str
    subject: str
    text: str
    html: str
    url: str
    host: str
    expires: datetime
    language: str = "en"


class TransportSettings(Protocol):
    """What a transport reads of the email provider it sends for (an ``EmailProvider``)."""

    @property
    def id(self) -> str: ...

    @property
    def server(self) -> str | None: ...

    @property
    def api_key(self) -> str | None: ...

    @property
    def options(self) -> Mapping[str, Any]: ...


class DeliveryError(Exception):
    """The mail service refused the message or could not be reached. The message names the
    service, the status and the service's reason; never the API key or the link."""


class MailServiceUnavailable(DeliveryError):
    """The mail service could not be reached or is down (a refused or dropped connection,
    a timeout, a 5xx answer): an outage, answered with 503 and ``Retry-After`` rather than
    a sign-in error. Raise it from your own sender for the same answer."""


def tls_failure(exc: BaseException) -> bool:
    """Whether ``exc`` came from a TLS handshake or certificate check: a setting to fix
    (or someone in the way), not an outage, even where it surfaces as a connection error."""
    chain: list[BaseException] = []
    link: BaseException | None = exc
    while link is not None and link not in chain:
        chain.append(link)
        link = link.__cause__ or link.__context__
    return any(isinstance(e, ssl.SSLError) for e in chain)
