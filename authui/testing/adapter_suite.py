"""The adapter conformance suite: pytest tests every authui adapter should pass.

It is the counterpart of Auth.js's ``runBasicTests``, with independent tests: each test
makes the users, accounts, sessions and tokens it needs, in an adapter that starts empty.
Subclass :class:`AdapterConformance` (or :class:`AdapterConformanceWithoutWebAuthn`) in
your own test module and give it an ``adapter`` fixture::

    import pytest
    from collections.abc import AsyncIterator

    from authui.testing import AdapterConformance


    class TestMyAdapter(AdapterConformance):
        @pytest.fixture
        async def adapter(self) -> AsyncIterator[MyAdapter]:
            adapter = await MyAdapter.connect(...)
            yield adapter  # fresh and empty for every test
            await adapter.close()

The tests are ``async def`` methods, so pytest needs pytest-asyncio with
``asyncio_mode = "auto"`` (or, in strict mode, ``pytestmark = pytest.mark.asyncio`` on
the class and ``@pytest_asyncio.fixture`` on ``adapter``).

The suite raises ``AssertionError`` itself, with a message naming the method and field,
rather than relying on pytest's assertion rewriting (which does not reach installed
packages), so failures read the same under any configuration.

authui's optional ``increment_rate_limit`` (an extension of Auth.js's interface) is tested
when the adapter has it, and those tests are skipped when it has not. One of them waits for
the next second (1-second windows), so the suite takes up to a second longer for it.

Dates are compared to the millisecond: a returned ``datetime`` must be timezone-aware,
in UTC (``utcoffset() == 0``) and less than one millisecond away from the value given,
so adapters that keep milliseconds (JSON ``toISOString`` dates, ``DATETIME(3)``,
JavaScript's ``Date``) pass, and adapters that keep only seconds do not.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import inspect
import secrets
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar, TypeVar, cast

from authui.adapters.base import (
    Adapter,
    AdapterAccount,
    AdapterAuthenticator,
    AdapterSession,
    AdapterUser,
    RateLimitWindow,
    VerificationToken,
)
from authui.config import AuthConfig, SessionOptions
from authui.csrf import token_hash
from authui.mail.message import VerificationEmail
from authui.providers.email import EmailProvider
from authui.testing.client import AuthClient

__all__ = [
    "ADAPTER_METHODS",
    "AUTHENTICATOR_METHODS",
    "AdapterAuthenticatorConformance",
    "AdapterConformance",
    "AdapterConformanceWithoutWebAuthn",
]

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
_SECRET = "conformance-suite-secret-0123456789abcdef"  # noqa: S105 (a test value)
_MIN_CONCURRENCY = 20
_HOUR, _DAY = 3600, 86400  # window lengths, in seconds

RateLimiter = Callable[[str, int], Awaitable[int]]
"""An adapter's ``increment_rate_limit(key, window_seconds)``."""


# -- checks ------------------------------------------------------------------------------
# The suite lives in an installed package, where pytest does not rewrite ``assert``; these
# raise ``AssertionError`` with a message of their own (and survive ``python -O``).


def _expect(condition: bool, message: str) -> None:
    __tracebackhide__ = True
    if not condition:
        raise AssertionError(message)


def _present(value: _T | None, what: str) -> _T:
    """``value``, which must not be ``None``."""
    __tracebackhide__ = True
    _expect(value is not None, f"{what} returned None; expected a record")
    assert value is not None  # for the type checker; _expect has raised otherwise
    return value


def _absent(value: object, what: str) -> None:
    __tracebackhide__ = True
    _expect(value is None, f"{what} returned {value!r}; expected None")


def _utc(value: object, what: str) -> None:
    """``value`` is a timezone-aware ``datetime`` in UTC."""
    __tracebackhide__ = True
    _expect(isinstance(value, datetime), f"{what} is {value!r}; expected a datetime")
    assert isinstance(value, datetime)
    _expect(value.tzinfo is not None, f"{what} is naive ({value!r}); expected UTC")
    _expect(
        value.utcoffset() == timedelta(0),
        f"{what} is {value.isoformat()}, offset {value.utcoffset()}; expected UTC",
    )


def _dates_utc(record: object, what: str) -> None:
    """Every ``datetime`` field of ``record`` is timezone-aware UTC."""
    __tracebackhide__ = True
    for field in dataclasses.fields(record):  # type: ignore[arg-type]
        value = getattr(record, field.name)
        if isinstance(value, datetime):
            _utc(value, f"{what}.{field.name}")


def _same(actual: object, expected: _T, what: str) -> _T:
    """``actual`` is a record of ``expected``'s type with the same fields (dates to the
    millisecond, in UTC). Returns it, typed as ``expected``."""
    __tracebackhide__ = True
    record_type = type(expected)
    _expect(
        isinstance(actual, record_type),
        f"{what} returned {actual!r}; expected a {record_type.__name__}",
    )
    for field in dataclasses.fields(expected):  # type: ignore[arg-type]
        got = getattr(actual, field.name)
        want = getattr(expected, field.name)
        where = f"{what}: {record_type.__name__}.{field.name}"
        if isinstance(want, datetime):
            _utc(got, where)
            _expect(
                abs(got - want) < _PRECISION,
                f"{where} is {got.isoformat()}; expected {want.isoformat()} (to the ms)",
            )
        else:
            _expect(
                got == want and type(got) is type(want),
                f"{where} is {got!r}; expected {want!r}",
            )
    return actual  # type: ignore[return-value]


def _same_or_none(actual: object, expected: object, what: str) -> None:
    """Methods whose protocol return is ``Record | None`` may return either."""
    __tracebackhide__ = True
    if actual is not None:
        _same(actual, expected, what)


# -- fixtures ----------------------------------------------------------------------------


