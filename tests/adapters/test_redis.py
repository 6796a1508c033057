"""``RedisAdapter`` against a real Redis.

The server comes from ``AUTHUI_TEST_REDIS_URL`` (default ``redis://127.0.0.1:6379/0``).
Each test gets its own key prefix and deletes every key under it afterwards, so runs can
share a server. Without a reachable Redis the tests skip, or fail with ``CI=true``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import re
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta, timezone

import pytest
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from authui.adapters.account import (
    SECURITY_EVENT_DAYS,
    SECURITY_EVENTS_KEPT,
    PasskeyDetails,
    SecurityEvent,
    SessionDetails,
)
from authui.adapters.base import (
    AdapterAccount,
    AdapterAuthenticator,
    AdapterSession,
    AdapterUser,
    Challenge,
    VerificationToken,
)
from authui.adapters.factors import MfaEnrolment, PasswordRecord, TrustedBrowser
from authui.adapters.redis import DEFAULT_PREFIX, RedisAdapter
from authui.testing import AdapterConformance
from tests.adapters.conftest import RateLimitClock
from tests.peers.availability import peer_missing

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
REDIS_URL = os.environ.get("AUTHUI_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")

_unreachable: list[str] = []  # the first failed connection's message, so later tests skip fast


# Fixtures -----------------------------------------------------------------------------


def unreachable(exc: Exception) -> str:
    return (
        f"Redis is not reachable at {REDIS_URL} ({exc}): start one "
        "(`docker run -p 6379:6379 redis:7`) or point AUTHUI_TEST_REDIS_URL at one"
    )


@pytest.fixture
async def redis_client() -> AsyncIterator[Redis]:
    """A client of the test server (replies as ``bytes``, no ``decode_responses``)."""
    if _unreachable:
        peer_missing(_unreachable[0])
    client = Redis.from_url(REDIS_URL, socket_connect_timeout=2, socket_timeout=10)
    try:
        await client.ping()
    except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
        await client.aclose()
        _unreachable.append(unreachable(exc))
        peer_missing(_unreachable[0])
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture
def prefix() -> str:
    """A key prefix no other test (or test run) uses."""
    return f"authui-test:{uuid.uuid4().hex}:"


@pytest.fixture
async def adapter(redis_client: Redis, prefix: str) -> AsyncIterator[RedisAdapter]:
    """A fresh, empty adapter; every key under its prefix is deleted afterwards."""
    assert await keys_under(redis_client, prefix) == set()
    try:
        yield RedisAdapter(redis_client, prefix=prefix)
    finally:
        await delete_prefixed(redis_client, prefix)


async def keys_under(client: Redis, prefix: str) -> set[str]:
    """Every key starting with ``prefix``, without the prefix (found with ``SCAN``)."""
    pattern = re.sub(r"([*?\[\]\\])", r"\\\1", prefix) + "*"
    found: set[str] = set()
    async for key in client.scan_iter(match=pattern, count=1000):
        found.add(as_text(key).removeprefix(prefix))
    return found


def as_text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


async def delete_prefixed(client: Redis, prefix: str) -> None:
    """``SCAN`` + ``DEL`` every key under ``prefix``."""
    keys = [prefix + key for key in await keys_under(client, prefix)]
    if keys:
        await client.delete(*keys)


# The conformance suite ---------------------------------------------------------------


class TestRedisAdapter(AdapterConformance):
    """The whole suite, with the module's ``adapter`` fixture (fresh prefix per test)."""


# Records ------------------------------------------------------------------------------


def new_id() -> str:
    return uuid.uuid4().hex


def make_user(email: str | None = None) -> AdapterUser:
    user_id = new_id()
    return AdapterUser(
        id=user_id,
        email=email or f"{user_id}@example.com",
        email_verified=datetime(2030, 1, 2, 3, 4, 5, 678901, tzinfo=UTC),
        name="Fill Murray",
        image="https://example.com/fill.png",
    )


def make_account(user_id: str, provider: str = "github") -> AdapterAccount:
    return AdapterAccount(
        user_id=user_id,
        type="oauth",
        provider=provider,
        provider_account_id=new_id(),
        access_token=new_id(),
        refresh_token=new_id(),
        expires_at=1_900_000_000,
        id_token=new_id(),
        scope="user",
        token_type="bearer",
        session_state=new_id(),
    )


def make_authenticator(user_id: str) -> AdapterAuthenticator:
    return AdapterAuthenticator(
        credential_id=new_id(),
        user_id=user_id,
        provider_account_id=new_id(),
        counter=7,
        credential_backed_up=False,
        credential_public_key="cHVibGljLWtleQ",
        credential_device_type="platform",
        transports="usb,ble,nfc",
    )


def in_(delta: timedelta) -> datetime:
    return datetime.now(UTC) + delta


ZERO = timedelta(0)


def details_of(session: AdapterSession) -> SessionDetails:
    now = datetime.now(UTC)
    return SessionDetails(
        session_token=session.session_token,
        user_id=session.user_id,
        expires=session.expires,
        created=now,
        last_seen=now,
        auth_time=now,
        amr=("email",),
    )


def is_utc(value: datetime) -> bool:
    return value.tzinfo is not None and value.utcoffset() == timedelta(0)


# Round trips and the adapter rules ----------------------------------------------------


