"""Magic-link sign-in through a real SMTP server: an in-process aiosmtpd sink that keeps
every message it accepts, demo variants that send their links through it, and the
database look-ups the email tests need.

The sink (:func:`smtp_sink`) is aiosmtpd's threaded ``Controller`` on ``127.0.0.1`` and a
pre-bound free port (the socket is made here and handed to the server, as
:func:`tests.peers.servers.asgi_servers` does for the demo), speaking plain SMTP; the
demo reaches it at ``smtp://127.0.0.1:<port>?starttls=never``. Messages are parsed with
``email.policy.default`` (never searched as raw bytes: long lines are quoted-printable), and
:func:`read_sign_in_email` takes the link out of both the plain-text and the HTML body.

Demo variants (:func:`email_demo`) run ``demo.app`` in hypercorn with ``AUTH_EMAIL_SERVER``
pointing at the sink, a fixed ``AUTH_EMAIL_FROM``, a secret of their own and the database
they are given: a SQLite file (:func:`sqlite_database`), or a PostgreSQL database of their
own (``tests.peers.databases.fresh_postgres_database``: created, given authui's tables as
``authui db init`` would, and dropped afterwards; the demo reads only ``AUTH_DATABASE_URL``,
which cannot select a PostgreSQL schema, so a schema of our own is not an option).
"""

from __future__ import annotations

import asyncio
import contextlib
import email
import email.policy
import hashlib
import os
import re
import secrets
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage
from email.utils import parseaddr
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session
from sqlalchemy import select, update

from authui.adapters.sqlalchemy import SQLAlchemyAdapter
from tests.e2e.conftest import DEMO_APP
from tests.peers.servers import asgi_servers

SENDER = "authui e2e <signin@authui.test>"
"""The demo variants' ``AUTH_EMAIL_FROM``."""
WAIT_SECONDS = 5.0
"""How long to wait for a message the demo should have sent (it sends before it answers,
so the message is normally there already)."""


# --- the SMTP sink ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Received:
    """One message the sink accepted."""

    mail_from: str
    """The envelope sender (``MAIL FROM``)."""
    rcpt_tos: tuple[str, ...]
    """The envelope recipients (``RCPT TO``)."""
    message: EmailMessage
    """The message, parsed with ``email.policy.default``."""


class Mailbox:
    """aiosmtpd's handler: accepts every message and keeps it (thread-safe: the server runs
    in a thread of its own)."""

    def __init__(self) -> None:
        self._received: list[Received] = []
        self._lock = threading.Lock()

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or envelope.content
        assert isinstance(raw, bytes), type(raw)
        message = email.message_from_bytes(raw, policy=email.policy.default)
        received = Received(
            mail_from=str(envelope.mail_from),
            rcpt_tos=tuple(envelope.rcpt_tos),
            message=message,
        )
        with self._lock:
            self._received.append(received)
        return "250 Message accepted for delivery"

    def all(self) -> list[Received]:
        """Every message so far, oldest first."""
        with self._lock:
            return list(self._received)

    def to(self, address: str) -> list[Received]:
        """The messages whose envelope names ``address`` as a recipient, oldest first."""
        return [r for r in self.all() if address in r.rcpt_tos]

    async def wait_for(self, address: str, count: int = 1) -> Received:
        """The ``count``-th message to ``address``, once it is there (at most
        ``WAIT_SECONDS``)."""
        deadline = time.monotonic() + WAIT_SECONDS
        while len(found := self.to(address)) < count:
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"no message {count} to {address} reached the SMTP server; it holds "
                    f"{[(r.rcpt_tos, r.message['Subject']) for r in self.all()]}"
                )
            await asyncio.sleep(0.02)
        return found[count - 1]


class _PreBoundController(Controller):
    """aiosmtpd's ``Controller`` on a socket that is already bound and listening, so that
    its free port is ours from the start (``port=0`` would not work: ``Controller`` checks
    that the server is up by connecting to ``hostname:port``)."""

    def __init__(self, handler: Mailbox, listener: socket.socket, **kwargs: Any) -> None:
        host, port = listener.getsockname()[:2]
        super().__init__(handler, hostname=host, port=port, **kwargs)
        self._listener = listener

    def _create_server(self) -> Any:
        return self.loop.create_server(self._factory_invoker, sock=self._listener)


@dataclass(frozen=True)
class SmtpSink:
    """A running sink: its mailbox and its address."""

    mailbox: Mailbox
    port: int

    @property
    def url(self) -> str:
        """The ``AUTH_EMAIL_SERVER`` value that reaches it (plain SMTP, no STARTTLS)."""
        return f"smtp://127.0.0.1:{self.port}?starttls=never"


