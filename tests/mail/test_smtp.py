"""SMTP: the message an aiosmtpd server receives, over plain, STARTTLS and implicit TLS
connections, with and without a login; the server URL; refusals."""

from __future__ import annotations

import dataclasses
import re
import socket
from email.utils import parsedate_to_datetime
from typing import Any

import pytest

from authui.mail.message import DeliveryError
from authui.mail.mime import sender_domain
from authui.mail.smtp import SmtpServer
from authui.providers.nodemailer import Email
from tests.mail.conftest import MESSAGE, PASSWORD, USERNAME, Certificate, StartSmtp

LOGIN = "login%40acme.example:p%40ss%20w%3Ard%2F42"
"""``USERNAME:PASSWORD`` as a URL writes them."""


async def send(server: str, certificate: Certificate | None = None, to: str = MESSAGE.to) -> None:
    options: dict[str, Any] = {"tls_context": certificate.client_context()} if certificate else {}
    provider = Email(server=server, options=options)
    assert provider.transport is not None
    await provider.transport(dataclasses.replace(MESSAGE, to=to), provider)


async def test_plain_message(start_smtp: StartSmtp) -> None:
    mailbox = start_smtp()

    await send(f"smtp://127.0.0.1:{mailbox.port}?starttls=never")

    delivered = mailbox.only_message()
    assert (delivered.mail_from, delivered.rcpt_tos) == ("login@mg.acme.example", [MESSAGE.to])
    assert delivered.tls is False
    mail = delivered.parsed()
    assert mail["From"] == "Acme Login <login@mg.acme.example>"
    assert mail["To"] == "ada@example.com"
    assert mail["Subject"] == "Sign in to localhost:5000"
    assert parsedate_to_datetime(mail["Date"]).utcoffset() is not None
    assert mail["Message-ID"].endswith("@mg.acme.example>")
    assert mail["Content-Language"] == "en"
    assert mail.get_content_type() == "multipart/alternative"
    text, html = mail.get_body(("plain",)), mail.get_body(("html",))
    assert text is not None
    assert html is not None
    assert text.get_content() == MESSAGE.text
    assert html.get_content().rstrip("\n") == MESSAGE.html


async def test_starttls_when_offered(start_smtp: StartSmtp, certificate: Certificate) -> None:
    mailbox = start_smtp(tls_context=certificate.server_context(), require_starttls=True)

    await send(f"smtp://127.0.0.1:{mailbox.port}", certificate)

    assert mailbox.only_message().tls is True


async def test_starttls_never(start_smtp: StartSmtp, certificate: Certificate) -> None:
    mailbox = start_smtp(tls_context=certificate.server_context(), require_starttls=True)

    with pytest.raises(DeliveryError) as caught:
        await send(f"smtp://127.0.0.1:{mailbox.port}?starttls=never", certificate)

    assert str(caught.value) == (
        f"SMTP server 127.0.0.1:{mailbox.port} refused the sender: "
        "530 Must issue a STARTTLS command first"
    )


@pytest.mark.parametrize(
    "login", ["", f"{LOGIN}@"], ids=["starttls=required", "a login requires STARTTLS"]
)
async def test_no_starttls_offered(start_smtp: StartSmtp, login: str) -> None:
    mailbox = start_smtp()
    query = "?starttls=required" if not login else ""

    with pytest.raises(DeliveryError) as caught:
        await send(f"smtp://{login}127.0.0.1:{mailbox.port}{query}")

    assert str(caught.value) == (
        f"SMTP server 127.0.0.1:{mailbox.port} failed: "
        "SMTP STARTTLS extension not supported by server."
    )
    assert mailbox.delivered == []


async def test_implicit_tls(start_smtp: StartSmtp, certificate: Certificate) -> None:
    mailbox = start_smtp(ssl_context=certificate.server_context())

    await send(f"smtps://127.0.0.1:{mailbox.port}", certificate)

    assert mailbox.only_message().tls is True


async def test_certificates_are_checked(start_smtp: StartSmtp, certificate: Certificate) -> None:
    mailbox = start_smtp(ssl_context=certificate.server_context())

    with pytest.raises(DeliveryError, match="CERTIFICATE_VERIFY_FAILED"):
        await send(f"smtps://127.0.0.1:{mailbox.port}")

    assert mailbox.delivered == []


@pytest.mark.parametrize(("mechanism", "excluded"), [("PLAIN", "LOGIN"), ("LOGIN", "PLAIN")])
async def test_login(
    start_smtp: StartSmtp, certificate: Certificate, mechanism: str, excluded: str
) -> None:
    mailbox = start_smtp(
        auth=True, tls_context=certificate.server_context(), auth_exclude_mechanism=[excluded]
    )

    await send(f"smtp://{LOGIN}@127.0.0.1:{mailbox.port}", certificate)

    assert mailbox.logins == [(mechanism, USERNAME)]
    assert mailbox.only_message().tls is True