async def test_missing_records_are_none(adapter: RedisAdapter) -> None:
    assert await adapter.get_user("nobody") is None
    assert await adapter.get_user_by_email("nobody@example.com") is None
    assert await adapter.get_user_by_account("github", "nobody") is None
    assert await adapter.get_account("nobody", "github") is None
    assert await adapter.unlink_account("github", "nobody") is None
    assert await adapter.get_session_and_user("nothing") is None
    assert await adapter.update_session("nothing", in_(timedelta(days=1))) is None
    assert await adapter.delete_session("nothing") is None
    assert await adapter.use_verification_token("a@example.com", "nothing") is None
    assert await adapter.get_authenticator("nothing") is None
    assert await adapter.list_authenticators_by_user_id("nobody") == []
    assert await adapter.delete_user("nobody") is None


async def test_round_trips(adapter: RedisAdapter) -> None:
    email = f"{new_id()}@example.com"
    user = make_user(email)
    assert await adapter.create_user(user) == user
    assert await adapter.get_user(user.id) == user
    assert await adapter.get_user_by_email(email) == user

    account = make_account(user.id)
    assert await adapter.link_account(account) == account
    assert await adapter.get_account(account.provider_account_id, "github") == account
    assert await adapter.get_account(account.provider_account_id, "google") is None
    assert await adapter.get_user_by_account("github", account.provider_account_id) == user

    session = AdapterSession(
        session_token=new_id(), user_id=user.id, expires=in_(timedelta(days=30))
    )
    assert await adapter.create_session(session) == session
    assert await adapter.get_session_and_user(session.session_token) == (session, user)

    token = VerificationToken(identifier=email, token=new_id(), expires=in_(timedelta(hours=1)))
    assert await adapter.create_verification_token(token) == token
    assert await adapter.use_verification_token("other@example.com", token.token) is None
    assert await adapter.use_verification_token(email, token.token) == token
    assert await adapter.use_verification_token(email, token.token) is None

    authenticator = make_authenticator(user.id)
    assert await adapter.create_authenticator(authenticator) == authenticator
    assert await adapter.get_authenticator(authenticator.credential_id) == authenticator

    assert await adapter.unlink_account("github", account.provider_account_id) == account
    assert await adapter.get_account(account.provider_account_id, "github") is None
    assert await adapter.delete_session(session.session_token) == session
    assert await adapter.get_session_and_user(session.session_token) is None


async def test_dates_come_out_aware_utc(adapter: RedisAdapter) -> None:
    plus_two = timezone(timedelta(hours=2))
    verified = datetime(2030, 6, 1, 14, 0, 0, 123456, tzinfo=plus_two)
    user = dataclass_user(make_user(), email_verified=verified)
    created = await adapter.create_user(user)
    stored = await adapter.get_user(user.id)
    assert stored is not None
    for value in (created.email_verified, stored.email_verified):
        assert value is not None
        assert is_utc(value)
        assert value == verified

    expires = in_(timedelta(days=1)).astimezone(plus_two)
    session = AdapterSession(session_token=new_id(), user_id=user.id, expires=expires)
    assert is_utc((await adapter.create_session(session)).expires)
    found = await adapter.get_session_and_user(session.session_token)
    assert found is not None
    assert is_utc(found[0].expires)
    assert found[0].expires == expires
    updated = await adapter.update_session(session.session_token, expires + timedelta(days=1))
    assert updated is not None
    assert is_utc(updated.expires)

    raw = await adapter.redis.get(adapter.user_key(user.id))
    assert raw is not None
    assert json.loads(raw)["emailVerified"] == "2030-06-01T12:00:00.123456+00:00"


def dataclass_user(user: AdapterUser, *, email_verified: datetime) -> AdapterUser:
    return AdapterUser(
        id=user.id,
        email=user.email,
        email_verified=email_verified,
        name=user.name,
        image=user.image,
    )


async def test_duplicate_user_id_or_email_is_refused(adapter: RedisAdapter) -> None:
    user = await adapter.create_user(make_user(email="taken@example.com"))
    with pytest.raises(ValueError, match="exists"):
        await adapter.create_user(AdapterUser(id=user.id, email="fresh@example.com"))
    with pytest.raises(ValueError, match="exists"):
        await adapter.create_user(AdapterUser(id=user.id))
    with pytest.raises(ValueError, match="email"):
        await adapter.create_user(make_user(email="taken@example.com"))
    assert await adapter.get_user_by_email("fresh@example.com") is None
    assert await adapter.get_user_by_email("taken@example.com") == user


async def test_update_authenticator_counter(adapter: RedisAdapter) -> None:
    user = await adapter.create_user(make_user())
    authenticator = await adapter.create_authenticator(make_authenticator(user.id))
    with pytest.raises(KeyError):
        await adapter.update_authenticator_counter("unknown", 9)
    updated = await adapter.update_authenticator_counter(authenticator.credential_id, 9)
    assert updated.counter == 9
    assert await adapter.get_authenticator(authenticator.credential_id) == updated


async def test_authenticators_are_listed_per_user_oldest_first(adapter: RedisAdapter) -> None:
    one, two = make_user(), make_user()
    await adapter.create_user(one)
    await adapter.create_user(two)
    first, second = make_authenticator(one.id), make_authenticator(one.id)
    other = make_authenticator(two.id)
    for authenticator in (first, second, other):
        await adapter.create_authenticator(authenticator)
    assert await adapter.list_authenticators_by_user_id(one.id) == [first, second]
    assert await adapter.list_authenticators_by_user_id(two.id) == [other]


# Redis specifics ----------------------------------------------------------------------


