"""What the suite's parts share: the method lists, checks that raise ``AssertionError``
with a message of their own, record factories, and the suite's options."""

from __future__ import annotations

import base64
import dataclasses
import inspect
import secrets
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar, TypeVar, cast

from authui.adapters.account import PasskeyDetails, SecurityEvent, SessionDetails
from authui.adapters.base import (
    Adapter,
    AdapterAccount,
    AdapterAuthenticator,
    AdapterSession,
    AdapterUser,
    RateLimitWindow,
    VerificationToken,
)
from authui.csrf import token_hash

#: The methods :class:`AdapterConformanceWithoutWebAuthn` requires.
ADAPTER_METHODS: tuple[str, ...] = (
    "create_user",
    "get_user",
    "get_user_by_email",
    "get_user_by_account",
    "update_user",
    "delete_user",
    "link_account",
    "unlink_account",
    "get_account",
    "create_session",
    "get_session_and_user",
    "update_session",
    "delete_session",
    "create_verification_token",
    "use_verification_token",
)

#: The passkey methods :class:`AdapterAuthenticatorConformance` requires.
AUTHENTICATOR_METHODS: tuple[str, ...] = (
    "get_authenticator",
    "create_authenticator",
    "list_authenticators_by_user_id",
    "update_authenticator_counter",
)

_T = TypeVar("_T")
_PRECISION = timedelta(milliseconds=1)
SECRET = "conformance-suite-secret-0123456789abcdef"  # noqa: S105 (a test value)
_MIN_CONCURRENCY = 20
HOUR, DAY = 3600, 86400  # window lengths, in seconds

RateLimiter = Callable[[str, int], Awaitable[int]]
"""An adapter's ``increment_rate_limit(key, window_seconds)``."""

Method = Callable[..., Awaitable[Any]]
"""One of the adapter's optional methods, as ``optional`` finds it."""


# -- checks ------------------------------------------------------------------------------
# The suite lives in an installed package, where pytest does not rewrite ``assert``; these
# raise ``AssertionError`` with a message of their own (and survive ``python -O``).


def expect(condition: bool, message: str) -> None:
    __tracebackhide__ = True
    if not condition:
        raise AssertionError(message)


def present(value: _T | None, what: str) -> _T:
    """``value``, which must not be ``None``."""
    __tracebackhide__ = True
    expect(value is not None, f"{what} returned None; expected a record")
    assert value is not None  # for the type checker; expect has raised otherwise
    return value


def absent(value: object, what: str) -> None:
    __tracebackhide__ = True
    expect(value is None, f"{what} returned {value!r}; expected None")


def check_utc(value: object, what: str) -> None:
    """``value`` is a timezone-aware ``datetime`` in UTC."""
    __tracebackhide__ = True
    expect(isinstance(value, datetime), f"{what} is {value!r}; expected a datetime")
    assert isinstance(value, datetime)
    expect(value.tzinfo is not None, f"{what} is naive ({value!r}); expected UTC")
    expect(
        value.utcoffset() == timedelta(0),
        f"{what} is {value.isoformat()}, offset {value.utcoffset()}; expected UTC",
    )


def check_dates_utc(record: object, what: str) -> None:
    """Every ``datetime`` field of ``record`` is timezone-aware UTC."""
    __tracebackhide__ = True
    for field in dataclasses.fields(record):  # type: ignore[arg-type]
        value = getattr(record, field.name)
        if isinstance(value, datetime):
            check_utc(value, f"{what}.{field.name}")


def same(actual: object, expected: _T, what: str) -> _T:
    """``actual`` is a record of ``expected``'s type with the same fields (dates to the
    millisecond, in UTC). Returns it, typed as ``expected``."""
    __tracebackhide__ = True
    record_type = type(expected)
    expect(
        isinstance(actual, record_type),
        f"{what} returned {actual!r}; expected a {record_type.__name__}",
    )
    for field in dataclasses.fields(expected):  # type: ignore[arg-type]
        got = getattr(actual, field.name)
        want = getattr(expected, field.name)
        where = f"{what}: {record_type.__name__}.{field.name}"
        if isinstance(want, datetime):
            check_utc(got, where)
            expect(
                abs(got - want) < _PRECISION,
                f"{where} is {got.isoformat()}; expected {want.isoformat()} (to the ms)",
            )
        else:
            expect(
                got == want and type(got) is type(want),
                f"{where} is {got!r}; expected {want!r}",
            )
    return actual  # type: ignore[return-value]


