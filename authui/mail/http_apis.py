"""Sending the sign-in email through a mail service's HTTP API: Resend, SendGrid, Postmark,
Mailgun, Forward Email and Loops.

Each transport makes one POST through the shared HTTP client, authenticated with the
provider's ``api_key``. ``options["base_url"]`` replaces the service's scheme and host (a
proxy, or a stand-in in tests). A non-2xx answer raises ``DeliveryError`` with the status
and the service's own error text; the API key and the sign-in link are blanked out of it.
No answer at all (the service unreachable, a timeout) or a 5xx answer is an outage:
``MailServiceUnavailable``.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from email.utils import parseaddr
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import httpx

from authui.env_names import provider_env_prefix
from authui.http_client import shared_client
from authui.mail.message import (
    DeliveryError,
    MailServiceUnavailable,
    TransportSettings,
    VerificationEmail,
    tls_failure,
)
from authui.mail.mime import sender_domain

RESEND_URL = "https://api.resend.com/emails"
SENDGRID_URL = "https://api.sendgrid.com/v3/mail/send"
POSTMARK_URL = "https://api.postmarkapp.com/email"
MAILGUN_HOSTS: Mapping[str, str] = {
    "US": "https://api.mailgun.net",
    "EU": "https://api.eu.mailgun.net",
}
"""Mailgun's API host for each region (``options["region"]``)."""
FORWARD_EMAIL_URL = "https://api.forwardemail.net/v1/emails"
LOOPS_URL = "https://app.loops.so/api/v1/transactional"

_REASON_LIMIT = 300
"""Characters of a service's error text kept in a ``DeliveryError``."""


def _common_fields(message: VerificationEmail) -> dict[str, str]:
    """``from``, ``to``, ``subject``, ``html``, ``text``: what Resend, Mailgun and Forward
    Email take."""
    return {
        "from": message.sender,
        "to": message.to,
        "subject": message.subject,
        "html": message.html,
        "text": message.text,
    }


async def resend_transport(message: VerificationEmail, provider: TransportSettings) -> None:
    """POST the message to Resend's ``/emails``, with the key as bearer token."""
    key = _api_key("Resend", provider)
    body = _common_fields(message)
    await _post("Resend", RESEND_URL, message, provider, headers=_bearer(key), json=body)


async def sendgrid_transport(message: VerificationEmail, provider: TransportSettings) -> None:
    """POST the message to SendGrid's ``/v3/mail/send``, with the key as bearer token."""
    key = _api_key("SendGrid", provider)
    body = {
        "personalizations": [{"to": [{"email": message.to}]}],
        "from": _sendgrid_address(message.sender),
        "subject": message.subject,
        "content": [
            {"type": "text/plain", "value": message.text},
            {"type": "text/html", "value": message.html},
        ],
    }
    await _post("SendGrid", SENDGRID_URL, message, provider, headers=_bearer(key), json=body)


async def postmark_transport(message: VerificationEmail, provider: TransportSettings) -> None:
    """POST the message to Postmark's ``/email`` on the ``outbound`` stream, with the key as
    the server token."""
    key = _api_key("Postmark", provider)
    body = {
        "From": message.sender,
        "To": message.to,
        "Subject": message.subject,
        "TextBody": message.text,
        "HtmlBody": message.html,
        "MessageStream": "outbound",
    }
    headers = {"X-Postmark-Server-Token": key}
    await _post("Postmark", POSTMARK_URL, message, provider, headers=headers, json=body)


async def mailgun_transport(message: VerificationEmail, provider: TransportSettings) -> None:
    """POST the message as form fields to Mailgun's ``/v3/<domain>/messages``, with HTTP
    Basic ``api:<key>``.

    The domain is ``options["domain"]``, else the sender's; the host is the one of
    ``options["region"]`` (``"US"``, the default, or ``"EU"``).
    """
    key = _api_key("Mailgun", provider)
    region = provider.options.get("region", "US")
    if region not in MAILGUN_HOSTS:
        raise DeliveryError(f"Mailgun: region must be one of {sorted(MAILGUN_HOSTS)}")
    domain = provider.options.get("domain") or sender_domain(message.sender)
    if not domain:
        raise DeliveryError(
            f"Mailgun: the sender {message.sender!r} has no domain to send from; "
            "give a sender address on your Mailgun domain"
        )
    url = f"{MAILGUN_HOSTS[region]}/v3/{quote(domain, safe='')}/messages"
    form = _common_fields(message)
    await _post("Mailgun", url, message, provider, headers=_basic("api", key), data=form)