async def test_sessions_and_tokens_expire_at_expires(
    adapter: RedisAdapter, redis_client: Redis
) -> None:
    user = await adapter.create_user(make_user())
    session = await adapter.create_session(
        AdapterSession(session_token=new_id(), user_id=user.id, expires=in_(timedelta(hours=1)))
    )
    token = await adapter.create_verification_token(
        VerificationToken(
            identifier="ada@example.com", token=new_id(), expires=in_(timedelta(hours=2))
        )
    )

    async def ttl_is_near(key: str, expires: datetime) -> None:
        expected = (expires - datetime.now(UTC)) / timedelta(milliseconds=1)
        assert abs(await redis_client.pttl(key) - expected) < 2000

    await ttl_is_near(adapter.session_key(session.session_token), session.expires)
    await ttl_is_near(adapter.verification_token_key(token.identifier, token.token), token.expires)

    later = in_(timedelta(days=30))
    await adapter.update_session(session.session_token, later)
    await ttl_is_near(adapter.session_key(session.session_token), later)
    score = await redis_client.zscore(adapter.user_sessions_key(user.id), session.session_token)
    assert score == (later - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(milliseconds=1)


async def test_expired_sessions_and_tokens_disappear_by_themselves(
    adapter: RedisAdapter, redis_client: Redis
) -> None:
    user = await adapter.create_user(make_user())
    expires = in_(timedelta(seconds=1))
    session = await adapter.create_session(
        AdapterSession(session_token=new_id(), user_id=user.id, expires=expires)
    )
    token = await adapter.create_verification_token(
        VerificationToken(identifier="ada@example.com", token=new_id(), expires=expires)
    )
    assert await adapter.get_session_and_user(session.session_token) is not None

    await asyncio.sleep((expires - datetime.now(UTC)).total_seconds() + 0.1)

    assert await adapter.get_session_and_user(session.session_token) is None
    assert not await redis_client.exists(adapter.session_key(session.session_token))
    assert await adapter.use_verification_token(token.identifier, token.token) is None
    assert await adapter.get_user(user.id) == user


async def test_past_expiry_is_never_stored(adapter: RedisAdapter) -> None:
    user = await adapter.create_user(make_user())
    session = AdapterSession(
        session_token=new_id(), user_id=user.id, expires=in_(timedelta(minutes=-1))
    )
    await adapter.create_session(session)
    assert await adapter.get_session_and_user(session.session_token) is None


async def test_new_session_prunes_expired_tokens_from_the_user_index(
    adapter: RedisAdapter, redis_client: Redis
) -> None:
    user = await adapter.create_user(make_user())
    index = adapter.user_sessions_key(user.id)
    await redis_client.zadd(index, {"long-gone": 1_000})
    session = await adapter.create_session(
        AdapterSession(session_token=new_id(), user_id=user.id, expires=in_(timedelta(days=1)))
    )
    members = await redis_client.zrange(index, 0, -1)
    assert members == [session.session_token.encode()]


async def test_key_layout(redis_client: Redis, rate_limit_clock: RateLimitClock) -> None:
    prefix = f"myapp-{uuid.uuid4().hex}:auth:"
    adapter = RedisAdapter(redis_client, prefix=prefix)
    assert RedisAdapter(redis_client).prefix == DEFAULT_PREFIX == "authui:"
    try:
        user = await adapter.create_user(make_user(email="ada@example.com"))
        account = await adapter.link_account(make_account(user.id))
        assert account is not None
        session = await adapter.create_session(
            AdapterSession(session_token="tok", user_id=user.id, expires=in_(timedelta(days=1)))
        )
        await adapter.create_verification_token(
            VerificationToken(
                identifier="ada@example.com", token="hash", expires=in_(timedelta(hours=1))
            )
        )
        authenticator = await adapter.create_authenticator(make_authenticator(user.id))
        await adapter.increment_rate_limit("email:client:2001:db8::1", 3600)
        challenge = Challenge("5e" * 32, in_(timedelta(minutes=5)))
        await adapter.create_challenge(challenge)
        holder = await adapter.claim_lease("refresh:github:1", 60)
        now = datetime.now(UTC)
        await adapter.save_session_details(
            SessionDetails(
                session_token="tok",
                user_id=user.id,
                expires=session.expires,
                created=now,
                last_seen=now,
                auth_time=now,
                amr=("fed", "hwk"),
                client="2001:db8::1",
            )
        )
        await adapter.save_authenticator_details(
            PasskeyDetails(credential_id=authenticator.credential_id, user_id=user.id, name="A")
        )
        await adapter.record_security_event(SecurityEvent(user_id=user.id, kind="sign-in", at=now))
        await adapter.bump_session_version(user.id)
        password = PasswordRecord(user_id=user.id, hash="$argon2id$v=19$h", updated=now)
        await adapter.set_password(password)
        await adapter.save_mfa(
            MfaEnrolment(user_id=user.id, created=now, totp_secret="v1.s", totp_last_step=9)
        )
        await adapter.replace_recovery_codes(user.id, ["c0" * 32])
        browser = TrustedBrowser(
            browser_id="br", user_id=user.id, created=now, expires=in_(timedelta(days=30))
        )
        await adapter.save_trusted_browser(browser)

        pai, cid = account.provider_account_id, authenticator.credential_id
        expected = {
            f"user:{user.id}": "string",
            "user-by-email:ada@example.com": "string",
            f"account:github:{pai}": "string",
            f"user-accounts:{user.id}": "set",
            f"session:{session.session_token}": "string",
            f"user-sessions:{user.id}": "zset",
            "token:ada@example.com:hash": "string",
            f"authenticator:{cid}": "string",
            f"user-authenticators:{user.id}": "list",
            "rate-limits:email:client:2001:db8::1": "hash",
            f"challenge:{challenge.key}": "string",
            "lease:refresh:github:1": "string",
            "session-details:tok": "string",
            f"passkey-details:{cid}": "string",
            f"user-events:{user.id}": "list",
            f"session-version:{user.id}": "string",
            f"password:{user.id}": "string",
            f"mfa:{user.id}": "string",
            f"recovery-codes:{user.id}": "set",
            "trusted-browser:br": "string",
            f"user-trusted-browsers:{user.id}": "zset",
        }
        assert await keys_under(redis_client, prefix) == set(expected)
        for key, kind in expected.items():
            assert as_text(await redis_client.type(prefix + key)) == kind

        assert await redis_client.get(prefix + "user-by-email:ada@example.com") == user.id.encode()
        assert await redis_client.smembers(prefix + f"user-accounts:{user.id}") == {
            f"github:{pai}".encode()
        }
        stored = json.loads(await redis_client.get(prefix + f"user:{user.id}") or "null")
        assert stored == {
            "id": user.id,
            "email": "ada@example.com",
            "emailVerified": "2030-01-02T03:04:05.678901+00:00",
            "name": "Fill Murray",
            "image": "https://example.com/fill.png",
        }
        stored = json.loads(await redis_client.get(prefix + f"account:github:{pai}") or "null")
        assert stored["userId"] == user.id
        assert stored["providerAccountId"] == pai
        stored = json.loads(await redis_client.get(prefix + f"authenticator:{cid}") or "null")
        assert stored["credentialID"] == cid
        stored = json.loads(await redis_client.get(prefix + f"challenge:{challenge.key}") or "0")
        assert stored == {"key": challenge.key, "expires": challenge.expires.isoformat()}
        counts = await redis_client.hgetall(prefix + "rate-limits:email:client:2001:db8::1")
        assert counts == {b"window:3600": b"277", b"count:3600": b"1"}  # 1_000_000 // 3600
        assert await redis_client.get(prefix + "lease:refresh:github:1") == str(holder).encode()
        stored = json.loads(await redis_client.get(prefix + "session-details:tok") or "null")
        assert stored == {
            "sessionToken": "tok",
            "userId": user.id,
            "expires": session.expires.isoformat(),
            "created": now.isoformat(),
            "lastSeen": now.isoformat(),
            "authTime": now.isoformat(),
            "amr": ["fed", "hwk"],
            "userAgent": None,
            "client": "2001:db8::1",
        }
        stored = json.loads(await redis_client.get(prefix + f"passkey-details:{cid}") or "null")
        assert stored == {
            "credentialID": cid,
            "userId": user.id,
            "name": "A",
            "created": None,
            "lastUsed": None,
        }
        (event,) = await redis_client.lrange(prefix + f"user-events:{user.id}", 0, -1)
        assert json.loads(event) == {
            "userId": user.id,
            "kind": "sign-in",
            "at": now.isoformat(),
            "provider": None,
            "client": None,
            "userAgent": None,
            "detail": {},
        }
        assert await redis_client.get(prefix + f"session-version:{user.id}") == b"1"
        stored = json.loads(await redis_client.get(prefix + f"password:{user.id}") or "null")
        assert stored == {"userId": user.id, "hash": "$argon2id$v=19$h", "updated": now.isoformat()}
        stored = json.loads(await redis_client.get(prefix + f"mfa:{user.id}") or "null")
        assert stored == {
            "userId": user.id,
            "created": now.isoformat(),
            "totpSecret": "v1.s",
            "totpLastStep": 9,
            "passkey": False,
        }
        codes = await redis_client.smembers(prefix + f"recovery-codes:{user.id}")
        assert codes == {b"c0" * 32}
        stored = json.loads(await redis_client.get(prefix + "trusted-browser:br") or "null")
        assert stored == {
            "browserId": "br",
            "userId": user.id,
            "created": now.isoformat(),
            "expires": browser.expires.isoformat(),
            "userAgent": None,
            "client": None,
        }
        expires_ms = (browser.expires - EPOCH) // timedelta(milliseconds=1)
        index = prefix + f"user-trusted-browsers:{user.id}"
        assert await redis_client.zrange(index, 0, -1, withscores=True) == [(b"br", expires_ms)]
    finally:
        await delete_prefixed(redis_client, prefix)


async def test_rate_limit_counts_expire_when_their_longest_window_ends(
    adapter: RedisAdapter, redis_client: Redis, rate_limit_clock: RateLimitClock
) -> None:
    """A key's counts are one hash holding each window length's current window and count;
    it lives until the longest of those windows ends (``PEXPIRE`` of the time left, so
    Redis's clock need not agree with the app's), and a new window replaces the last."""
    key = adapter.rate_limit_key("k")
    assert key == f"{adapter.prefix}rate-limits:k"
    rate_limit_clock.now = 1_000_000.5  # 799.5 s before the end of window 277 of an hour
    assert [await adapter.increment_rate_limit("k", 3600) for _ in range(3)] == [1, 2, 3]
    assert await redis_client.hgetall(key) == {b"window:3600": b"277", b"count:3600": b"3"}
    assert 799_500 - 2000 < await redis_client.pttl(key) <= 799_500

    assert await adapter.increment_rate_limit("k", 60) == 1  # ends sooner: no shorter life
    assert 799_500 - 2000 < await redis_client.pttl(key) <= 799_500
    rate_limit_clock.now = 1_000_800.0  # the next hour, at its very start
    assert await adapter.increment_rate_limit("k", 3600) == 1
    assert await redis_client.pttl(key) > 3_598_000
    assert await adapter.increment_rate_limit("k", 60) == 1  # a new minute too
    assert await redis_client.hgetall(key) == {
        b"window:3600": b"278",
        b"count:3600": b"1",
        b"window:60": b"16680",
        b"count:60": b"1",
    }
    assert await keys_under(redis_client, adapter.prefix) == {"rate-limits:k"}


async def test_reset_rate_limit_deletes_the_keys_counts(
    adapter: RedisAdapter, redis_client: Redis
) -> None:
    for seconds in (60, 3600, 86400):
        await adapter.increment_rate_limit("k", seconds)
    await adapter.increment_rate_limit("other", 60)
    await adapter.reset_rate_limit("k")
    assert await keys_under(redis_client, adapter.prefix) == {"rate-limits:other"}
    assert await adapter.increment_rate_limit("k", 3600) == 1


async def test_challenges_expire_at_expires(adapter: RedisAdapter, redis_client: Redis) -> None:
    """Redis drops a challenge when it expires (``SET … PXAT``); one already expired is
    never stored, and storing a key again keeps the first challenge."""
    challenge = Challenge("ab" * 32, in_(timedelta(minutes=5)))
    await adapter.create_challenge(challenge)
    await adapter.create_challenge(dataclasses.replace(challenge, expires=in_(timedelta(hours=1))))
    expires_at = await redis_client.pexpiretime(adapter.challenge_key(challenge.key))
    assert expires_at == (challenge.expires - EPOCH) // timedelta(milliseconds=1)
    await adapter.create_challenge(Challenge("cd" * 32, in_(timedelta(seconds=-1))))
    assert await keys_under(redis_client, adapter.prefix) == {f"challenge:{challenge.key}"}
    assert await adapter.use_challenge(challenge.key) == challenge
    assert await keys_under(redis_client, adapter.prefix) == set()


async def test_session_details_expire_with_their_session(
    adapter: RedisAdapter, redis_client: Redis
) -> None:
    """Details get a TTL at their ``expires``, which a touch moves, so that the details of
    a session that Auth.js deleted go by themselves; details already expired are never
    stored."""
    session = AdapterSession(session_token="s", user_id="u", expires=in_(timedelta(days=1)))
    await adapter.save_session_details(details_of(session))
    key = adapter.session_details_key("s")
    assert await redis_client.pexpiretime(key) == (session.expires - EPOCH) // timedelta(
        milliseconds=1
    )
    later = in_(timedelta(days=30))
    await adapter.touch_session_details("s", in_(ZERO), later)
    assert await redis_client.pexpiretime(key) == (later - EPOCH) // timedelta(milliseconds=1)
    await adapter.touch_session_details("none", in_(ZERO), later)
    gone = dataclasses.replace(session, session_token="gone", expires=in_(timedelta(seconds=-1)))
    await adapter.save_session_details(details_of(gone))
    assert await keys_under(redis_client, adapter.prefix) == {"session-details:s"}


