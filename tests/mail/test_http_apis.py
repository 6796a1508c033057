"""The HTTP mail APIs: the exact request each service gets, against a stand-in server, and
what a refusal becomes."""

from __future__ import annotations

import base64
import dataclasses
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from authui.mail import http_apis
from authui.mail.message import DeliveryError
from authui.providers.email import EmailProvider
from authui.providers.forwardemail import ForwardEmail
from authui.providers.loops import Loops
from authui.providers.mailgun import Mailgun
from authui.providers.postmark import Postmark
from authui.providers.resend import Resend
from authui.providers.sendgrid import SendGrid
from tests.mail.conftest import LINK, MESSAGE, TOKEN, ApiStandIn

KEY = "key-live-0123456789abcdef"


def _basic(credentials: str) -> str:
    return "Basic " + base64.b64encode(credentials.encode()).decode()


def _loops(**overrides: Any) -> EmailProvider:
    return Loops(transactional_id="cm_signin_42", **overrides)


PLAIN = {
    "from": MESSAGE.sender,
    "to": MESSAGE.to,
    "subject": MESSAGE.subject,
    "html": MESSAGE.html,
    "text": MESSAGE.text,
}


@dataclass(frozen=True, slots=True)
class Api:
    """A service: its provider factory and what its request must look like."""

    name: str
    make: Callable[..., EmailProvider]
    url: str
    auth: tuple[str, str]
    body: Any
    error: dict[str, Any]
    """A 4xx body in the service's shape; its text is ``REFUSAL``."""
    form: bool = False

    @property
    def path(self) -> str:
        return httpx.URL(self.url).path

    def provider(self, api: ApiStandIn, **overrides: Any) -> EmailProvider:
        overrides.setdefault("options", {"base_url": api.base_url})
        return self.make(api_key=KEY, **overrides)


REFUSAL = f"Key {KEY} may not send {LINK} (token {TOKEN})"
"""A service's error that repeats the key, the link and the token: all three are blanked."""

APIS = [
    Api(
        name="Resend",
        make=Resend,
        url="https://api.resend.com/emails",
        auth=("authorization", f"Bearer {KEY}"),
        body=PLAIN,
        error={"statusCode": 422, "name": "validation_error", "message": REFUSAL},
    ),
    Api(
        name="SendGrid",
        make=SendGrid,
        url="https://api.sendgrid.com/v3/mail/send",
        auth=("authorization", f"Bearer {KEY}"),
        body={
            "personalizations": [{"to": [{"email": "ada@example.com"}]}],
            "from": {"email": "login@mg.acme.example", "name": "Acme Login"},
            "subject": MESSAGE.subject,
            "content": [
                {"type": "text/plain", "value": MESSAGE.text},
                {"type": "text/html", "value": MESSAGE.html},
            ],
        },
        error={"errors": [{"message": REFUSAL, "field": "from.email", "help": None}]},
    ),
    Api(
        name="Postmark",
        make=Postmark,
        url="https://api.postmarkapp.com/email",
        auth=("x-postmark-server-token", KEY),
        body={
            "From": MESSAGE.sender,
            "To": MESSAGE.to,
            "Subject": MESSAGE.subject,
            "TextBody": MESSAGE.text,
            "HtmlBody": MESSAGE.html,
            "MessageStream": "outbound",
        },
        error={"ErrorCode": 300, "Message": REFUSAL},
    ),
    Api(
        name="Mailgun",
        make=Mailgun,
        url="https://api.mailgun.net/v3/mg.acme.example/messages",
        auth=("authorization", _basic(f"api:{KEY}")),
        body={key: [value] for key, value in PLAIN.items()},
        error={"message": REFUSAL},
        form=True,
    ),
    Api(
        name="Forward Email",
        make=ForwardEmail,
        url="https://api.forwardemail.net/v1/emails",
        auth=("authorization", _basic(f"{KEY}:")),
        body=PLAIN,
        error={"statusCode": 400, "error": "Bad Request", "message": REFUSAL},
    ),
    Api(
        name="Loops",
        make=_loops,
        url="https://app.loops.so/api/v1/transactional",
        auth=("authorization", f"Bearer {KEY}"),
        body={
            "transactionalId": "cm_signin_42",
            "email": "ada@example.com",
            "dataVariables": {"url": LINK},
        },
        error={"success": False, "message": REFUSAL},
    ),
]
BY_NAME = pytest.mark.parametrize("service", APIS, ids=[s.name for s in APIS])


async def send(provider: EmailProvider) -> None:
    assert provider.transport is not None
    await provider.transport(MESSAGE, provider)


def assert_secrets_hidden(error: DeliveryError) -> None:
    for secret in (KEY, TOKEN, "callback/email"):
        assert secret not in str(error)


@BY_NAME
async def test_request(service: Api, api: ApiStandIn) -> None:
    await send(service.provider(api))

    sent = api.only_request()
    assert (sent.method, sent.path) == ("POST", service.path)
    name, value = service.auth
    assert sent.headers[name] == value
    if name != "authorization":
        assert "authorization" not in sent.headers
    assert sent.headers["accept"] == "application/json"
    if service.form:
        assert sent.headers["content-type"] == "application/x-www-form-urlencoded"
        assert sent.form() == service.body
    else:
        assert sent.headers["content-type"] == "application/json"
        assert sent.json() == service.body


