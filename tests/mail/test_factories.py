"""The email provider factories: their defaults, overrides, required settings, and API keys
from the environment."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from authui import AuthConfig, set_env_defaults
from authui.adapters.memory import MemoryAdapter
from authui.mail import http_apis
from authui.mail.console import ConsoleOutbox
from authui.mail.smtp import smtp_transport
from authui.providers.console_email import ConsoleEmail
from authui.providers.email import DEFAULT_MAX_AGE, EmailProvider
from authui.providers.forwardemail import ForwardEmail
from authui.providers.loops import Loops
from authui.providers.mailgun import Mailgun
from authui.providers.nodemailer import Email, Nodemailer
from authui.providers.postmark import Postmark
from authui.providers.resend import Resend
from authui.providers.sendgrid import SendGrid

SERVER = "smtps://user:secret@smtp.example.com"
OUTBOX = ConsoleOutbox()


@pytest.mark.parametrize(
    ("make", "id", "name", "transport", "options"),
    [
        (lambda: Email(server=SERVER), "email", "Email", smtp_transport, {}),
        (lambda: Nodemailer(server=SERVER), "nodemailer", "Nodemailer", smtp_transport, {}),
        (Resend, "resend", "Resend", http_apis.resend_transport, {}),
        (SendGrid, "sendgrid", "SendGrid", http_apis.sendgrid_transport, {}),
        (Postmark, "postmark", "Postmark", http_apis.postmark_transport, {}),
        (Mailgun, "mailgun", "Mailgun", http_apis.mailgun_transport, {"region": "US"}),
        (
            lambda: Mailgun(region="EU"),
            "mailgun",
            "Mailgun",
            http_apis.mailgun_transport,
            {"region": "EU"},
        ),
        (ForwardEmail, "forwardemail", "Forward Email", http_apis.forwardemail_transport, {}),
        (
            lambda: Loops(transactional_id="cm_1"),
            "loops",
            "Loops",
            http_apis.loops_transport,
            {"transactional_id": "cm_1"},
        ),
        (
            lambda: ConsoleEmail(outbox=OUTBOX),
            "email",
            "Email",
            OUTBOX.transport,
            {"outbox": OUTBOX},
        ),
    ],
)
def test_defaults(
    make: Callable[[], EmailProvider], id: str, name: str, transport: Any, options: Any
) -> None:
    provider = make()

    assert (provider.id, provider.name, provider.type) == (id, name, "email")
    assert provider.transport == transport
    assert provider.options == options
    assert provider.max_age == DEFAULT_MAX_AGE
    assert provider.sender == EmailProvider().sender
    assert provider.api_key is None
    assert provider.send_verification_request is None
    assert provider.server == (SERVER if transport is smtp_transport else None)


def test_overrides() -> None:
    provider = Mailgun(
        region="EU",
        id="work-mail",
        name="Work mail",
        sender="Acme <login@mg.acme.example>",
        max_age=600,
        api_key="key-1",
        limits=None,
        options={"base_url": "http://127.0.0.1:9"},
    )

    assert (provider.id, provider.name, provider.sender) == (
        "work-mail",
        "Work mail",
        "Acme <login@mg.acme.example>",
    )
    assert (provider.max_age, provider.api_key, provider.limits) == (600, "key-1", None)
    assert provider.options == {"region": "EU", "base_url": "http://127.0.0.1:9"}
    assert provider.transport is http_apis.mailgun_transport


def test_console_email_makes_its_own_outbox() -> None:
    provider = ConsoleEmail()

    outbox = provider.options["outbox"]
    assert isinstance(outbox, ConsoleOutbox)
    assert provider.transport == outbox.transport
    assert ConsoleEmail().options["outbox"] is not outbox


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (lambda: Email(server=""), TypeError, "^Email requires a `server`"),
        (lambda: Nodemailer(server=""), TypeError, "^Nodemailer requires a `server`"),
        (lambda: Email(**{}), TypeError, "required keyword-only argument: 'server'"),
        (
            lambda: Email(server="https://user:secret@smtp.example.com"),
            ValueError,
            "^An SMTP server URL starts with smtp:// or smtps://$",
        ),
        (lambda: Loops(transactional_id=""), TypeError, "^Loops requires a `transactional_id`"),
        (lambda: Loops(**{}), TypeError, "required keyword-only argument: 'transactional_id'"),
        (
            lambda: Mailgun(region="APAC"),  # type: ignore[arg-type]
            ValueError,
            r"^Mailgun region must be one of \['EU', 'US'\]",
        ),
        (lambda: Resend(apiKey="k"), TypeError, "unexpected keyword argument 'apiKey'"),
    ],
)
def test_required_settings(
    make: Callable[[], EmailProvider], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        make()


def test_api_keys_from_the_environment() -> None:
    env = {
        "AUTH_SECRET": "s" * 32,
        "AUTH_RESEND_KEY": "re_env",
        "AUTH_SENDGRID_KEY": "SG.env",
        "AUTH_POSTMARK_KEY": "pm-env",
        "AUTH_MAILGUN_KEY": "mg-env",
        "AUTH_FORWARDEMAIL_KEY": "fe-env",
        "AUTH_LOOPS_KEY": "loops-env",
        "AUTH_WORK_MAIL_KEY": "work-env",
    }
    providers = [
        Resend(),
        SendGrid(),
        Postmark(),
        Mailgun(),
        ForwardEmail(),
        Loops(transactional_id="cm_1"),
        Resend(id="work-mail"),
        Postmark(id="other", api_key="given"),
    ]
    config = set_env_defaults(env, AuthConfig(providers=providers, adapter=MemoryAdapter()))

    assert [(p.id, getattr(p, "api_key", None)) for p in config.providers] == [
        ("resend", "re_env"),
        ("sendgrid", "SG.env"),
        ("postmark", "pm-env"),
        ("mailgun", "mg-env"),
        ("forwardemail", "fe-env"),
        ("loops", "loops-env"),
        ("work-mail", "work-env"),
        ("other", "given"),
    ]
    assert [getattr(p, "transport", None) for p in config.providers] == [
        p.transport for p in providers
    ]