async def test_security_events_expire_days_after_the_newest(
    adapter: RedisAdapter, redis_client: Redis
) -> None:
    newest, older = in_(ZERO), in_(timedelta(days=-10))
    for at in (newest, older):
        await adapter.record_security_event(SecurityEvent(user_id="u", kind="k", at=at))
    until = newest + timedelta(days=SECURITY_EVENT_DAYS)
    key = adapter.user_events_key("u")
    assert await redis_client.pexpiretime(key) == (until - EPOCH) // timedelta(milliseconds=1)
    for n in range(SECURITY_EVENTS_KEPT):
        event = SecurityEvent(user_id="u", kind=f"e{n}", at=in_(timedelta(seconds=-n)))
        await adapter.record_security_event(event)
    assert await redis_client.llen(key) == SECURITY_EVENTS_KEPT


async def test_trusted_browsers_expire_at_expires(
    adapter: RedisAdapter, redis_client: Redis
) -> None:
    """A browser gets a TTL at its ``expires``, and its user's index one at the latest
    ``expires`` of its browsers (``… GT``: a browser expiring sooner never shortens it);
    saving a browser drops the index's expired entries, and one already expired is never
    stored."""
    user = await adapter.create_user(make_user())

    def browser(browser_id: str, expires: datetime) -> TrustedBrowser:
        return TrustedBrowser(
            browser_id=browser_id, user_id=user.id, created=in_(ZERO), expires=expires
        )

    def ms(value: datetime) -> int:
        return (value - EPOCH) // timedelta(milliseconds=1)

    late, soon = in_(timedelta(days=30)), in_(timedelta(days=1))
    index = adapter.user_trusted_browsers_key(user.id)
    await adapter.save_trusted_browser(browser("late", late))
    await adapter.save_trusted_browser(browser("soon", soon))
    assert await redis_client.pexpiretime(adapter.trusted_browser_key("late")) == ms(late)
    assert await redis_client.pexpiretime(adapter.trusted_browser_key("soon")) == ms(soon)
    assert await redis_client.pexpiretime(index) == ms(late)
    await redis_client.zadd(index, {"dropped": ms(in_(timedelta(seconds=-1)))})
    await adapter.save_trusted_browser(browser("gone", in_(timedelta(seconds=-1))))
    assert await redis_client.zrange(index, 0, -1) == [b"soon", b"late"]
    assert {key for key in await keys_under(redis_client, adapter.prefix) if "browser" in key} == {
        "trusted-browser:late",
        "trusted-browser:soon",
        f"user-trusted-browsers:{user.id}",
    }
    assert await adapter.delete_trusted_browsers(user.id) == 2
    assert await keys_under(redis_client, adapter.prefix) == {
        f"user:{user.id}",
        f"user-by-email:{user.email}",
    }