def same_or_none(actual: object, expected: object, what: str) -> None:
    """Methods whose protocol return is ``Record | None`` may return either."""
    __tracebackhide__ = True
    if actual is not None:
        same(actual, expected, what)


# -- fixtures ----------------------------------------------------------------------------


def date_in(*, days: float, microsecond: int) -> datetime:
    """A UTC date ``days`` from now with a sub-millisecond part, so that precision shows."""
    return (datetime.now(UTC) + timedelta(days=days)).replace(microsecond=microsecond)


def new_user(**fields: Any) -> AdapterUser:
    key = uuid.uuid4().hex
    values: dict[str, Any] = {
        "id": str(uuid.uuid4()),
        "email": f"ada.{key[:12]}@example.com",
        "email_verified": date_in(days=-1, microsecond=123_456),
        "name": "Ada Lovelace",
        "image": f"https://avatars.example.com/{key}.png",
    }
    values.update(fields)
    return AdapterUser(**values)


def new_account(user_id: str, **fields: Any) -> AdapterAccount:
    values: dict[str, Any] = {
        "user_id": user_id,
        "type": "oauth",
        "provider": "github",
        "provider_account_id": str(uuid.uuid4()),
        "access_token": f"gho_{secrets.token_urlsafe(27)}",
        "refresh_token": f"ghr_{secrets.token_urlsafe(54)}",
        "expires_at": int(datetime.now(UTC).timestamp()) + 28_800,
        "id_token": f"eyJhbGciOiJSUzI1NiJ9.{secrets.token_urlsafe(96)}.{secrets.token_urlsafe(64)}",
        "scope": "read:user user:email",
        "token_type": "bearer",
        "session_state": str(uuid.uuid4()),
    }
    values.update(fields)
    return AdapterAccount(**values)


def new_session(user_id: str) -> AdapterSession:
    return AdapterSession(
        session_token=str(uuid.uuid4()),
        user_id=user_id,
        expires=date_in(days=30, microsecond=654_321),
    )


def new_token(identifier: str | None = None) -> tuple[str, VerificationToken]:
    """The raw token a sign-in link carries, and the record stored for it (hashed)."""
    raw = secrets.token_hex(32)
    record = VerificationToken(
        identifier=identifier or f"grace.{uuid.uuid4().hex[:12]}@example.com",
        token=token_hash(raw, SECRET),
        expires=date_in(days=1, microsecond=246_801),
    )
    return raw, record


def b64(data: bytes, *, url: bool) -> str:
    if url:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
    return base64.b64encode(data).decode()


def new_authenticator(user_id: str, **fields: Any) -> AdapterAuthenticator:
    credential_id = b64(secrets.token_bytes(32), url=True)
    values: dict[str, Any] = {
        "credential_id": credential_id,
        "user_id": user_id,
        "provider_account_id": credential_id,
        "counter": secrets.randbelow(1000),
        "credential_backed_up": True,
        # A COSE public key, base64 with its padding: '+', '/' and '=' must survive.
        "credential_public_key": b64(b"\xa5\x01\x02\x03&" + secrets.token_bytes(72), url=False),
        "credential_device_type": "multiDevice",
        "transports": "usb,ble,nfc",
    }
    values.update(fields)
    return AdapterAuthenticator(**values)


#: A browser's ``User-Agent``, as the account center keeps it.
USER_AGENT = (
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.5 Safari/605.1.15"
)


def new_session_details(session: AdapterSession, **fields: Any) -> SessionDetails:
    """Details of ``session`` as the account center keeps them: the same for the same
    session whenever they are made (their dates count back from its ``expires``), so that a
    test can make them again to compare."""

    def before_expiry(days: int, microsecond: int) -> datetime:
        return (session.expires - timedelta(days=days)).replace(microsecond=microsecond)

    values: dict[str, Any] = {
        "session_token": session.session_token,
        "user_id": session.user_id,
        "expires": session.expires,
        "created": before_expiry(32, 111_111),
        "last_seen": before_expiry(31, 222_222),
        "auth_time": before_expiry(32, 333_333),
        "amr": ("fed", "hwk"),
        "user_agent": USER_AGENT,
        "client": "2001:db8:85a3::8a2e:370:7334",
    }
    values.update(fields)
    return SessionDetails(**values)