async def forwardemail_transport(message: VerificationEmail, provider: TransportSettings) -> None:
    """POST the message to Forward Email's ``/v1/emails``, with HTTP Basic ``<key>:``."""
    key = _api_key("Forward Email", provider)
    body = _common_fields(message)
    await _post(
        "Forward Email", FORWARD_EMAIL_URL, message, provider, headers=_basic(key, ""), json=body
    )


async def loops_transport(message: VerificationEmail, provider: TransportSettings) -> None:
    """Ask Loops to send its transactional email ``options["transactional_id"]`` to the
    address, with the link as the data variable ``url``. The template, sender and subject
    are the ones set up at Loops: this message's own texts are not used."""
    key = _api_key("Loops", provider)
    transactional_id = provider.options.get("transactional_id")
    if not transactional_id:
        raise DeliveryError("Loops: options['transactional_id'] is not set")
    body = {
        "transactionalId": transactional_id,
        "email": message.to,
        "dataVariables": {"url": message.url},
    }
    await _post("Loops", LOOPS_URL, message, provider, headers=_bearer(key), json=body)


def _api_key(service: str, provider: TransportSettings) -> str:
    if not provider.api_key:
        raise DeliveryError(
            f"{service}: no API key; set {provider_env_prefix(provider.id)}KEY "
            "or give the provider api_key="
        )
    return provider.api_key


def _bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _basic(user: str, password: str) -> dict[str, str]:
    token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
    return {"Authorization": f"Basic {token}"}


def _sendgrid_address(sender: str) -> dict[str, str]:
    """SendGrid wants the name and the address apart."""
    name, address = parseaddr(sender)
    return {"email": address, "name": name} if name else {"email": address}


async def _post(
    service: str,
    url: str,
    message: VerificationEmail,
    provider: TransportSettings,
    *,
    headers: Mapping[str, str],
    json: Any = None,
    data: Mapping[str, str] | None = None,
) -> None:
    base = provider.options.get("base_url")
    if base:
        url = base.rstrip("/") + urlsplit(url).path
    try:
        answer = await shared_client().post(
            url,
            headers={"Accept": "application/json", **headers},
            json=json,
            data=data,
        )
    except httpx.HTTPError as exc:
        error = MailServiceUnavailable if _unreachable(exc) else DeliveryError
        raise error(f"{service} could not be reached: {type(exc).__name__}") from exc
    if not answer.is_success:
        hidden = [provider.api_key or "", message.url, *_link_tokens(message.url)]
        reason = _blanked(_service_reason(answer), hidden)[:_REASON_LIMIT]
        error = MailServiceUnavailable if answer.is_server_error else DeliveryError
        raise error(f"{service} refused the message: HTTP {answer.status_code}: {reason}")


def _unreachable(exc: httpx.HTTPError) -> bool:
    """No answer: the connection failed or dropped, or timed out (an outage), as opposed
    to a TLS failure or a URL httpx cannot use, which need a change of settings."""
    outage = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)
    return isinstance(exc, outage) and not tls_failure(exc)


def _service_reason(answer: httpx.Response) -> str:
    """The error text of the answer's JSON body (``message``, ``Message``, ``error``,
    ``errors[].message``), else its text, else the status phrase."""
    try:
        body = answer.json()
    except ValueError:
        body = None
    reason = _json_reason(body) if isinstance(body, dict) else None
    return reason or " ".join(answer.text.split()) or answer.reason_phrase


def _json_reason(body: Mapping[str, Any]) -> str | None:
    for key in ("message", "Message", "error"):
        value = body.get(key)
        if isinstance(value, str) and value:
            return value
    errors = body.get("errors")
    if isinstance(errors, list):
        texts = [e.get("message") if isinstance(e, Mapping) else e for e in errors]
        return "; ".join(t for t in texts if isinstance(t, str) and t) or None
    return None


def _link_tokens(url: str) -> list[str]:
    return parse_qs(urlsplit(url).query).get("token", [])


def _blanked(text: str, hidden: list[str]) -> str:
    """``text`` with every non-empty string of ``hidden`` replaced, longest first."""
    for value in sorted(filter(None, hidden), key=len, reverse=True):
        text = text.replace(value, "[hidden]")
    return text