async def test_delete_mfa_deletes_its_keys(adapter: RedisAdapter, redis_client: Redis) -> None:
    user = await adapter.create_user(make_user())
    now = datetime.now(UTC)
    await adapter.set_password(PasswordRecord(user_id=user.id, hash="$h", updated=now))
    await adapter.save_mfa(MfaEnrolment(user_id=user.id, created=now, passkey=True))
    await adapter.replace_recovery_codes(user.id, ["a", "b"])
    for browser_id in ("x", "y"):
        await adapter.save_trusted_browser(
            TrustedBrowser(
                browser_id=browser_id, user_id=user.id, created=now, expires=in_(timedelta(days=1))
            )
        )
    assert await adapter.delete_mfa(user.id)
    assert await keys_under(redis_client, adapter.prefix) == {
        f"user:{user.id}",
        f"user-by-email:{user.email}",
        f"password:{user.id}",
    }


async def test_a_lease_is_a_key_that_redis_drops_when_it_runs_out(
    adapter: RedisAdapter, redis_client: Redis
) -> None:
    """``SET … NX PX``: the key holds the holder's token and lives for the lease's
    seconds; releasing deletes it, but only for its holder."""
    key = adapter.lease_key("k")
    assert key == f"{adapter.prefix}lease:k"
    holder = await adapter.claim_lease("k", 90)
    assert holder is not None
    assert await redis_client.get(key) == holder.encode()
    assert 89_000 < await redis_client.pttl(key) <= 90_000
    await adapter.release_lease("k", "another")
    assert await redis_client.get(key) == holder.encode()
    await adapter.release_lease("k", holder)
    assert await keys_under(redis_client, adapter.prefix) == set()