def _at(*, days: float, microsecond: int) -> datetime:
    """A UTC date ``days`` from now with a sub-millisecond part, so that precision shows."""
    return (datetime.now(UTC) + timedelta(days=days)).replace(microsecond=microsecond)


def _new_user(**fields: Any) -> AdapterUser:
    key = uuid.uuid4().hex
    values: dict[str, Any] = {
        "id": str(uuid.uuid4()),
        "email": f"ada.{key[:12]}@example.com",
        "email_verified": _at(days=-1, microsecond=123_456),
        "name": "Ada Lovelace",
        "image": f"https://avatars.example.com/{key}.png",
    }
    values.update(fields)
    return AdapterUser(**values)


def _new_account(user_id: str, **fields: Any) -> AdapterAccount:
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


def _new_session(user_id: str) -> AdapterSession:
    return AdapterSession(
        session_token=str(uuid.uuid4()),
        user_id=user_id,
        expires=_at(days=30, microsecond=654_321),
    )


def _new_token(identifier: str | None = None) -> tuple[str, VerificationToken]:
    """The raw token a sign-in link carries, and the record stored for it (hashed)."""
    raw = secrets.token_hex(32)
    record = VerificationToken(
        identifier=identifier or f"grace.{uuid.uuid4().hex[:12]}@example.com",
        token=token_hash(raw, _SECRET),
        expires=_at(days=1, microsecond=246_801),
    )
    return raw, record


def _b64(data: bytes, *, url: bool) -> str:
    if url:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
    return base64.b64encode(data).decode()


def _new_authenticator(user_id: str, **fields: Any) -> AdapterAuthenticator:
    credential_id = _b64(secrets.token_bytes(32), url=True)
    values: dict[str, Any] = {
        "credential_id": credential_id,
        "user_id": user_id,
        "provider_account_id": credential_id,
        "counter": secrets.randbelow(1000),
        "credential_backed_up": True,
        # A COSE public key, base64 with its padding: '+', '/' and '=' must survive.
        "credential_public_key": _b64(b"\xa5\x01\x02\x03&" + secrets.token_bytes(72), url=False),
        "credential_device_type": "multiDevice",
        "transports": "usb,ble,nfc",
    }
    values.update(fields)
    return AdapterAuthenticator(**values)


#: The fields of a user without email, as OAuth providers such as Twitter/X give none.
_NO_EMAIL: dict[str, Any] = {"email": None, "email_verified": None}


def _email(user: AdapterUser) -> str:
    """The address of a user the suite made with one (``_new_user`` gives one by default)."""
    __tracebackhide__ = True
    email = user.email
    _expect(email is not None, f"{user!r} has no email; the suite made it with one")
    assert email is not None  # for the type checker; _expect has raised otherwise
    return email


async def _create_user(adapter: Adapter, **fields: Any) -> AdapterUser:
    """Creates a user; returns the expected record, with the id the adapter gave it."""
    user = _new_user(**fields)
    created = await adapter.create_user(user)
    _expect(isinstance(created, AdapterUser), f"create_user returned {created!r}")
    return dataclasses.replace(user, id=created.id)


def _rate_limiter(adapter: object) -> RateLimiter:
    """The adapter's ``increment_rate_limit``. It is optional (without it authui counts in
    each process on its own): for an adapter without it, the test is skipped."""
    __tracebackhide__ = True
    method = getattr(adapter, "increment_rate_limit", None)
    if method is None:
        import pytest  # the suite runs under pytest; only this test outcome needs it

        pytest.skip(f"{type(adapter).__name__} has no increment_rate_limit (it is optional)")
    _expect(inspect.iscoroutinefunction(method), "increment_rate_limit must be async def")
    return cast("RateLimiter", method)


