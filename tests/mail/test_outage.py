"""A mail service that cannot be reached is an outage: ``503`` with ``Retry-After`` and the
"Temporarily unavailable" page, and no token left behind. A message the service refuses
(a bad address, a 4xx answer) stays a sign-in error (``EmailSignInError``, ``send_failed``).

The SMTP server is a real aiosmtpd one, stopped mid-test; the HTTP APIs' stand-in answers
as told."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest

from authui.adapters.memory import MemoryAdapter
from authui.http import Response
from authui.mail.message import DeliveryError, MailServiceUnavailable
from authui.providers.email import EmailProvider
from authui.providers.nodemailer import Email
from authui.providers.resend import Resend
from authui.testing import AuthClient
from tests.conftest import make_config
from tests.e2e.email_support import smtp_sink
from tests.mail.conftest import MESSAGE, ApiStandIn, Certificate, StartSmtp

APP = "http://localhost:3000"
SENT = f"{APP}/auth/verify-request?provider=email&type=email"
SEND_FAILED = f"{APP}/auth/signin?error=EmailSignInError&code=send_failed"
UNAVAILABLE = "The service is temporarily unavailable."


def client_for(provider: EmailProvider) -> tuple[AuthClient, MemoryAdapter]:
    adapter = MemoryAdapter()
    return AuthClient(make_config(providers=[provider], adapter=adapter), origin=APP), adapter


async def ask(client: AuthClient, email: str, **headers: str) -> Response:
    form = {"csrfToken": await client.csrf_token(), "email": email}
    return await client.post("signin/email", form=form, headers=headers)


def assert_outage_page(answer: Response) -> None:
    assert answer.status == 503
    assert answer.header("retry-after") == "30"
    assert answer.header("location") is None
    assert "Temporarily unavailable" in answer.text
    assert UNAVAILABLE in answer.text


# --- SMTP -------------------------------------------------------------------------------------


async def test_a_stopped_smtp_server_is_a_503_and_leaves_no_token(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with smtp_sink() as sink:
        client, adapter = client_for(Email(server=sink.url))
        assert (await ask(client, "ada@example.com")).header("location") == SENT
        assert len(sink.mailbox.all()) == 1
    # the server is stopped: its port refuses connections

    answer = await ask(client, "grace@example.com")
    api = await ask(client, "grace@example.com", **{"X-Auth-Return-Redirect": "1"})

    assert_outage_page(answer)
    assert (api.status, api.header("retry-after")) == (503, "30")
    assert api.data() == {"url": f"{APP}/auth/error?error=ServiceUnavailable"}
    assert [t.identifier for t in adapter.tokens.values()] == ["ada@example.com"]
    assert adapter.users == {}
    logged = [r for r in caplog.records if "ServiceUnavailable" in r.getMessage()]
    assert len(logged) == 2  # one line per request, no traceback
    assert all(r.exc_info is None and "\n" not in r.getMessage() for r in logged)
    assert f"127.0.0.1:{sink.port}" in logged[0].getMessage()


@contextlib.asynccontextmanager
async def busy_smtp_server() -> AsyncIterator[int]:
    """A server on 127.0.0.1 that greets every client with 421 (shutting down, overloaded)
    and hangs up, as an SMTP server out of service does; its port."""

    async def greet(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"421 4.3.2 smtp.test Service not available, closing channel\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(greet, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        await server.wait_closed()


async def test_an_smtp_server_out_of_service_is_an_outage() -> None:
    async with busy_smtp_server() as port:
        client, adapter = client_for(Email(server=f"smtp://127.0.0.1:{port}?starttls=never"))
        assert_outage_page(await ask(client, "ada@example.com"))
    assert adapter.tokens == {}


async def test_an_address_the_smtp_server_refuses_stays_a_sign_in_error(
    start_smtp: StartSmtp,
) -> None:
    mailbox = start_smtp()
    client, adapter = client_for(Email(server=f"smtp://127.0.0.1:{mailbox.port}?starttls=never"))
    refused = await ask(client, "nobody@example.com")
    assert refused.header("location") == SEND_FAILED
    assert adapter.tokens == {}


async def test_a_certificate_failure_is_not_an_outage(
    start_smtp: StartSmtp, certificate: Certificate
) -> None:
    mailbox = start_smtp(ssl_context=certificate.server_context())
    provider = Email(server=f"smtps://127.0.0.1:{mailbox.port}")
    assert provider.transport is not None
    with pytest.raises(DeliveryError) as caught:
        await provider.transport(MESSAGE, provider)
    assert not isinstance(caught.value, MailServiceUnavailable)


# --- HTTP APIs --------------------------------------------------------------------------------


def resend(api: ApiStandIn, base_url: str | None = None) -> EmailProvider:
    return Resend(id="email", api_key="re_key", options={"base_url": base_url or api.base_url})


@pytest.mark.parametrize("status", [500, 502, 503])
async def test_a_5xx_answer_is_a_503(api: ApiStandIn, status: int) -> None:
    api.reply(status, {"message": "upstream trouble"})
    client, adapter = client_for(resend(api))
    assert_outage_page(await ask(client, "ada@example.com"))
    assert adapter.tokens == {}


async def test_an_unreachable_api_is_a_503(api: ApiStandIn) -> None:
    closed = api.base_url
    api.shutdown()
    api.server_close()
    client, adapter = client_for(resend(api, closed))
    assert_outage_page(await ask(client, "ada@example.com"))
    assert adapter.tokens == {}


@pytest.mark.parametrize("status", [400, 403, 422, 429])
async def test_a_4xx_answer_stays_a_sign_in_error(api: ApiStandIn, status: int) -> None:
    api.reply(status, {"message": "refused"})
    client, adapter = client_for(resend(api))
    assert (await ask(client, "ada@example.com")).header("location") == SEND_FAILED
    assert adapter.tokens == {}