@contextlib.contextmanager
def smtp_sink() -> Iterator[SmtpSink]:
    """An aiosmtpd server on 127.0.0.1 and a free port, keeping what it receives; stopped
    on exit."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(128)
        mailbox = Mailbox()
        # server_hostname: without one, aiosmtpd asks the resolver for this host's FQDN.
        controller = _PreBoundController(mailbox, listener, server_hostname="localhost")
        controller.start()
        try:
            yield SmtpSink(mailbox, listener.getsockname()[1])
        finally:
            controller.stop()


# --- the sign-in email ------------------------------------------------------------------------


class _Links(HTMLParser):
    """The ``href`` of every ``<a>`` in an HTML document, unescaped."""

    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.hrefs += [value for name, value in attrs if name == "href" and value]


@dataclass(frozen=True)
class SignInEmail:
    """A sign-in email, read."""

    to: str
    sender: str
    subject: str
    link: str
    """The sign-in link; the plain-text and the HTML body carry this same one."""
    text: str
    """The plain-text body."""

    @property
    def token(self) -> str:
        return parse_qs(urlsplit(self.link).query)["token"][0]


def read_sign_in_email(received: Received) -> SignInEmail:
    """The headers and the link of a sign-in email; fails unless it has a plain-text and an
    HTML body that each carry exactly one link, the same one."""
    message = received.message
    plain, html = message.get_body(("plain",)), message.get_body(("html",))
    assert plain is not None, f"no text/plain body: {message.get_content_type()}"
    assert html is not None, f"no text/html body: {message.get_content_type()}"
    assert isinstance(plain, EmailMessage)
    assert isinstance(html, EmailMessage)
    text = plain.get_content()
    text_links = re.findall(r"https?://\S+", text)
    parser = _Links()
    parser.feed(html.get_content())
    parser.close()
    assert len(text_links) == 1, f"the plain-text body has links {text_links}:\n{text}"
    assert len(parser.hrefs) == 1, f"the HTML body has links {parser.hrefs}"
    assert text_links == parser.hrefs, (text_links, parser.hrefs)
    return SignInEmail(
        to=str(message["To"]),
        sender=str(message["From"]),
        subject=str(message["Subject"]),
        link=text_links[0],
        text=text,
    )


def bare_address(header: str) -> str:
    return parseaddr(header)[1]


def with_origin(url: str, origin: str) -> str:
    """``url`` with its scheme and host:port replaced by ``origin``'s."""
    target = urlsplit(origin)
    return urlunsplit(urlsplit(url)._replace(scheme=target.scheme, netloc=target.netloc))


def token_hash(token: str, secret: str) -> str:
    """What the adapter stores for a link's token: ``sha256hex(token + secret)``."""
    return hashlib.sha256((token + secret).encode()).hexdigest()


# --- demo variants ----------------------------------------------------------------------------


@dataclass(frozen=True)
class EmailDemo:
    """Running demo processes that send their links through the sink, on one database."""

    urls: tuple[str, ...]
    """``http://127.0.0.1:<port>`` of each process."""
    database_url: str
    """Their ``AUTH_DATABASE_URL``."""
    secret: str
    """Their ``AUTH_SECRET`` (tokens are stored hashed with it)."""
    sink: SmtpSink

    @property
    def url(self) -> str:
        return self.urls[0]

    @property
    def mailbox(self) -> Mailbox:
        return self.sink.mailbox


@contextlib.contextmanager
def email_demo(sink: SmtpSink, database_url: str, processes: int = 1) -> Iterator[EmailDemo]:
    """``processes`` demo processes (one environment: secret, database, SMTP server),
    running until exit. The caller's ``AUTH_*`` settings are left out: they could turn on
    other providers or another session strategy."""
    secret = secrets.token_urlsafe(32)
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTH_")} | {
        "AUTH_SECRET": secret,
        "AUTH_DATABASE_URL": database_url,
        "AUTH_EMAIL_SERVER": sink.url,
        "AUTH_EMAIL_FROM": SENDER,
    }
    with asgi_servers(DEMO_APP, processes, env) as urls:
        yield EmailDemo(tuple(urls), database_url, secret, sink)


@contextlib.contextmanager
def sqlite_database() -> Iterator[str]:
    """The URL of a new SQLite file (the demo makes its tables on first use)."""
    with tempfile.TemporaryDirectory(prefix="authui-email-demo-") as folder:
        yield f"sqlite+aiosqlite:///{Path(folder) / 'demo.db'}"


# --- the demo's stored tokens -----------------------------------------------------------------


async def stored_tokens(database_url: str, identifier: str) -> list[tuple[str, datetime]]:
    """The ``(token, expires)`` rows of ``verification_token`` for ``identifier``."""
    async with SQLAlchemyAdapter(database_url) as adapter:
        table = adapter.tables.verification_tokens
        async with adapter.engine.connect() as conn:
            rows = await conn.execute(
                select(table.c.token, table.c.expires).where(table.c.identifier == identifier)
            )
            return [(row.token, row.expires) for row in rows]


async def set_token_expiry(database_url: str, identifier: str, expires: datetime) -> int:
    """Set ``expires`` of every stored token of ``identifier``; how many rows changed."""
    async with SQLAlchemyAdapter(database_url) as adapter:
        table = adapter.tables.verification_tokens
        async with adapter.engine.begin() as conn:
            changed = await conn.execute(
                update(table).where(table.c.identifier == identifier).values(expires=expires)
            )
            return int(changed.rowcount)