async def test_wrong_password(start_smtp: StartSmtp, certificate: Certificate) -> None:
    mailbox = start_smtp(auth=True, tls_context=certificate.server_context())

    with pytest.raises(DeliveryError) as caught:
        await send(f"smtp://login%40acme.example:wrong-Pa55@127.0.0.1:{mailbox.port}", certificate)

    assert str(caught.value) == (
        f"SMTP server 127.0.0.1:{mailbox.port} refused the login: "
        "535 5.7.8 Authentication credentials invalid"
    )
    assert "wrong-Pa55" not in repr(caught.value.__cause__)
    assert mailbox.delivered == []


@pytest.mark.filterwarnings(
    "ignore:Requiring AUTH while not requiring TLS can lead to security vulnerabilities!"
    ":UserWarning"
)
async def test_login_in_clear_text_when_asked(start_smtp: StartSmtp) -> None:
    mailbox = start_smtp(auth=True, auth_require_tls=False)

    await send(f"smtp://{LOGIN}@127.0.0.1:{mailbox.port}?starttls=never")

    assert [user for _, user in mailbox.logins] == [USERNAME]
    assert mailbox.only_message().tls is False


async def test_refused_recipient(start_smtp: StartSmtp) -> None:
    mailbox = start_smtp()

    with pytest.raises(DeliveryError) as caught:
        await send(f"smtp://127.0.0.1:{mailbox.port}?starttls=never", to="nobody@example.com")

    assert str(caught.value) == (
        f"SMTP server 127.0.0.1:{mailbox.port} refused the recipient: 550 5.1.1 No such user here"
    )


async def test_server_unreachable() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    with pytest.raises(DeliveryError, match=rf"^SMTP server 127\.0\.0\.1:{port} failed: "):
        await send(f"smtp://127.0.0.1:{port}?starttls=never")


@pytest.mark.parametrize(
    ("server", "error"),
    [
        (None, "SMTP: the provider 'email' has no server URL"),
        ("http://mail.example", "SMTP: An SMTP server URL starts with smtp:// or smtps://"),
    ],
)
async def test_provider_without_a_usable_server(server: str | None, error: str) -> None:
    provider = dataclasses.replace(Email(server="smtp://mail.example"), server=server)
    assert provider.transport is not None

    with pytest.raises(DeliveryError) as caught:
        await provider.transport(MESSAGE, provider)

    assert str(caught.value) == error


# --- The server URL -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("smtp://mail.example", SmtpServer("mail.example", 587, False, "auto")),
        ("SMTP://Mail.Example:2525", SmtpServer("mail.example", 2525, False, "auto")),
        ("smtps://mail.example", SmtpServer("mail.example", 465, True, "auto")),
        ("smtp://[::1]:25?starttls=never", SmtpServer("::1", 25, False, "never")),
        (
            "smtp://mail.example?starttls=required",
            SmtpServer("mail.example", 587, False, "required"),
        ),
        (
            f"smtp://{LOGIN}@mail.example",
            SmtpServer("mail.example", 587, False, "required", USERNAME, PASSWORD),
        ),
        (
            f"smtp://{LOGIN}@mail.example?starttls=auto",
            SmtpServer("mail.example", 587, False, "auto", USERNAME, PASSWORD),
        ),
        (
            "smtps://apikey:@mail.example",
            SmtpServer("mail.example", 465, True, "required", "apikey", ""),
        ),
    ],
)
def test_server_url(url: str, expected: SmtpServer) -> None:
    assert SmtpServer.from_url(url) == expected


def test_server_connection_arguments() -> None:
    assert SmtpServer.from_url(f"smtps://{LOGIN}@mail.example").connection() == {
        "hostname": "mail.example",
        "port": 465,
        "use_tls": True,
        "start_tls": False,
        "username": USERNAME,
        "password": PASSWORD,
    }
    flags = [
        SmtpServer.from_url(f"smtp://h?starttls={m}").connection()["start_tls"]
        for m in ("auto", "required", "never")
    ]
    assert flags == [None, True, False]


@pytest.mark.parametrize(
    ("url", "error"),
    [
        ("mail.example:587", "An SMTP server URL starts with smtp:// or smtps://"),
        (f"smtp://{LOGIN}@mail.example:port", "The SMTP server URL has an invalid port"),
        (f"smtp://{LOGIN}@:25", "The SMTP server URL has no host"),
        (f"smtp://{LOGIN}@h?secure=1", "Unknown SMTP server URL parameters: ['secure']"),
        (
            f"smtps://{LOGIN}@h?starttls=never",
            "smtps:// is TLS from the start: ?starttls= is for smtp://",
        ),
        (
            f"smtp://{LOGIN}@h?starttls=yes",
            "?starttls= must be one of ('auto', 'required', 'never')",
        ),
    ],
)
def test_server_url_errors(url: str, error: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(error)}$"):
        SmtpServer.from_url(url)


def test_password_is_not_in_the_repr() -> None:
    assert "p@ss" not in repr(SmtpServer.from_url(f"smtp://{LOGIN}@mail.example"))


@pytest.mark.parametrize(
    ("sender", "domain"),
    [
        ("Acme <login@mg.acme.example>", "mg.acme.example"),
        ("login@acme.example", "acme.example"),
        ("login", ""),
        ("@acme.example", ""),
    ],
)
def test_sender_domain(sender: str, domain: str) -> None:
    assert sender_domain(sender) == domain
