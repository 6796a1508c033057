"""A whole magic-link sign-in through the core, with the built-in senders: the link read
from the email an SMTP server received, and from the console outbox."""

from __future__ import annotations

from typing import Any

import pytest

from authui.adapters.memory import MemoryAdapter
from authui.mail.console import ConsoleOutbox
from authui.providers.console_email import ConsoleEmail
from authui.providers.email import EmailProvider
from authui.providers.nodemailer import Email
from authui.testing import AuthClient
from tests.actions.test_email import follow
from tests.conftest import make_config
from tests.mail.conftest import StartSmtp

APP = "http://localhost:3000"


async def sign_in(provider: EmailProvider, read_link: Any) -> dict[str, Any]:
    """Ask for a link for ada@example.com, follow it and confirm; the session's user."""
    client = AuthClient(make_config(providers=[provider], adapter=MemoryAdapter()), origin=APP)
    form = {"csrfToken": await client.csrf_token(), "email": "ada@example.com"}
    asked = await client.post(f"signin/{provider.id}", form=form)
    assert (
        asked.header("location") == f"{APP}/auth/verify-request?provider={provider.id}&type=email"
    )
    link: str = read_link()
    await follow(client, link)
    user: dict[str, Any] = (await client.get("session")).data()["user"]
    return user


async def test_smtp(start_smtp: StartSmtp) -> None:
    mailbox = start_smtp()
    provider = Email(
        server=f"smtp://127.0.0.1:{mailbox.port}?starttls=never",
        sender="Acme <login@acme.example>",
    )

    def read_link() -> str:
        mail = mailbox.only_message().parsed()
        text = mail.get_body(("plain",))
        assert text is not None
        lines: list[str] = text.get_content().splitlines()
        return next(line for line in lines if line.startswith(APP))

    user = await sign_in(provider, read_link)

    assert user["email"] == "ada@example.com"
    assert mailbox.only_message().rcpt_tos == ["ada@example.com"]


async def test_console(capsys: pytest.CaptureFixture[str]) -> None:
    outbox = ConsoleOutbox()

    def read_link() -> str:
        last = outbox.last(to="ada@example.com")
        assert last is not None
        return last.url

    user = await sign_in(ConsoleEmail(outbox=outbox), read_link)

    assert user["email"] == "ada@example.com"
    assert outbox.messages[0].url in capsys.readouterr().err