async def test_delete_user_sessions_empties_the_users_index(
    adapter: RedisAdapter, redis_client: Redis
) -> None:
    """The user's sessions and index go; a token in the index whose session has expired
    (Redis dropped it) is not counted; other users' keys stay."""
    ada, bob = await adapter.create_user(make_user()), await adapter.create_user(make_user())
    for user, token in ((ada, "ada-1"), (ada, "ada-2"), (bob, "bob-1")):
        await adapter.create_session(
            AdapterSession(session_token=token, user_id=user.id, expires=in_(timedelta(days=1)))
        )
    await redis_client.zadd(adapter.user_sessions_key(ada.id), {"gone": 4_000_000_000_000})
    assert await adapter.delete_user_sessions(ada.id) == 2
    assert await keys_under(redis_client, adapter.prefix) == {
        f"user:{ada.id}",
        f"user-by-email:{ada.email}",
        f"user:{bob.id}",
        f"user-by-email:{bob.email}",
        "session:bob-1",
        f"user-sessions:{bob.id}",
    }
    assert await adapter.delete_user_sessions(ada.id) == 0


async def test_concurrent_sessions_and_logout_keep_the_index_whole(adapter: RedisAdapter) -> None:
    """Sessions created while ``delete_user_sessions`` runs are either deleted by it (and
    counted) or stay findable through the index, for the next one."""
    user = await adapter.create_user(make_user())
    expires = in_(timedelta(days=1))

    async def create(n: int) -> None:
        session = AdapterSession(session_token=f"s-{n}", user_id=user.id, expires=expires)
        await adapter.create_session(session)

    results = await asyncio.gather(
        *(create(n) for n in range(20)),
        adapter.delete_user_sessions(user.id),
        *(create(n) for n in range(20, 40)),
    )
    deleted = sum(result for result in results if isinstance(result, int))
    assert deleted + await adapter.delete_user_sessions(user.id) == 40
    for n in range(40):
        assert await adapter.get_session_and_user(f"s-{n}") is None


async def test_colons_in_key_parts_cannot_collide(adapter: RedisAdapter) -> None:
    user = await adapter.create_user(make_user())
    one = AdapterAccount(user_id=user.id, type="oidc", provider="a:b", provider_account_id="c")
    two = AdapterAccount(user_id=user.id, type="oidc", provider="a", provider_account_id="b:c")
    await adapter.link_account(one)
    await adapter.link_account(two)
    assert await adapter.get_account("c", "a:b") == one
    assert await adapter.get_account("b:c", "a") == two
    assert adapter.account_key("a:b", "c") == f"{adapter.prefix}account:a%3Ab:c"

    for identifier, token in (("x:y", "z"), ("x", "y:z")):
        await adapter.create_verification_token(
            VerificationToken(identifier=identifier, token=token, expires=in_(timedelta(hours=1)))
        )
    used = await adapter.use_verification_token("x:y", "z")
    assert used is not None
    assert used.identifier == "x:y"
    assert await adapter.use_verification_token("x", "y:z") is not None


