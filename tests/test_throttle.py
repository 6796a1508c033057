"""Throttling of every sign-in path, as a client meets it: credentials per account and per
client, passkey answers, email requests and OAuth callbacks answered with 429,
``Retry-After`` and a message saying how long to wait; the reset on success; the log line;
the bounded in-process counter of apps without an adapter.

The window clock is frozen (``rate_limit_clock``) so that no test straddles the end of a
fixed window. The two-process test is ``tests/adapters/test_throttle_processes.py``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import re
from typing import Any

import pytest

from authui import Experimental, throttle
from authui.actions import throttling
from authui.actions.throttling import counter_for
from authui.adapters.memory import MemoryAdapter
from authui.errors import TooManyAttempts
from authui.http import Response
from authui.mail.limits import SendLimits
from authui.mail.message import VerificationEmail
from authui.options import resolve
from authui.providers.email import EmailProvider
from authui.providers.oauth import Endpoint, OAuth2
from authui.providers.webauthn import Passkey
from authui.testing import AuthClient
from authui.throttle import Limit, LocalCounter, Throttle
from tests.adapters import conftest as adapter_fixtures
from tests.adapters.conftest import RateLimitClock
from tests.conftest import CREDENTIALS, make_config

APP = "http://localhost:3000"
THROTTLED_URL = f"{APP}/auth/signin?error=TooManyAttempts"
REFUSED = f"{APP}/auth/signin?error=CredentialsSignin&code=credentials"
WAIT = re.compile(r"Too many attempts\. Try again in (1 minute|(\d+) minutes)\.")
HX = {"HX-Request": "true"}
WRONG = "wrong"

rate_limit_clock = adapter_fixtures.rate_limit_clock


@pytest.fixture(autouse=True)
def _frozen_windows(rate_limit_clock: RateLimitClock) -> None:
    """Every test runs at a fixed time: 40 s before a minute ends, 100 s before a 5-minute
    window ends, 700 s before an hour ends."""
    rate_limit_clock.now = 1_000_100.0


def client_for(adapter: object | None = None, **config: Any) -> AuthClient:
    return AuthClient(make_config(adapter=adapter, **config), origin=APP)


async def sign_in(client: AuthClient, username: str, password: str = WRONG, **kw: Any) -> Any:
    form = {"csrfToken": await client.csrf_token(), "username": username, "password": password}
    return await client.post("callback/credentials", form=form, **kw)


def assert_throttled(response: Response, *, window: int) -> int:
    """429 with ``Retry-After`` within the window, and the themed sign-in page saying how
    long to wait; the wait in seconds."""
    assert response.status == 429, response.text[:300]
    retry_after = int(response.header("retry-after") or 0)
    assert 1 <= retry_after <= window
    message = WAIT.search(response.text)
    assert message is not None, response.text
    minutes = int(message.group(2) or 1)
    assert minutes == -(-retry_after // 60)
    return retry_after


# -- credentials --------------------------------------------------------------------------


async def test_an_account_is_refused_after_five_failures_even_with_the_right_password() -> None:
    checked: list[str] = []

    async def authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
        checked.append(credentials["password"])
        if credentials["password"] == "correct horse":
            return {"id": "1", "name": "Ada", "email": "ada@example.com"}
        return None

    provider = dataclasses.replace(CREDENTIALS, authorize=authorize)
    client = client_for(providers=[provider])
    for name in ["ada", "Ada", " ADA ", "ada", "aDa"]:  # one account, however typed
        assert (await sign_in(client, name)).header("location") == REFUSED
    page = await sign_in(client, "ada")
    retry_after = assert_throttled(page, window=300)
    assert retry_after == 100  # the 5-minute window ends 100 s after the frozen clock
    assert "Try again in 2 minutes." in page.text
    assert 'name="username"' in page.text  # the sign-in page, its form
    right = await sign_in(client, "ada", "correct horse")
    assert_throttled(right, window=300)
    assert "authjs.session-token" not in client.cookies
    assert checked == ["wrong"] * 5, "a throttled guess must not reach authorize"
    other = await sign_in(client, "bob")
    assert other.header("location") == REFUSED  # other accounts are not locked out


async def test_a_client_is_refused_after_ten_failures_whatever_the_accounts() -> None:
    client = client_for()
    for n in range(10):
        assert (await sign_in(client, f"user{n}")).header("location") == REFUSED
    assert_throttled(await sign_in(client, "user10"), window=60)
    elsewhere = AuthClient(client.config, origin=APP, client_address="192.0.2.7")
    assert (await sign_in(elsewhere, "user11")).header("location") == REFUSED


@pytest.mark.parametrize("adapter", [None, MemoryAdapter], ids=["jwt-only", "memory-adapter"])
async def test_a_success_resets_the_account_but_not_the_client(adapter: Any) -> None:
    throttle = Throttle(credentials_per_account=Limit(3, 300), credentials_per_client=Limit(5, 60))
    client = client_for(adapter() if adapter else None, throttle=throttle)
    for _ in range(2):
        assert (await sign_in(client, "ada")).header("location") == REFUSED
    signed_in = await sign_in(client, "ada", "correct horse")
    assert signed_in.status == 302
    assert "error" not in str(signed_in.header("location"))
    for _ in range(3):  # the account starts again at 0: three more failures are allowed
        assert (await sign_in(client, "ada")).header("location") == REFUSED
    # the client's five failures (two before the success, three after) stay counted; the
    # success itself is not a failure
    assert_throttled(await sign_in(client, "bob"), window=60)


async def test_a_success_beside_other_sign_ins_of_the_account_counts_none_as_failed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Sign-ins of one account in flight together (a user's browsers, a bench): one
    succeeding while another starts must not leave the account's count above the attempts
    still in flight (it once did, and four at once were refused with 429)."""
    seen: list[int] = []
    monkeypatch.setattr(throttling, "_over", lambda counted, count: seen.append(count))

    class Interleaving(LocalCounter):
        """Runs ``between`` once, after the first reset it is asked for."""

        between: Any = None

        async def reset(self, key: str) -> None:
            await super().reset(key)
            then, self.between = self.between, None
            if then is not None:
                await then()

    counter = Interleaving()

    def attempt() -> throttling.Attempt:
        started = throttling.Attempt(counter)
        started.account = throttling.Counted("credentials", "account", "ada", Limit(5, 300))
        return started

    first, second, third = attempt(), attempt(), attempt()
    await first.start()
    counter.between = second.start
    await first.succeeded()
    await third.start()
    assert seen[-1] <= 2  # the second and the third, in flight; nothing failed


