"""Stand-ins for the mail services: an HTTP server that records requests and answers as
told, and an aiosmtpd SMTP server (plain, STARTTLS, implicit TLS, AUTH) that keeps what
it receives. Both listen on 127.0.0.1, on a port the system picks."""

from __future__ import annotations

import asyncio
import datetime
import email
import email.policy
import ipaddress
import json
import ssl
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from authui.http_client import shared_client
from authui.mail.message import VerificationEmail

TOKEN = "5f0c" * 16
LINK = (
    "http://localhost:5000/auth/callback/email?callbackUrl=http%3A%2F%2Flocalhost%3A5000%2F"
    f"&token={TOKEN}&email=ada%40example.com"
)
MESSAGE = VerificationEmail(
    to="ada@example.com",
    sender="Acme Login <login@mg.acme.example>",
    subject="Sign in to localhost:5000",
    text=f"Sign in to localhost:5000\n{LINK}\n\n",
    html=f'<p>Sign in</p><a href="{LINK}">Sign in</a>',
    url=LINK,
    host="localhost:5000",
    expires=datetime.datetime(2030, 1, 2, 3, 4, 5, tzinfo=datetime.UTC),
)
"""A rendered sign-in email; its link is long enough to be folded in the MIME text."""


@pytest.fixture(autouse=True)
async def _close_shared_client() -> AsyncIterator[None]:
    """Each test has its own event loop, hence its own shared client: close it with the test."""
    yield
    await shared_client().aclose()


# --- HTTP ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Received:
    """One request the stand-in got."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def form(self) -> dict[str, list[str]]:
        return parse_qs(self.body.decode(), strict_parsing=True)


@dataclass
class Answer:
    status: int = 200
    body: bytes = b'{"id": "sent"}'
    content_type: str = "application/json"


class ApiStandIn(ThreadingHTTPServer):
    """Records every request and answers each with ``answer``."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[Received] = []
        self.answer = Answer()

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def reply(self, status: int, body: Any, content_type: str = "application/json") -> None:
        """Answer from now on with ``status`` and ``body`` (JSON unless bytes)."""
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.answer = Answer(status, raw, content_type)

    def only_request(self) -> Received:
        assert len(self.requests) == 1, self.requests
        return self.requests[0]


class _Handler(BaseHTTPRequestHandler):
    server: ApiStandIn

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        headers = {name.lower(): value for name, value in self.headers.items()}
        self.server.requests.append(Received(self.command, self.path, headers, body))
        answer = self.server.answer
        self.send_response(answer.status)
        self.send_header("Content-Type", answer.content_type)
        self.send_header("Content-Length", str(len(answer.body)))
        self.end_headers()
        self.wfile.write(answer.body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


@pytest.fixture
def api() -> Iterator[ApiStandIn]:
    server = ApiStandIn()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01})
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


# --- SMTP ---------------------------------------------------------------------------------

USERNAME = "login@acme.example"
PASSWORD = "p@ss w:rd/42"
"""The login the AUTH stand-in accepts: both need percent-encoding in a URL."""


@dataclass(frozen=True, slots=True)
class Delivered:
    """One message the SMTP stand-in accepted."""

    mail_from: str
    rcpt_tos: list[str]
    tls: bool
    content: bytes

    def parsed(self) -> EmailMessage:
        """The message, its line ends made ``\\n`` as a mail client stores them."""
        raw = self.content.replace(b"\r\n", b"\n")
        return email.message_from_bytes(raw, policy=email.policy.default)


@dataclass
class Mailbox:
    """The SMTP stand-in's handler: refuses ``nobody@…``, keeps the rest; checks logins."""

    delivered: list[Delivered] = field(default_factory=list)
    logins: list[tuple[str, str]] = field(default_factory=list)
    port: int = 0

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: Any
    ) -> str:
        if address.startswith("nobody@"):
            return "550 5.1.1 No such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        assert server.transport is not None
        tls = server.transport.get_extra_info("ssl_object") is not None
        assert envelope.mail_from is not None
        assert isinstance(envelope.original_content, bytes)
        self.delivered.append(
            Delivered(envelope.mail_from, list(envelope.rcpt_tos), tls, envelope.original_content)
        )
        return "250 Message accepted for delivery"

    def authenticate(
        self, server: SMTP, session: Session, envelope: Envelope, mechanism: str, data: Any
    ) -> AuthResult:
        assert isinstance(data, LoginPassword)
        self.logins.append((mechanism, data.login.decode()))
        good = data.login.decode() == USERNAME and data.password.decode() == PASSWORD
        return AuthResult(success=good, handled=False)

    def only_message(self) -> Delivered:
        assert len(self.delivered) == 1, self.delivered
        return self.delivered[0]


class _FreePortController(Controller):
    """aiosmtpd's controller, listening on a port the system picks (the controller's own
    start-up check connects to ``self.port``, which is set as soon as the port is known)."""

    def _create_server(self) -> Awaitable[asyncio.AbstractServer]:
        return self._listen()

    async def _listen(self) -> asyncio.AbstractServer:
        server = await self.loop.create_server(
            self._factory_invoker, host=self.hostname, port=0, ssl=self.ssl_context
        )
        self.port = server.sockets[0].getsockname()[1]
        return server


StartSmtp = Callable[..., Mailbox]
"""``start_smtp(**Controller keyword arguments)`` → the running stand-in's mailbox."""


@pytest.fixture
def start_smtp() -> Iterator[StartSmtp]:
    controllers: list[Controller] = []

    def start(*, auth: bool = False, **settings: Any) -> Mailbox:
        mailbox = Mailbox()
        if auth:
            settings.update(authenticator=mailbox.authenticate, auth_required=True)
        controller = _FreePortController(
            mailbox, hostname="127.0.0.1", port=0, server_hostname="smtp.test", **settings
        )
        controller.start()
        controllers.append(controller)
        mailbox.port = controller.port
        return mailbox

    yield start
    for controller in controllers:
        controller.stop()


@dataclass(frozen=True, slots=True)
class Certificate:
    """A self-signed certificate for 127.0.0.1, its key, and the contexts that use them."""

    cert_file: Path
    key_file: Path
    pem: str

    def server_context(self) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert_file, self.key_file)
        return context

    def client_context(self) -> ssl.SSLContext:
        """Trusts this certificate only."""
        return ssl.create_default_context(cadata=self.pem)


@pytest.fixture(scope="session")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Certificate:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "authui test SMTP")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    folder = tmp_path_factory.mktemp("smtp-tls")
    pem = cert.public_bytes(serialization.Encoding.PEM).decode()
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_text(pem)
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return Certificate(cert_file, key_file, pem)