async def test_email_index_follows_update_and_delete(
    adapter: RedisAdapter, redis_client: Redis
) -> None:
    user = await adapter.create_user(make_user(email="old@example.com"))
    other = await adapter.create_user(make_user(email="other@example.com"))

    renamed = await adapter.update_user(user.id, {"name": "Ada"})
    assert renamed.name == "Ada"
    assert await adapter.get_user_by_email("old@example.com") == renamed

    moved = await adapter.update_user(user.id, {"email": "new@example.com"})
    assert moved.email == "new@example.com"
    assert await adapter.get_user_by_email("old@example.com") is None
    assert await adapter.get_user_by_email("new@example.com") == moved
    assert not await redis_client.exists(adapter.email_key("old@example.com"))

    with pytest.raises(ValueError, match="email"):
        await adapter.update_user(user.id, {"email": "other@example.com"})
    assert await adapter.get_user(user.id) == moved
    assert await adapter.get_user_by_email("other@example.com") == other

    with pytest.raises(KeyError):
        await adapter.update_user("nobody", {"name": "x"})

    assert await adapter.delete_user(user.id) == moved
    assert await adapter.get_user_by_email("new@example.com") is None
    assert not await redis_client.exists(adapter.email_key("new@example.com"))
    assert await adapter.get_user_by_email("other@example.com") == other


async def test_users_without_email_have_no_email_key(
    adapter: RedisAdapter, redis_client: Redis
) -> None:
    first = await adapter.create_user(dataclasses.replace(make_user(), email=None))
    second, _ = await adapter.create_user_and_session(
        dataclasses.replace(make_user(), email=None), new_id(), in_(timedelta(days=1))
    )
    assert {
        key for key in await keys_under(redis_client, adapter.prefix) if "email" in key
    } == set()

    given = await adapter.update_user(first.id, {"email": "ada@example.com"})
    assert given == dataclasses.replace(first, email="ada@example.com")
    assert await redis_client.get(adapter.email_key("ada@example.com")) == first.id.encode()
    with pytest.raises(ValueError, match="email"):
        await adapter.update_user(second.id, {"email": "ada@example.com"})

    assert await adapter.update_user(first.id, {"email": None}) == first
    assert not await redis_client.exists(adapter.email_key("ada@example.com"))
    assert await adapter.get_user_by_email("ada@example.com") is None
    taken = await adapter.update_user(second.id, {"email": "ada@example.com"})  # free again
    assert await adapter.get_user_by_email("ada@example.com") == taken

    assert await adapter.delete_user(first.id) == first
    assert await adapter.get_user_by_email("ada@example.com") == taken
    assert await adapter.delete_user(second.id) == taken
    assert await keys_under(redis_client, adapter.prefix) == set()


async def test_delete_user_removes_everything_of_theirs(
    adapter: RedisAdapter, redis_client: Redis
) -> None:
    async def populate(user: AdapterUser) -> None:
        await adapter.create_user(user)
        for provider in ("github", "google"):
            await adapter.link_account(make_account(user.id, provider))
        for _ in range(2):
            session = await adapter.create_session(
                AdapterSession(
                    session_token=new_id(), user_id=user.id, expires=in_(timedelta(days=1))
                )
            )
            await adapter.save_session_details(details_of(session))
            authenticator = await adapter.create_authenticator(make_authenticator(user.id))
            await adapter.save_authenticator_details(
                PasskeyDetails(credential_id=authenticator.credential_id, user_id=user.id, name="k")
            )
        await adapter.record_security_event(SecurityEvent(user_id=user.id, kind="k", at=in_(ZERO)))
        await adapter.bump_session_version(user.id)
        now = in_(ZERO)
        await adapter.set_password(PasswordRecord(user_id=user.id, hash="$h", updated=now))
        await adapter.save_mfa(MfaEnrolment(user_id=user.id, created=now, totp_secret="s"))
        await adapter.replace_recovery_codes(user.id, ["a", "b"])
        for _ in range(2):
            await adapter.save_trusted_browser(
                TrustedBrowser(
                    browser_id=new_id(), user_id=user.id, created=now, expires=in_(timedelta(1))
                )
            )

    doomed, survivor = make_user(), make_user()
    await populate(survivor)
    survivor_keys = await keys_under(redis_client, adapter.prefix)
    await populate(doomed)

    assert await adapter.delete_user(doomed.id) == doomed
    # all but the session version, which ends the user's JWT sessions once bumped
    kept = {adapter.session_version_key(doomed.id).removeprefix(adapter.prefix)}
    assert await keys_under(redis_client, adapter.prefix) == survivor_keys | kept
    assert await adapter.get_session_version(doomed.id) == 1
    assert await adapter.get_user(doomed.id) is None
    assert await adapter.list_authenticators_by_user_id(doomed.id) == []
    assert len(await adapter.list_authenticators_by_user_id(survivor.id)) == 2


async def test_concurrent_use_verification_token_hands_it_out_once(
    adapter: RedisAdapter,
) -> None:
    token = await adapter.create_verification_token(
        VerificationToken(
            identifier="race@example.com", token=new_id(), expires=in_(timedelta(hours=1))
        )
    )
    results = await asyncio.gather(
        *(adapter.use_verification_token(token.identifier, token.token) for _ in range(50))
    )
    assert [r for r in results if r is not None] == [token]
    assert results.count(None) == 49


async def test_concurrent_counter_updates_and_links_stay_consistent(
    adapter: RedisAdapter, redis_client: Redis
) -> None:
    user = await adapter.create_user(make_user())
    authenticator = await adapter.create_authenticator(make_authenticator(user.id))
    accounts = [make_account(user.id, provider=f"p{i}") for i in range(20)]
    await asyncio.gather(
        *(adapter.update_authenticator_counter(authenticator.credential_id, n) for n in range(20)),
        *(adapter.link_account(account) for account in accounts),
    )
    stored = await adapter.get_authenticator(authenticator.credential_id)
    assert stored is not None
    assert stored.counter in range(20)
    assert len(await redis_client.smembers(adapter.user_accounts_key(user.id))) == 20

    await adapter.delete_user(user.id)
    assert await keys_under(redis_client, adapter.prefix) == set()


