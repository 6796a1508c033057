"""The development transport: printed to stderr, kept in a bounded outbox."""

from __future__ import annotations

import dataclasses
import io

import pytest

from authui import AuthConfig, assert_config
from authui.adapters.memory import MemoryAdapter
from authui.mail.console import DEFAULT_LIMIT, ConsoleOutbox
from authui.providers.console_email import ConsoleEmail
from tests.mail.conftest import LINK, MESSAGE


async def test_prints_the_link_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    outbox = ConsoleOutbox()
    provider = ConsoleEmail(outbox=outbox)
    assert provider.transport is not None

    await provider.transport(MESSAGE, provider)

    printed = capsys.readouterr()
    assert printed.out == ""
    assert "authui DEVELOPMENT email (email): printed here, not sent" in printed.err
    assert f"Link:    {LINK}\n" in printed.err
    assert "To:      ada@example.com\n" in printed.err
    assert "Subject: Sign in to localhost:5000\n" in printed.err
    assert "Expires: 2030-01-02T03:04:05+00:00\n" in printed.err
    assert outbox.messages == [MESSAGE]


async def test_keeps_the_newest_messages() -> None:
    stream = io.StringIO()
    outbox = ConsoleOutbox(limit=2, stream=stream)
    provider = ConsoleEmail(outbox=outbox)
    sent = [dataclasses.replace(MESSAGE, to=f"user{i}@example.com") for i in range(3)]

    for message in sent:
        await outbox.transport(message, provider)

    assert outbox.messages == sent[1:]
    assert stream.getvalue().count("DEVELOPMENT") == 3
    assert outbox.last() == sent[2]
    assert outbox.last(to="user1@example.com") == sent[1]
    assert outbox.last(to="user0@example.com") is None
    outbox.messages.clear()  # a copy
    assert len(outbox.messages) == 2
    outbox.clear()
    assert outbox.messages == []
    assert outbox.last() is None


async def test_keeps_fifty_by_default() -> None:
    outbox = ConsoleOutbox(stream=io.StringIO())
    provider = ConsoleEmail(outbox=outbox)

    for i in range(DEFAULT_LIMIT + 1):
        await outbox.transport(dataclasses.replace(MESSAGE, to=f"user{i}@example.com"), provider)

    assert DEFAULT_LIMIT == 50
    assert [m.to for m in outbox.messages[:1]] == ["user1@example.com"]
    assert len(outbox.messages) == DEFAULT_LIMIT


def test_limit_is_at_least_one() -> None:
    with pytest.raises(ValueError, match="at least one message"):
        ConsoleOutbox(limit=0)


def test_console_email_outside_development_is_a_warning() -> None:
    config = AuthConfig(providers=[ConsoleEmail()], adapter=MemoryAdapter(), secret="s" * 32)
    assert "console-email" in assert_config(config).warnings
    development = AuthConfig(
        providers=[ConsoleEmail()], adapter=MemoryAdapter(), secret="s" * 32, development=True
    )
    assert "console-email" not in assert_config(development).warnings