async def _in_one_window(
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


def _coroutine_methods(adapter: object, names: tuple[str, ...]) -> None:
    __tracebackhide__ = True
    missing = [name for name in names if not callable(getattr(adapter, name, None))]
    not_async = [
        name
        for name in names
        if name not in missing and not inspect.iscoroutinefunction(getattr(adapter, name))
    ]
    _expect(
        not missing and not not_async,
        f"{type(adapter).__name__}: missing {missing or 'none'}; "
        f"not async def: {not_async or 'none'}",
    )


# -- the suite ---------------------------------------------------------------------------


class _ConformanceBase:
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


class AdapterAuthenticatorConformance(_ConformanceBase):
    """The passkey part of the suite: ``AdapterConformance`` includes it.

    Use it on its own only to test an adapter's authenticator methods alone. Setting
    ``supports_webauthn = False`` on a subclass removes these tests from it (they are not
    collected, rather than reported as skipped).
    """

    supports_webauthn: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = vars(AdapterAuthenticatorConformance)
        for name, test in own.items():
            if not name.startswith("test_"):
                continue
            if not cls.supports_webauthn:
                setattr(cls, name, None)  # not callable: pytest does not collect it
            elif getattr(cls, name) is None:
                setattr(cls, name, test)

    async def test_authenticator_methods_are_coroutine_functions(self, adapter: Adapter) -> None:
        _coroutine_methods(adapter, AUTHENTICATOR_METHODS)

    async def test_create_authenticator_returns_it(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        authenticator = _new_authenticator(user.id)
        created = await adapter.create_authenticator(authenticator)
        _same(created, authenticator, "create_authenticator")

    async def test_get_authenticator(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        authenticator = _new_authenticator(user.id, transports="usb,ble,nfc")
        await adapter.link_account(
            _new_account(
                user.id,
                type="webauthn",
                provider="passkey",
                provider_account_id=authenticator.credential_id,
                access_token=None,
                refresh_token=None,
                expires_at=None,
                id_token=None,
                scope=None,
                token_type=None,
                session_state=None,
            )
        )
        await adapter.create_authenticator(authenticator)
        await adapter.create_authenticator(_new_authenticator(user.id))
        found = await adapter.get_authenticator(authenticator.credential_id)
        _same(found, authenticator, "get_authenticator")

    async def test_authenticator_optional_fields_round_trip(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        authenticator = _new_authenticator(
            user.id,
            transports=None,
            credential_backed_up=False,
            credential_device_type="singleDevice",
            counter=0,
        )
        await adapter.create_authenticator(authenticator)
        found = await adapter.get_authenticator(authenticator.credential_id)
        _same(found, authenticator, "get_authenticator (transports None)")

    async def test_get_authenticator_unknown_is_none(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        await adapter.create_authenticator(_new_authenticator(user.id))
        unknown = _b64(secrets.token_bytes(32), url=True)
        _absent(await adapter.get_authenticator(unknown), "get_authenticator(unknown)")

    async def test_list_authenticators_by_user_id(self, adapter: Adapter) -> None:
        user_a = await _create_user(adapter)
        user_b = await _create_user(adapter)
        a1 = _new_authenticator(user_a.id)
        a2 = _new_authenticator(user_a.id, transports="internal,hybrid")
        b1 = _new_authenticator(user_b.id)
        for authenticator in (a1, a2, b1):
            await adapter.create_authenticator(authenticator)

        listed_a = await adapter.list_authenticators_by_user_id(user_a.id)
        _expect(isinstance(listed_a, list), f"list_authenticators returned {listed_a!r}")
        _expect(len(listed_a) == 2, f"user A has 2 authenticators; listed {listed_a!r}")
        by_id = {a.credential_id: a for a in listed_a}
        _expect(
            set(by_id) == {a1.credential_id, a2.credential_id},
            f"user A's authenticators are {sorted(by_id)}",
        )
        for expected in (a1, a2):
            _same(by_id[expected.credential_id], expected, "list_authenticators_by_user_id(A)")

        listed_b = await adapter.list_authenticators_by_user_id(user_b.id)
        _expect(len(listed_b) == 1, f"user B has 1 authenticator; listed {listed_b!r}")
        _same(listed_b[0], b1, "list_authenticators_by_user_id(B)")

        listed_unknown = await adapter.list_authenticators_by_user_id(str(uuid.uuid4()))
        _expect(
            listed_unknown == [],
            f"list_authenticators_by_user_id(unknown) returned {listed_unknown!r}; expected []",
        )

    async def test_update_authenticator_counter(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        authenticator = _new_authenticator(user.id, counter=7)
        other = _new_authenticator(user.id, counter=3)
        await adapter.create_authenticator(authenticator)
        await adapter.create_authenticator(other)

        updated = await adapter.update_authenticator_counter(authenticator.credential_id, 8)
        expected = dataclasses.replace(authenticator, counter=8)
        _same(updated, expected, "update_authenticator_counter")
        stored = await adapter.get_authenticator(authenticator.credential_id)
        _same(stored, expected, "get_authenticator after update_authenticator_counter")
        _same(
            await adapter.get_authenticator(other.credential_id),
            other,
            "get_authenticator of another credential after update_authenticator_counter",
        )

    async def test_update_authenticator_counter_unknown_raises(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        await adapter.create_authenticator(_new_authenticator(user.id))
        unknown = _b64(secrets.token_bytes(32), url=True)
        try:
            returned = await adapter.update_authenticator_counter(unknown, 1)
            outcome = f"returned {returned!r}"
        except Exception:  # any exception will do: the protocol only says that it raises
            outcome = "raised"
        _expect(
            outcome == "raised",
            f"update_authenticator_counter(unknown) {outcome}; expected it to raise",
        )
        _absent(await adapter.get_authenticator(unknown), "get_authenticator after the failure")

    async def test_delete_user_deletes_authenticators(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        other = await _create_user(adapter)
        mine = [_new_authenticator(user.id), _new_authenticator(user.id)]
        theirs = _new_authenticator(other.id)
        for authenticator in (*mine, theirs):
            await adapter.create_authenticator(authenticator)

        await adapter.delete_user(user.id)

        for authenticator in mine:
            _absent(
                await adapter.get_authenticator(authenticator.credential_id),
                "get_authenticator of a deleted user's passkey",
            )
        listed = await adapter.list_authenticators_by_user_id(user.id)
        _expect(listed == [], f"a deleted user's authenticators are still listed: {listed!r}")
        _same(
            await adapter.get_authenticator(theirs.credential_id),
            theirs,
            "get_authenticator of another user's passkey after delete_user",
        )


class AdapterConformanceWithoutWebAuthn(_ConformanceBase):
    """The conformance suite without the passkey (authenticator) tests.

    For adapters that do not store passkeys. Subclass it as you would
    :class:`AdapterConformance`; see that class for the fixture and options.

    Attributes:
        supports_webauthn: Always ``False`` here; setting it to ``True`` is an error
            (subclass ``AdapterConformance`` to test authenticators).
        concurrency: How many concurrent ``use_verification_token`` calls race for one
            token in ``test_use_verification_token_is_atomic``, and how many concurrent
            ``increment_rate_limit`` calls count one key (at least 20).
    """

    supports_webauthn: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.supports_webauthn and not issubclass(cls, AdapterAuthenticatorConformance):
            raise TypeError(
                f"{cls.__name__} sets supports_webauthn = True but has no authenticator "
                "tests: subclass AdapterConformance instead"
            )

    # -- the protocol ---------------------------------------------------------------------

    async def test_adapter_methods_are_coroutine_functions(self, adapter: Adapter) -> None:
        _coroutine_methods(adapter, ADAPTER_METHODS)

    # -- users ----------------------------------------------------------------------------

    async def test_create_user_returns_the_user(self, adapter: Adapter) -> None:
        user = _new_user()
        created = await adapter.create_user(user)
        _expect(
            isinstance(created, AdapterUser) and isinstance(created.id, str) and bool(created.id),
            f"create_user returned {created!r}; expected an AdapterUser with an id",
        )
        # An adapter may assign its own id (as in Auth.js); every other field is kept.
        _same(created, dataclasses.replace(user, id=created.id), "create_user")

    async def test_get_user(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        await _create_user(adapter)
        _same(await adapter.get_user(user.id), user, "get_user")

    async def test_get_user_unknown_id_is_none(self, adapter: Adapter) -> None:
        await _create_user(adapter)
        _absent(await adapter.get_user(str(uuid.uuid4())), "get_user(unknown id)")

    async def test_get_user_by_email(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        await _create_user(adapter)
        _same(await adapter.get_user_by_email(_email(user)), user, "get_user_by_email")

    async def test_get_user_by_email_unknown_is_none(self, adapter: Adapter) -> None:
        await _create_user(adapter)
        unknown = f"nobody.{uuid.uuid4().hex[:12]}@example.com"
        _absent(await adapter.get_user_by_email(unknown), "get_user_by_email(unknown)")

    async def test_email_verified_round_trips_as_utc(self, adapter: Adapter) -> None:
        verified = _at(days=-3, microsecond=987_654)
        user = await _create_user(adapter, email_verified=verified)
        found = _same(await adapter.get_user(user.id), user, "get_user")
        _utc(found.email_verified, "get_user: AdapterUser.email_verified")
        by_email = _same(await adapter.get_user_by_email(_email(user)), user, "get_user_by_email")
        _utc(by_email.email_verified, "get_user_by_email: AdapterUser.email_verified")

    async def test_optional_user_fields_round_trip_none(self, adapter: Adapter) -> None:
        user = await _create_user(adapter, name=None, image=None, email_verified=None)
        _same(await adapter.get_user(user.id), user, "get_user (name, image None)")
        _same(await adapter.get_user_by_email(_email(user)), user, "get_user_by_email")

    async def test_update_user_changes_only_given_fields(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        other = await _create_user(adapter)
        updated = await adapter.update_user(user.id, {"name": "Augusta Ada King"})
        expected = dataclasses.replace(user, name="Augusta Ada King")
        _same(updated, expected, "update_user")
        _same(await adapter.get_user(user.id), expected, "get_user after update_user")

        updated = await adapter.update_user(user.id, {"image": None})
        expected = dataclasses.replace(expected, image=None)
        _same(updated, expected, "update_user(image=None)")
        _same(await adapter.get_user(user.id), expected, "get_user after update_user")
        _same(await adapter.get_user(other.id), other, "get_user of another user")

    async def test_update_user_email_moves_email_lookup(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        new_email = f"ada.king.{uuid.uuid4().hex[:12]}@example.com"
        updated = await adapter.update_user(user.id, {"email": new_email})
        expected = dataclasses.replace(user, email=new_email)
        _same(updated, expected, "update_user(email)")
        _same(await adapter.get_user_by_email(new_email), expected, "get_user_by_email(new)")
        _absent(await adapter.get_user_by_email(_email(user)), "get_user_by_email(old email)")

    async def test_update_user_sets_and_clears_email_verified(self, adapter: Adapter) -> None:
        user = await _create_user(adapter, email_verified=None)
        verified = _at(days=0, microsecond=500_999)
        updated = await adapter.update_user(user.id, {"email_verified": verified})
        expected = dataclasses.replace(user, email_verified=verified)
        _same(updated, expected, "update_user(email_verified=date)")
        _same(await adapter.get_user(user.id), expected, "get_user after setting it")

        cleared = await adapter.update_user(user.id, {"email_verified": None})
        _same(cleared, user, "update_user(email_verified=None)")
        _same(await adapter.get_user(user.id), user, "get_user after clearing it")

    # -- users without an email -----------------------------------------------------------
    # OAuth providers such as Twitter/X, Bitbucket and Reddit give no address. Auth.js's
    # ``email`` may be NULL and is unique only among addresses: any number of users have none.

    async def test_users_without_email_are_stored(self, adapter: Adapter) -> None:
        first = await _create_user(adapter, **_NO_EMAIL)
        try:
            second = await _create_user(adapter, **_NO_EMAIL)
        except Exception as exc:
            raise AssertionError(
                f"create_user refused a second user without email ({exc!r}); emails are "
                "unique only among addresses"
            ) from exc
        for user in (first, second):
            account = _new_account(user.id, provider="twitter")
            await adapter.link_account(account)
            _same(await adapter.get_user(user.id), user, "get_user (no email)")
            _same(
                await adapter.get_user_by_account(account.provider, account.provider_account_id),
                user,
                "get_user_by_account (no email)",
            )

    async def test_update_user_sets_and_clears_email(self, adapter: Adapter) -> None:
        user = await _create_user(adapter, **_NO_EMAIL)
        other = await _create_user(adapter, **_NO_EMAIL)
        address = f"ada.{uuid.uuid4().hex[:12]}@example.com"
        with_email = dataclasses.replace(user, email=address)
        updated = await adapter.update_user(user.id, {"email": address})
        _same(updated, with_email, "update_user(email=address) of a user without email")
        _same(await adapter.get_user(user.id), with_email, "get_user after setting the email")
        _same(
            await adapter.get_user_by_email(address),
            with_email,
            "get_user_by_email after setting the email",
        )

        cleared = await adapter.update_user(user.id, {"email": None})
        _same(cleared, user, "update_user(email=None)")
        _same(await adapter.get_user(user.id), user, "get_user after clearing the email")
        _absent(await adapter.get_user_by_email(address), "get_user_by_email of a cleared email")
        # The address is free again: another user may have it.
        taker = await _create_user(adapter, email=address)
        _same(
            await adapter.get_user_by_email(address),
            taker,
            "get_user_by_email of a cleared email another user then took",
        )
        _same(await adapter.get_user(other.id), other, "get_user of another user without email")

    async def test_delete_user_without_email(self, adapter: Adapter) -> None:
        user = await _create_user(adapter, **_NO_EMAIL)
        other = await _create_user(adapter, **_NO_EMAIL)
        account = _new_account(user.id, provider="twitter")
        other_account = _new_account(other.id, provider="twitter")
        other_session = _new_session(other.id)
        for a in (account, other_account):
            await adapter.link_account(a)
        await adapter.create_session(other_session)

        _same_or_none(await adapter.delete_user(user.id), user, "delete_user (no email)")
        _absent(await adapter.get_user(user.id), "get_user after delete_user (no email)")
        _absent(
            await adapter.get_user_by_account(account.provider, account.provider_account_id),
            "get_user_by_account of a deleted user without email",
        )
        _same(await adapter.get_user(other.id), other, "get_user of another user without email")
        _same(
            await adapter.get_user_by_account(
                other_account.provider, other_account.provider_account_id
            ),
            other,
            "get_user_by_account of another user without email",
        )
        pair = _present(
            await adapter.get_session_and_user(other_session.session_token),
            "get_session_and_user of another user without email after delete_user",
        )
        _same(pair[1], other, "get_session_and_user: the user without email")

    # -- accounts -------------------------------------------------------------------------

    async def test_link_account_and_get_user_by_account(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        other = await _create_user(adapter)
        account = _new_account(user.id)
        _same_or_none(await adapter.link_account(account), account, "link_account")
        await adapter.link_account(_new_account(other.id))
        found = await adapter.get_user_by_account(account.provider, account.provider_account_id)
        _same(found, user, "get_user_by_account")

    async def test_get_user_by_account_unknown_pair_is_none(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        account = _new_account(user.id)
        await adapter.link_account(account)
        for provider, provider_account_id in (
            ("github", str(uuid.uuid4())),
            ("google", account.provider_account_id),
            (account.provider_account_id, account.provider),
        ):
            _absent(
                await adapter.get_user_by_account(provider, provider_account_id),
                f"get_user_by_account({provider!r}, {provider_account_id!r})",
            )

    async def test_get_account(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        account = _new_account(user.id)
        await adapter.link_account(account)
        await adapter.link_account(_new_account(user.id, provider="gitlab"))
        found = await adapter.get_account(account.provider_account_id, account.provider)
        _same(found, account, "get_account(provider_account_id, provider)")

    async def test_get_account_mismatched_arguments_are_none(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        account = _new_account(user.id)
        await adapter.link_account(account)
        for provider_account_id, provider in (
            (account.provider, account.provider_account_id),  # arguments swapped
            (account.provider_account_id, "google"),
            (str(uuid.uuid4()), account.provider),
            (account.provider, account.provider),
            (account.provider_account_id, account.provider_account_id),
        ):
            _absent(
                await adapter.get_account(provider_account_id, provider),
                f"get_account({provider_account_id!r}, {provider!r})",
            )

    async def test_account_oauth_fields_round_trip(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        account = _new_account(user.id, type="oidc", provider="google")
        await adapter.link_account(account)
        found = _same(
            await adapter.get_account(account.provider_account_id, account.provider),
            account,
            "get_account (every OAuth field)",
        )
        _expect(
            type(found.expires_at) is int,
            f"AdapterAccount.expires_at is {found.expires_at!r}; expected an int",
        )

    async def test_account_without_tokens_round_trips(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        account = AdapterAccount(
            user_id=user.id, type="email", provider="email", provider_account_id=_email(user)
        )
        await adapter.link_account(account)
        found = await adapter.get_account(account.provider_account_id, account.provider)
        _same(found, account, "get_account (token fields None)")

    async def test_unlink_account(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        account = _new_account(user.id)
        kept = _new_account(user.id, provider="gitlab")
        await adapter.link_account(account)
        await adapter.link_account(kept)

        removed = await adapter.unlink_account(account.provider, account.provider_account_id)
        _same_or_none(removed, account, "unlink_account")
        _absent(
            await adapter.get_account(account.provider_account_id, account.provider),
            "get_account after unlink_account",
        )
        _absent(
            await adapter.get_user_by_account(account.provider, account.provider_account_id),
            "get_user_by_account after unlink_account",
        )
        _same(
            await adapter.get_account(kept.provider_account_id, kept.provider),
            kept,
            "get_account of the user's other account after unlink_account",
        )
        _same(await adapter.get_user(user.id), user, "get_user after unlink_account")

    # -- sessions -------------------------------------------------------------------------

    async def test_create_session_and_get_session_and_user(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        other = await _create_user(adapter)
        session = _new_session(user.id)
        _same(await adapter.create_session(session), session, "create_session")
        await adapter.create_session(_new_session(other.id))

        found = await adapter.get_session_and_user(session.session_token)
        pair = _present(found, "get_session_and_user")
        _expect(
            isinstance(pair, tuple) and len(pair) == 2,
            f"get_session_and_user returned {pair!r}; expected (session, user)",
        )
        _same(pair[0], session, "get_session_and_user: session")
        _same(pair[1], user, "get_session_and_user: user")

    async def test_get_session_and_user_invalid_token_is_none(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        await adapter.create_session(_new_session(user.id))
        _absent(
            await adapter.get_session_and_user(str(uuid.uuid4())),
            "get_session_and_user(invalid token)",
        )

    async def test_update_session_changes_expires(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        session = _new_session(user.id)
        await adapter.create_session(session)
        later = _at(days=60, microsecond=111_222)
        expected = dataclasses.replace(session, expires=later)

        updated = await adapter.update_session(session.session_token, later)
        _same(updated, expected, "update_session")
        pair = _present(
            await adapter.get_session_and_user(session.session_token),
            "get_session_and_user after update_session",
        )
        _same(pair[0], expected, "get_session_and_user after update_session: session")
        _same(pair[1], user, "get_session_and_user after update_session: user")

    async def test_update_session_unknown_token_is_none(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        await adapter.create_session(_new_session(user.id))
        token = str(uuid.uuid4())
        _absent(
            await adapter.update_session(token, _at(days=60, microsecond=0)),
            "update_session(unknown token)",
        )
        _absent(
            await adapter.get_session_and_user(token),
            "get_session_and_user after update_session(unknown token)",
        )

    async def test_delete_session(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        session = _new_session(user.id)
        kept = _new_session(user.id)
        await adapter.create_session(session)
        await adapter.create_session(kept)

        deleted = await adapter.delete_session(session.session_token)
        _same_or_none(deleted, session, "delete_session")
        _absent(
            await adapter.get_session_and_user(session.session_token),
            "get_session_and_user after delete_session",
        )
        pair = _present(
            await adapter.get_session_and_user(kept.session_token),
            "get_session_and_user of the user's other session after delete_session",
        )
        _same(pair[0], kept, "the user's other session")
        _same(await adapter.get_user(user.id), user, "get_user after delete_session")

    async def test_deleting_what_is_not_there_returns_none(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        await adapter.create_session(_new_session(user.id))
        await adapter.link_account(_new_account(user.id))
        _absent(await adapter.delete_session(str(uuid.uuid4())), "delete_session(unknown)")
        _absent(
            await adapter.unlink_account("github", str(uuid.uuid4())), "unlink_account(unknown)"
        )
        _absent(await adapter.delete_user(str(uuid.uuid4())), "delete_user(unknown)")
        _same(await adapter.get_user(user.id), user, "get_user after deleting unknown keys")

    # -- verification tokens --------------------------------------------------------------

    async def test_create_and_use_verification_token(self, adapter: Adapter) -> None:
        _, token = _new_token()
        created = await adapter.create_verification_token(token)
        _same_or_none(created, token, "create_verification_token")
        used = await adapter.use_verification_token(token.identifier, token.token)
        _same(used, token, "use_verification_token")

    async def test_use_verification_token_twice_is_none(self, adapter: Adapter) -> None:
        _, token = _new_token()
        await adapter.create_verification_token(token)
        _present(
            await adapter.use_verification_token(token.identifier, token.token),
            "use_verification_token (first use)",
        )
        _absent(
            await adapter.use_verification_token(token.identifier, token.token),
            "use_verification_token (second use)",
        )

    async def test_use_verification_token_wrong_identifier_is_none(self, adapter: Adapter) -> None:
        _, token = _new_token()
        await adapter.create_verification_token(token)
        wrong = f"mallory.{uuid.uuid4().hex[:12]}@example.com"
        _absent(
            await adapter.use_verification_token(wrong, token.token),
            "use_verification_token(wrong identifier)",
        )
        # A failed lookup consumes nothing: the right identifier still gets the token.
        _same(
            await adapter.use_verification_token(token.identifier, token.token),
            token,
            "use_verification_token after a wrong-identifier attempt",
        )

    async def test_verification_token_is_stored_as_given(self, adapter: Adapter) -> None:
        raw, token = _new_token()
        await adapter.create_verification_token(token)
        _absent(
            await adapter.use_verification_token(token.identifier, raw),
            "use_verification_token(raw, unhashed token)",
        )
        used = _same(
            await adapter.use_verification_token(token.identifier, token.token),
            token,
            "use_verification_token(hashed token)",
        )
        _expect(
            used.token == token_hash(raw, _SECRET),
            f"use_verification_token returned token {used.token!r}; expected the caller's hash",
        )

    async def test_verification_tokens_are_keyed_by_identifier_and_token(
        self, adapter: Adapter
    ) -> None:
        _, first = _new_token()
        _, second = _new_token(first.identifier)  # a second link sent to the same address
        _, elsewhere = _new_token()
        for token in (first, second, elsewhere):
            await adapter.create_verification_token(token)
        _absent(
            await adapter.use_verification_token(elsewhere.identifier, first.token),
            "use_verification_token(another identifier, this token)",
        )
        for token in (first, second, elsewhere):
            _same(
                await adapter.use_verification_token(token.identifier, token.token),
                token,
                "use_verification_token with three tokens stored, two for one identifier",
            )

    async def test_use_verification_token_is_atomic(self, adapter: Adapter) -> None:
        _, token = _new_token()
        await adapter.create_verification_token(token)
        results = await asyncio.gather(
            *(
                adapter.use_verification_token(token.identifier, token.token)
                for _ in range(self.concurrency)
            )
        )
        winners = [result for result in results if result is not None]
        _expect(
            len(winners) == 1,
            f"{len(winners)} of {self.concurrency} concurrent use_verification_token calls "
            "got the token; expected exactly 1",
        )
        _same(winners[0], token, "use_verification_token (the one concurrent winner)")
        _absent(
            await adapter.use_verification_token(token.identifier, token.token),
            "use_verification_token after the race",
        )

    async def test_one_magic_link_followed_by_many_browsers_signs_in_once(
        self, adapter: Adapter
    ) -> None:
        """The email flow through authui on this adapter: ``concurrency`` browsers follow
        one sign-in link at once, and exactly one of them is signed in."""
        sent: list[VerificationEmail] = []

        async def keep(message: VerificationEmail, provider: EmailProvider) -> None:
            sent.append(message)

        config = AuthConfig(
            providers=[EmailProvider(transport=keep, limits=None)],
            adapter=adapter,
            secret=secrets.token_urlsafe(32),
            trust_host=True,
            session=SessionOptions(strategy="database"),
        )
        first = AuthClient(config)
        form = {"csrfToken": await first.csrf_token(), "email": f"{uuid.uuid4().hex}@example.com"}
        await first.post("signin/email", form=form)
        _expect(len(sent) == 1, f"the sign-in request sent {len(sent)} emails, not 1")
        path = sent[0].url.removeprefix(first.url(""))
        answers = await asyncio.gather(
            *(AuthClient(config).get(path) for _ in range(self.concurrency))
        )
        signed_in = [a for a in answers if "error=" not in (a.header("location") or "error=")]
        _expect(
            len(signed_in) == 1,
            f"{len(signed_in)} of {self.concurrency} browsers following one sign-in link were "
            "signed in; expected exactly 1",
        )

    # -- rate limits: authui's optional increment_rate_limit ------------------------------

    async def test_increment_rate_limit_counts_up(self, adapter: Adapter) -> None:
        increment = _rate_limiter(adapter)

        async def three(key: str) -> list[int]:
            return [await increment(key, _DAY) for _ in range(3)]

        _, _, counts = await _in_one_window(_DAY, three)
        _expect(
            counts == [1, 2, 3],
            f"three increment_rate_limit calls in a row returned {counts}; expected [1, 2, 3]",
        )

    async def test_rate_limit_keys_and_window_lengths_are_independent(
        self, adapter: Adapter
    ) -> None:
        increment = _rate_limiter(adapter)

        async def interleaved(key: str) -> list[int]:
            calls = [
                (key, _DAY),
                (key.upper(), _DAY),  # keys differ in case only
                (key, _HOUR),  # the same key, counted in windows of another length
                (key, _DAY),
                (f"{key}:2", _DAY),
                (key, _HOUR),
                (key, _DAY),
            ]
            return [await increment(k, seconds) for k, seconds in calls]

        # Every day's end is an hour's end: one hour-long window holds both counts.
        _, _, counts = await _in_one_window(_HOUR, interleaved)
        _expect(
            counts == [1, 1, 1, 2, 1, 2, 3],
            f"increment_rate_limit (key, day), (KEY, day), (key, hour), (key, day), "
            f"(key:2, day), (key, hour), (key, day) returned {counts}; expected "
            "[1, 1, 1, 2, 1, 2, 3]: every key and window length counts on its own",
        )

    async def test_increment_rate_limit_is_atomic(self, adapter: Adapter) -> None:
        increment = _rate_limiter(adapter)
        callers = self.concurrency

        async def race(key: str) -> list[int]:
            return list(await asyncio.gather(*(increment(key, _DAY) for _ in range(callers))))

        _, _, counts = await _in_one_window(_DAY, race)
        _expect(
            sorted(counts) == list(range(1, callers + 1)),
            f"{callers} concurrent increment_rate_limit calls returned {sorted(counts)}; "
            f"expected 1 to {callers}, each once",
        )

    async def test_rate_limit_window_rolls_over(self, adapter: Adapter) -> None:
        """A new window starts from 1; with 1-second windows the next one is at most a
        second away."""
        increment = _rate_limiter(adapter)

        async def two(key: str) -> list[int]:
            return [await increment(key, 1) for _ in range(2)]

        key, window, counts = await _in_one_window(1, two)
        _expect(counts == [1, 2], f"increment_rate_limit returned {counts}; expected [1, 2]")
        await asyncio.sleep(window + 1 - time.time() + 0.02)  # into the next second
        count = await increment(key, 1)
        _expect(
            count == 1,
            f"increment_rate_limit in the next 1-second window returned {count}; expected 1",
        )

    # -- deleting users -------------------------------------------------------------------

    async def test_new_user_with_first_session(self, adapter: Adapter) -> None:
        """authui stores a new user with its first session: in one call when the adapter
        offers ``create_user_and_session`` (then both or neither: a refused user leaves no
        session), else with ``create_user`` then ``create_session``."""
        user = _new_user()
        token, expires = str(uuid.uuid4()), _at(days=30, microsecond=654_321)
        atomic = getattr(adapter, "create_user_and_session", None)
        if atomic is None:
            stored = await adapter.create_user(user)
            await adapter.create_session(
                AdapterSession(session_token=token, user_id=stored.id, expires=expires)
            )
        else:
            _expect(
                inspect.iscoroutinefunction(atomic),
                "create_user_and_session must be a coroutine function",
            )
            stored, session = await atomic(user, token, expires)
            _expect(session.user_id == stored.id, "create_user_and_session: session.user_id")
            # The same email again: a schema with unique emails refuses the user; then the
            # session must not be stored either. Without that constraint both are stored.
            second_token = str(uuid.uuid4())
            try:
                await atomic(_new_user(email=user.email), second_token, expires)
            except Exception:
                refused = True
            else:
                refused = False
            second = await adapter.get_session_and_user(second_token)
            if refused:
                _absent(second, "a session from a create_user_and_session that failed")
            else:
                _present(second, "the session of a create_user_and_session that succeeded")
        session_found, user_found = _present(
            await adapter.get_session_and_user(token),
            "get_session_and_user after storing a new user and its first session",
        )
        _same(user_found, dataclasses.replace(user, id=stored.id), "the new user")
        _same(
            session_found,
            AdapterSession(session_token=token, user_id=stored.id, expires=expires),
            "the new user's first session",
        )

    async def test_delete_user_cascades(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        other = await _create_user(adapter)
        session, account = _new_session(user.id), _new_account(user.id)
        other_session, other_account = _new_session(other.id), _new_account(other.id)
        for s in (session, other_session):
            await adapter.create_session(s)
        for a in (account, other_account):
            await adapter.link_account(a)

        deleted = await adapter.delete_user(user.id)
        _same_or_none(deleted, user, "delete_user")

        _absent(await adapter.get_user(user.id), "get_user after delete_user")
        _absent(
            await adapter.get_user_by_email(_email(user)), "get_user_by_email after delete_user"
        )
        _absent(
            await adapter.get_session_and_user(session.session_token),
            "get_session_and_user of a deleted user's session",
        )
        _absent(
            await adapter.get_account(account.provider_account_id, account.provider),
            "get_account of a deleted user's account",
        )
        _absent(
            await adapter.get_user_by_account(account.provider, account.provider_account_id),
            "get_user_by_account of a deleted user's account",
        )

        _same(await adapter.get_user(other.id), other, "get_user of another user")
        pair = _present(
            await adapter.get_session_and_user(other_session.session_token),
            "get_session_and_user of another user's session after delete_user",
        )
        _same(pair[0], other_session, "another user's session")
        _same(
            await adapter.get_account(other_account.provider_account_id, other_account.provider),
            other_account,
            "get_account of another user's account after delete_user",
        )

    # -- dates ----------------------------------------------------------------------------

    async def test_returned_dates_are_aware_utc(self, adapter: Adapter) -> None:
        user = await _create_user(adapter)
        account = _new_account(user.id)
        session = _new_session(user.id)
        _, token = _new_token(user.email)
        await adapter.link_account(account)

        returned: list[tuple[str, object]] = [
            ("get_user", await adapter.get_user(user.id)),
            ("get_user_by_email", await adapter.get_user_by_email(_email(user))),
            (
                "get_user_by_account",
                await adapter.get_user_by_account(account.provider, account.provider_account_id),
            ),
            (
                "update_user",
                await adapter.update_user(user.id, {"email_verified": _at(days=0, microsecond=1)}),
            ),
            ("create_session", await adapter.create_session(session)),
            (
                "update_session",
                await adapter.update_session(session.session_token, _at(days=9, microsecond=9)),
            ),
            ("create_verification_token", await adapter.create_verification_token(token)),
            (
                "use_verification_token",
                await adapter.use_verification_token(token.identifier, token.token),
            ),
        ]
        pair = _present(
            await adapter.get_session_and_user(session.session_token), "get_session_and_user"
        )
        returned += [("get_session_and_user: session", pair[0])]
        returned += [("get_session_and_user: user", pair[1])]
        returned += [("delete_session", await adapter.delete_session(session.session_token))]
        returned += [("delete_user", await adapter.delete_user(user.id))]

        must_return = {
            "get_user",
            "get_user_by_email",
            "get_user_by_account",
            "update_user",
            "create_session",
            "update_session",
            "use_verification_token",
        }
        for what, record in returned:
            if record is None:
                _expect(what not in must_return, f"{what} returned None")
                continue
            _dates_utc(record, what)


class AdapterConformance(AdapterAuthenticatorConformance, AdapterConformanceWithoutWebAuthn):
    """The adapter conformance suite, like Auth.js's ``runBasicTests``: subclass it.

    Each test is an ``async def test_*`` method that takes an ``adapter`` fixture, which
    the subclass (or a conftest) provides: a fresh, empty adapter for every test. Tests
    are independent and may run in any order. The class name does not start with
    ``Test``, so pytest collects only your subclass. Failures raise ``AssertionError``
    naming the method and the field.

    Example:
        ::

            import pytest
            from collections.abc import AsyncIterator

            from authui.testing import AdapterConformance


            class TestMyAdapter(AdapterConformance):
                concurrency = 20  # optional

                @pytest.fixture
                async def adapter(self) -> AsyncIterator[MyAdapter]:
                    adapter = MyAdapter(await make_empty_database())
                    yield adapter
                    await adapter.close()

    The tests need pytest-asyncio with ``asyncio_mode = "auto"``; in strict mode set
    ``pytestmark = pytest.mark.asyncio`` on the class and decorate the fixture with
    ``@pytest_asyncio.fixture``.

    What is checked: every protocol method exists and is ``async def``; lookups that find
    nothing return ``None`` (``[]`` for lists); records round-trip field for field and come
    back as the record types of ``authui.adapters``; several users without email can be
    stored, found by id and by account, given an email and have it taken away, and deleted;
    dates come back timezone-aware in UTC and within one millisecond of the value stored
    (millisecond storage passes, second storage fails); ``use_verification_token`` hands a
    token out once, also to ``concurrency`` concurrent callers; ``delete_user`` deletes the
    user's sessions, accounts and authenticators and nothing of other users;
    ``increment_rate_limit``, when the adapter has it, counts 1, 2, … per key and window
    length, gives ``concurrency`` concurrent callers 1 to ``concurrency`` each once, and
    starts again from 1 in a new window;
    ``update_authenticator_counter`` raises for an unknown credential. Methods whose
    protocol return is ``Record | None`` (``link_account``, ``unlink_account``,
    ``delete_session``, ``delete_user``, ``create_verification_token``) may return ``None``
    or the record. ``create_user`` may assign its own id; the suite then uses the returned
    one.

    Attributes:
        supports_webauthn: ``True``. Set it to ``False`` to leave out the passkey tests
            (they are then not collected at all, rather than skipped); or subclass
            :class:`AdapterConformanceWithoutWebAuthn`.
        concurrency: How many concurrent ``use_verification_token`` calls race for one
            token (default 50, at least 20); exactly one must get it. As many concurrent
            ``increment_rate_limit`` calls count one key.
    """

    supports_webauthn: ClassVar[bool] = True