async def test_concurrent_new_users_with_one_account_store_one_user(
    adapter: RedisAdapter, redis_client: Redis
) -> None:
    """Twenty sign-ins race to create a user for one new provider account (a double
    click): one user and its account are stored, the others are refused whole."""
    account = make_account("anyone")
    results = await asyncio.gather(
        *(adapter.create_user_and_account(make_user(), account) for _ in range(20)),
        return_exceptions=True,
    )
    stored = [r for r in results if not isinstance(r, BaseException)]
    assert len(stored) == 1
    assert all(isinstance(r, ValueError) for r in results if r not in stored)
    user, linked = stored[0]
    assert linked == dataclasses.replace(account, user_id=user.id)
    assert await adapter.get_user_by_account(account.provider, account.provider_account_id) == user
    users = {key for key in await keys_under(redis_client, adapter.prefix) if key[:5] == "user:"}
    assert users == {f"user:{user.id}"}


async def test_built_from_a_url_it_owns_and_closes_its_client(prefix: str) -> None:
    adapter = RedisAdapter(REDIS_URL, prefix=prefix)
    try:
        await adapter.redis.ping()
    except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
        await adapter.close()
        peer_missing(unreachable(exc))
    async with adapter:
        user = await adapter.create_user(make_user("ada@example.com"))
        assert await adapter.get_user_by_email("ada@example.com") == user  # str replies
        assert await adapter.delete_user(user.id) == user
        assert await keys_under(adapter.redis, prefix) == set()


# The session check's own connection ------------------------------------------------------


@pytest.fixture
async def named_adapter(prefix: str) -> AsyncIterator[tuple[RedisAdapter, str]]:
    """An adapter over a client whose connections carry a name of their own, so that a
    test can find them in ``CLIENT LIST``; with one stored user."""
    name = f"authui-check-{new_id()[:12]}"
    client = Redis.from_url(REDIS_URL, client_name=name, socket_timeout=10)
    try:
        await client.ping()
    except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
        await client.aclose()
        peer_missing(unreachable(exc))
    adapter = RedisAdapter(client, prefix=prefix)
    await adapter.create_user(dataclasses.replace(make_user(), id="u1"))
    try:
        yield adapter, name
    finally:
        await adapter.close()
        await delete_prefixed(client, prefix)
        await client.aclose()


async def connections_named(client: Redis, name: str) -> list[dict[str, str]]:
    return [c for c in await client.client_list() if c.get("name") == name]


async def new_session(adapter: RedisAdapter) -> str:
    token = new_id()
    expires = in_(timedelta(days=1))
    await adapter.create_session(AdapterSession(session_token=token, user_id="u1", expires=expires))
    return token


async def test_the_check_keeps_one_connection_and_closing_gives_it_back(
    named_adapter: tuple[RedisAdapter, str], redis_client: Redis
) -> None:
    adapter, name = named_adapter
    tokens = [await new_session(adapter) for _ in range(3)]
    found = await asyncio.gather(*(adapter.get_session_and_user(t) for t in tokens * 10))
    assert [f[0].session_token for f in found if f] == tokens * 10
    pool = adapter.redis.connection_pool
    assert len(pool._in_use_connections) == 1  # the check's, held between checks
    await adapter.close()
    assert not pool._in_use_connections
    assert await adapter.get_session_and_user(tokens[0]) is not None  # taken again
    await adapter.redis.aclose()  # the owner closing the client closes it too
    assert await connections_named(redis_client, name) == []


async def end_its_connections(client: Redis, name: str) -> None:
    """The server ends the adapter's connections (a restart, an idle ``timeout``)."""
    ended = await connections_named(client, name)
    assert ended
    for connection in ended:
        await client.client_kill_filter(_id=str(connection["id"]))


async def forget_the_script(client: Redis, name: str) -> None:
    """The server forgets its scripts (a restart, ``SCRIPT FLUSH``)."""
    await client.script_flush()


@pytest.mark.parametrize("disturb", [end_its_connections, forget_the_script])
async def test_the_check_goes_on_after_the_server_ended_or_forgot_things(
    named_adapter: tuple[RedisAdapter, str],
    redis_client: Redis,
    disturb: Callable[[Redis, str], Awaitable[None]],
) -> None:
    adapter, name = named_adapter
    token = await new_session(adapter)
    assert await adapter.get_session_and_user(token) is not None
    await disturb(redis_client, name)
    found = await adapter.get_session_and_user(token)
    assert found is not None
    assert (found[0].session_token, found[1].id) == (token, "u1")
    assert await adapter.get_session_and_user(new_id()) is None


async def test_a_check_cancelled_while_waiting_leaves_no_reply_for_the_next(
    named_adapter: tuple[RedisAdapter, str], redis_client: Redis
) -> None:
    adapter, _ = named_adapter
    first, second = await new_session(adapter), await new_session(adapter)
    assert await adapter.get_session_and_user(first) is not None
    await redis_client.client_pause(300)
    try:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(adapter.get_session_and_user(first), 0.1)
    finally:
        await redis_client.client_unpause()
    found = await adapter.get_session_and_user(second)
    assert found is not None
    assert found[0].session_token == second