async def test_a_window_ending_between_an_attempts_two_counts_refuses_no_busy_client(
    rate_limit_clock: RateLimitClock,
) -> None:
    """A client with many successful sign-ins in a minute (an office behind one address, a
    benchmark): when the minute ends between an attempt's count of attempts and its count of
    marks, the two land in different windows. Taken together they made every success of the
    old minute a failure, and the sign-in was refused with 429."""

    class MinuteEndsAfterAttempts(LocalCounter):
        ending = False

        async def increment(self, key: str, window_seconds: int) -> int:
            count = await super().increment(key, window_seconds)
            if self.ending and key.endswith(":a"):
                self.ending = False
                rate_limit_clock.now = (rate_limit_clock.now // 60 + 1) * 60
            return count

    counter = MinuteEndsAfterAttempts()

    def attempt() -> throttling.Attempt:
        started = throttling.Attempt(counter)
        started.client = throttling.Counted("credentials", "client", "192.0.2.1", Limit(10, 60))
        return started

    for _ in range(50):
        succeeding = attempt()
        await succeeding.start()
        await succeeding.succeeded()
    counter.ending = True
    await attempt().start()  # in flight across the minute's end: not refused
    # the new minute counts failures from there, with one to spare: that attempt's first
    # mark may have landed in it
    for _ in range(10):
        await attempt().start()
    with pytest.raises(TooManyAttempts):
        await attempt().start()


async def test_api_clients_get_429_json_with_retry_after() -> None:
    client = client_for(throttle=Throttle(credentials_per_account=Limit(1, 300)))
    await sign_in(client, "ada")
    answer = await sign_in(client, "ada", headers={"X-Auth-Return-Redirect": "1"})
    assert answer.status == 429
    assert answer.header("content-type") == "application/json"
    assert answer.data() == {"url": THROTTLED_URL}
    assert answer.header("retry-after") == "100"


async def test_htmx_gets_the_form_again_with_the_wait_and_status_429() -> None:
    client = client_for(throttle=Throttle(credentials_per_account=Limit(1, 300)))
    await sign_in(client, "ada", headers=HX)
    answer = await sign_in(client, "ada", headers=HX)
    assert answer.status == 429
    assert answer.header("retry-after") == "100"
    html = answer.text
    assert html.lstrip().startswith("<form")
    assert "<html" not in html
    assert 'role="alert"' in html
    assert "Too many attempts. Try again in 2 minutes." in html
    assert 'value="ada"' in html
    assert 'value="wrong"' not in html


async def test_throttle_none_turns_it_off() -> None:
    client = client_for(throttle=None)
    for _ in range(12):
        assert (await sign_in(client, "ada")).header("location") == REFUSED


async def test_each_refusal_is_one_warning_with_the_account_hashed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = client_for(throttle=Throttle(credentials_per_account=Limit(2, 300)))
    for _ in range(5):
        await sign_in(client, "Mallory")
    records = [  # what the requests logged (not the configuration's start-up warnings)
        r for r in caplog.records if r.name == "authui" and "[auth][warn][" not in r.getMessage()
    ]
    throttled = [r for r in records if "[auth][warning][sign-in-throttled]" in r.getMessage()]
    failed = [r for r in records if "[auth][warning][sign-in-failed]" in r.getMessage()]
    assert (len(failed), len(throttled)) == (2, 3)  # one line per request, no more
    assert len(records) == 5
    assert {r.levelno for r in records} == {logging.WARNING}
    line = throttled[0].getMessage()
    account = hashlib.sha256(b"mallory").hexdigest()
    assert f'"account": "sha256:{account}"' in line
    assert '"per": "account"' in line
    assert '"limit": "2/300s"' in line
    assert '"provider": "credentials"' in line
    assert '"client": "127.0.0.1"' in line
    assert "mallory" not in caplog.text.lower()


async def test_the_counter_store_holds_no_username_or_address() -> None:
    adapter = MemoryAdapter()
    client = client_for(adapter)
    await sign_in(client, "grace@example.com")
    keys = " ".join(key for key, _, _ in adapter.rate_limits)
    assert keys
    assert "grace" not in keys
    assert "127.0.0.1" not in keys
    assert hashlib.sha256(b"grace@example.com").hexdigest() in keys


# -- the other paths ----------------------------------------------------------------------


async def test_passkey_answers_are_counted_per_client() -> None:
    client = client_for(
        MemoryAdapter(),
        providers=[Passkey()],
        experimental=Experimental(enable_webauthn=True),
        throttle=Throttle(passkey_per_client=Limit(2, 60)),
    )

    async def answer() -> Response:
        form = {"csrfToken": await client.csrf_token(), "action": "authenticate", "data": "{}"}
        return await client.post("callback/passkey", form=form)

    for _ in range(2):
        refused = await answer()
        assert refused.status != 429
    assert_throttled(await answer(), window=60)


async def test_passkey_ceremonies_started_are_counted_per_client() -> None:
    """Each options request stores a challenge: a flood of them is refused before it
    fills the store, with JSON that webauthn.js shows."""
    adapter = MemoryAdapter()
    client = client_for(
        adapter,
        providers=[Passkey()],
        experimental=Experimental(enable_webauthn=True),
        throttle=Throttle(passkey_options_per_client=Limit(3, 60)),
    )
    for _ in range(3):
        assert (await client.get("webauthn-options/passkey?action=authenticate")).status == 200
    refused = await client.get("webauthn-options/passkey?action=authenticate")
    assert refused.status == 429
    assert 0 < int(refused.header("retry-after") or 0) <= 60
    assert WAIT.match(refused.data()["error"])
    assert len(adapter.challenges) == 3


async def test_oauth_callbacks_are_counted_per_client() -> None:
    service = OAuth2(
        id="svc",
        client_id="id",
        client_secret="secret",
        authorization=Endpoint(url="https://svc.example/authorize"),
        token="https://svc.example/token",
        userinfo="https://svc.example/me",
    )
    client = client_for(providers=[service], throttle=Throttle(oauth_per_client=Limit(2, 60)))
    for _ in range(2):
        refused = await client.get("callback/svc?code=guess&state=guess")
        assert refused.status == 302
    assert_throttled(await client.get("callback/svc?code=guess&state=guess"), window=60)


class Outbox:
    def __init__(self) -> None:
        self.sent: list[str] = []

    async def __call__(self, message: VerificationEmail, provider: EmailProvider) -> None:
        self.sent.append(message.to)


def email_client(limits: SendLimits) -> tuple[AuthClient, Outbox]:
    outbox = Outbox()
    provider = EmailProvider(transport=outbox, limits=limits)
    return client_for(MemoryAdapter(), providers=[provider]), outbox


async def ask_link(client: AuthClient, email: str, **kw: Any) -> Response:
    form = {"csrfToken": await client.csrf_token(), "email": email}
    return await client.post("signin/email", form=form, **kw)


async def test_email_requests_are_counted_per_address() -> None:
    client, outbox = email_client(SendLimits(per_address=2, per_client=None))
    for _ in range(2):
        assert (await ask_link(client, "ada@example.com")).status == 302
    page = await ask_link(client, " ADA@example.com")
    assert_throttled(page, window=3600)
    inline = await ask_link(client, "ada@example.com", headers=HX)
    assert inline.status == 429
    assert WAIT.search(inline.text)
    assert inline.text.lstrip().startswith("<form")
    assert outbox.sent == ["ada@example.com"] * 2
    assert (await ask_link(client, "bob@example.com")).status == 302


async def test_email_requests_are_counted_per_client() -> None:
    client, outbox = email_client(SendLimits(per_address=None, per_client=2))
    for n in range(2):
        assert (await ask_link(client, f"user{n}@example.com")).status == 302
    assert_throttled(await ask_link(client, "user2@example.com"), window=3600)
    assert len(outbox.sent) == 2


# -- the in-process counter ---------------------------------------------------------------


async def test_without_an_adapter_the_counts_stay_in_a_bounded_local_counter() -> None:
    client = client_for()
    await sign_in(client, "ada")
    counter = counter_for(resolve(client.config))
    assert isinstance(counter, LocalCounter)
    assert len(counter) == 4  # attempts and marks of the client and of the account
    assert counter_for(resolve(client.config)) is counter  # kept on the configuration
    other = make_config()  # another configuration object (another app) counts apart
    assert counter_for(resolve(other)) is not counter


async def test_the_local_counter_drops_the_least_recently_counted_keys_first() -> None:
    counter = LocalCounter(max_keys=3)
    for key in ["a", "b", "c", "a", "d"]:  # "b" is the least recently counted at "d"
        await counter.increment(key, 60)
    assert len(counter) == 3
    assert await counter.increment("a", 60) == 3
    assert await counter.increment("b", 60) == 1  # forgotten, so counted afresh
    assert len(counter) == 3


async def test_the_local_counter_drops_ended_windows(rate_limit_clock: RateLimitClock) -> None:
    counter = LocalCounter()
    for n in range(1000):
        await counter.increment(f"key{n}", 60)
    await counter.increment("long", 3600)
    assert len(counter) == 1001
    rate_limit_clock.now += 60  # the minute windows have ended, the hour goes on
    assert await counter.increment("new", 60) == 1
    assert len(counter) == 2
    assert await counter.increment("long", 3600) == 2


async def test_the_local_counter_stays_bounded_under_a_flood_of_accounts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(throttle, "LOCAL_MAX_KEYS", 20)
    client = client_for(throttle=Throttle(credentials_per_client=None))
    for n in range(30):  # two keys per account: 60 keys counted
        assert (await sign_in(client, f"user{n}")).header("location") == REFUSED
    counter = counter_for(resolve(client.config))
    assert isinstance(counter, LocalCounter)
    assert len(counter) == 20


def test_limits_must_be_positive_integers() -> None:
    with pytest.raises(ValueError, match="count"):
        Limit(0, 60)
    with pytest.raises(ValueError, match="window"):
        Limit(5, 1.5)  # type: ignore[arg-type]