@BY_NAME
async def test_refusal_has_the_status_and_the_services_reason(
    service: Api, api: ApiStandIn
) -> None:
    api.reply(422, service.error)

    with pytest.raises(DeliveryError) as caught:
        await send(service.provider(api))

    reason = REFUSAL.replace(KEY, "[hidden]").replace(LINK, "[hidden]").replace(TOKEN, "[hidden]")
    assert str(caught.value) == f"{service.name} refused the message: HTTP 422: {reason}"
    assert_secrets_hidden(caught.value)


@BY_NAME
@pytest.mark.parametrize(
    ("body", "content_type", "reason"),
    [
        pytest.param(
            b"<html><body>\n<h1>502 Bad Gateway</h1>\n</body></html>",
            "text/html",
            "<html><body> <h1>502 Bad Gateway</h1> </body></html>",
            id="text",
        ),
        pytest.param(b"", "text/plain", "Bad Gateway", id="empty"),
        pytest.param(b'{"id": null}', "application/json", '{"id": null}', id="json-no-reason"),
    ],
)
async def test_server_error_without_a_json_reason(
    service: Api, api: ApiStandIn, body: bytes, content_type: str, reason: str
) -> None:
    api.reply(502, body, content_type)

    with pytest.raises(DeliveryError) as caught:
        await send(service.provider(api))

    assert str(caught.value) == f"{service.name} refused the message: HTTP 502: {reason}"


async def test_a_long_reason_is_cut(api: ApiStandIn) -> None:
    api.reply(500, {"message": "x" * 1000})

    with pytest.raises(DeliveryError) as caught:
        await send(APIS[0].provider(api))

    assert str(caught.value).endswith(": HTTP 500: " + "x" * 300)


@BY_NAME
async def test_no_api_key(service: Api, api: ApiStandIn) -> None:
    provider = dataclasses.replace(service.provider(api), api_key=None)

    with pytest.raises(DeliveryError, match=f"^{service.name}: no API key; set AUTH_"):
        await send(provider)

    assert api.requests == []


async def test_no_api_key_names_the_providers_variable(api: ApiStandIn) -> None:
    with pytest.raises(DeliveryError, match="set AUTH_WORK_MAIL_KEY or"):
        await send(Resend(id="work-mail"))


@BY_NAME
async def test_service_unreachable(service: Api, api: ApiStandIn) -> None:
    closed = api.base_url
    api.shutdown()
    api.server_close()

    with pytest.raises(DeliveryError) as caught:
        await send(service.provider(api, options={"base_url": closed}))

    assert str(caught.value) == f"{service.name} could not be reached: ConnectError"


async def test_base_url_with_a_path_prefix(api: ApiStandIn) -> None:
    await send(Resend(api_key=KEY, options={"base_url": f"{api.base_url}/proxy/resend/"}))

    assert api.only_request().path == "/proxy/resend/emails"


# --- The services' own URLs, seen by a client that sends nothing --------------------------


@pytest.fixture
async def sent_to(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[list[httpx.Request]]:
    """Requests, answered 200 by a mock client in place of the shared one."""
    requests: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, json={"id": "sent"})

    client = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    monkeypatch.setattr(http_apis, "shared_client", lambda: client)
    yield requests
    await client.aclose()


@pytest.mark.parametrize(
    ("provider", "url"),
    [
        *[pytest.param(s.make(api_key=KEY), s.url, id=s.name) for s in APIS],
        pytest.param(
            Mailgun(region="EU", api_key=KEY),
            "https://api.eu.mailgun.net/v3/mg.acme.example/messages",
            id="Mailgun EU",
        ),
        pytest.param(
            Mailgun(api_key=KEY, options={"domain": "mail.acme.example"}),
            "https://api.mailgun.net/v3/mail.acme.example/messages",
            id="Mailgun domain option",
        ),
    ],
)
async def test_service_url(provider: EmailProvider, url: str, sent_to: list[httpx.Request]) -> None:
    await send(provider)

    assert [str(r.url) for r in sent_to] == [url]


@pytest.mark.parametrize(
    ("provider", "error"),
    [
        pytest.param(
            Mailgun(api_key=KEY, sender="login"),
            "Mailgun: the sender 'login' has no domain to send from; give a sender address "
            "on your Mailgun domain",
            id="mailgun-sender-without-domain",
        ),
        pytest.param(
            EmailProvider(
                transport=http_apis.mailgun_transport, api_key=KEY, options={"region": "eu"}
            ),
            "Mailgun: region must be one of ['EU', 'US']",
            id="mailgun-unknown-region",
        ),
        pytest.param(
            EmailProvider(id="loops", transport=http_apis.loops_transport, api_key=KEY),
            "Loops: options['transactional_id'] is not set",
            id="loops-without-transactional-id",
        ),
    ],
)
async def test_settings_missing(
    provider: EmailProvider, error: str, sent_to: list[httpx.Request]
) -> None:
    message = dataclasses.replace(MESSAGE, sender=provider.sender)
    assert provider.transport is not None

    with pytest.raises(DeliveryError) as caught:
        await provider.transport(message, provider)

    assert str(caught.value) == error
    assert sent_to == []


async def test_sendgrid_sender_without_a_name(sent_to: list[httpx.Request]) -> None:
    provider = SendGrid(api_key=KEY)
    assert provider.transport is not None

    await provider.transport(dataclasses.replace(MESSAGE, sender="login@acme.example"), provider)

    assert httpx.Response(200, content=sent_to[0].content).json()["from"] == {
        "email": "login@acme.example"
    }