def new_passkey_details(authenticator: AdapterAuthenticator, **fields: Any) -> PasskeyDetails:
    """Details of ``authenticator`` as the account center keeps them."""
    values: dict[str, Any] = {
        "credential_id": authenticator.credential_id,
        "user_id": authenticator.user_id,
        "name": "MacBook Touch ID",
        "created": date_in(days=-3, microsecond=444_444),
        "last_used": date_in(days=-1, microsecond=555_555),
    }
    values.update(fields)
    return PasskeyDetails(**values)


def new_event(user_id: str, **fields: Any) -> SecurityEvent:
    """A security event of the user, an hour ago unless ``at`` says otherwise."""
    values: dict[str, Any] = {
        "user_id": user_id,
        "kind": "sign-in",
        "at": date_in(days=-1 / 24, microsecond=666_666),
        "provider": "github",
        "client": "203.0.113.7",
        "user_agent": USER_AGENT,
        "detail": {"country": "NZ", "method": "oauth"},
    }
    values.update(fields)
    return SecurityEvent(**values)


#: The fields of a user without email, as OAuth providers such as Twitter/X give none.
NO_EMAIL: dict[str, Any] = {"email": None, "email_verified": None}


def email_of(user: AdapterUser) -> str:
    """The address of a user the suite made with one (``new_user`` gives one by default)."""
    __tracebackhide__ = True
    email = user.email
    expect(email is not None, f"{user!r} has no email; the suite made it with one")
    assert email is not None  # for the type checker; expect has raised otherwise
    return email


async def add_user(adapter: Adapter, **fields: Any) -> AdapterUser:
    """Creates a user; returns the expected record, with the id the adapter gave it."""
    user = new_user(**fields)
    created = await adapter.create_user(user)
    expect(isinstance(created, AdapterUser), f"create_user returned {created!r}")
    return dataclasses.replace(user, id=created.id)


def optional(adapter: object, name: str) -> Method:
    """The adapter's method ``name``, one of authui's optional extensions: for an adapter
    without it, the test is skipped."""
    __tracebackhide__ = True
    method = getattr(adapter, name, None)
    if method is None:
        import pytest  # the suite runs under pytest; only this test outcome needs it

        pytest.skip(f"{type(adapter).__name__} has no {name} (it is optional)")
    expect(inspect.iscoroutinefunction(method), f"{name} must be async def")
    return cast("Method", method)


def rate_limiter(adapter: object) -> RateLimiter:
    """The adapter's ``increment_rate_limit``. It is optional (without it authui counts in
    each process on its own): for an adapter without it, the test is skipped."""
    __tracebackhide__ = True
    return cast("RateLimiter", optional(adapter, "increment_rate_limit"))


async def in_one_window(
    window_seconds: int, run: Callable[[str], Awaitable[list[int]]]
) -> tuple[str, int, list[int]]:
    """``run(key)`` with a fresh key, again (three times at most) until a run starts and
    ends in one window of ``window_seconds``; the key, that window's number and the counts
    the run returned. (A run that straddles a window's end rightly counts in two.)"""
    __tracebackhide__ = True
    for _ in range(3):
        key = f"email:suite:address:{secrets.token_hex(32)}"  # shaped like authui's keys
        window = RateLimitWindow.current(window_seconds).number
        counts = await run(key)
        if RateLimitWindow.current(window_seconds).number == window:
            return key, window, counts
    raise AssertionError(f"three runs each straddled the end of a {window_seconds} s window")


def check_coroutine_methods(adapter: object, names: tuple[str, ...]) -> None:
    __tracebackhide__ = True
    missing = [name for name in names if not callable(getattr(adapter, name, None))]
    not_async = [
        name
        for name in names
        if name not in missing and not inspect.iscoroutinefunction(getattr(adapter, name))
    ]
    expect(
        not missing and not not_async,
        f"{type(adapter).__name__}: missing {missing or 'none'}; "
        f"not async def: {not_async or 'none'}",
    )


# -- the suite ---------------------------------------------------------------------------


class ConformanceBase:
    """What every part of the suite shares: its options."""

    supports_webauthn: ClassVar[bool] = True
    concurrency: ClassVar[int] = 50

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.concurrency < _MIN_CONCURRENCY:
            raise TypeError(
                f"{cls.__name__}.concurrency is {cls.concurrency}; the suite races at least "
                f"{_MIN_CONCURRENCY} concurrent calls"
            )
