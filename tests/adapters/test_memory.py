"""The memory adapter against the conformance suite, and the suite against broken adapters."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any, cast

import pytest

from authui.adapters import (
    Adapter,
    AdapterAccount,
    AdapterAuthenticator,
    AdapterSession,
    AdapterUser,
    Challenge,
    MemoryAdapter,
    UserChanges,
    VerificationToken,
)
from authui.adapters.account import (
    SECURITY_EVENT_DAYS,
    PasskeyDetails,
    SecurityEvent,
    SessionDetails,
    UserSession,
)
from authui.adapters.base import RateLimitWindow
from authui.adapters.factors import PasswordRecord, TrustedBrowser
from authui.testing import (
    AdapterAuthenticatorConformance,
    AdapterConformance,
    AdapterConformanceWithoutWebAuthn,
)
from authui.testing.adapter_suite import ADAPTER_METHODS, AUTHENTICATOR_METHODS
from tests.adapters.conftest import RateLimitClock


class TestMemoryAdapter(AdapterConformance):
    @pytest.fixture
    async def adapter(self) -> AsyncIterator[MemoryAdapter]:
        yield MemoryAdapter()  # noqa: PT022 (the documented form of the fixture, kept as such)


# -- what an adapter may do differently: an Auth.js-like store -------------------------


def _ms(value: datetime) -> datetime:
    """``value`` as JavaScript keeps it: milliseconds, the rest dropped."""
    return value.replace(microsecond=value.microsecond // 1000 * 1000)


class JsLikeAdapter(MemoryAdapter):
    """Keeps dates to the millisecond, assigns its own user ids, and returns nothing from
    the methods whose protocol return is ``Record | None``: all allowed by the suite."""

    async def create_user(self, user: AdapterUser) -> AdapterUser:
        verified = _ms(user.email_verified) if user.email_verified else None
        stored = dataclasses.replace(user, id=f"usr_{uuid.uuid4().hex}", email_verified=verified)
        return await super().create_user(stored)

    async def update_user(self, user_id: str, changes: UserChanges) -> AdapterUser:
        verified = changes.get("email_verified")
        if verified is not None:
            changes = {**changes, "email_verified": _ms(verified)}
        return await super().update_user(user_id, changes)

    async def delete_user(self, user_id: str) -> AdapterUser | None:
        await super().delete_user(user_id)
        return None

    async def link_account(self, account: AdapterAccount) -> AdapterAccount | None:
        await super().link_account(account)
        return None

    async def unlink_account(
        self, provider: str, provider_account_id: str
    ) -> AdapterAccount | None:
        await super().unlink_account(provider, provider_account_id)
        return None

    async def create_session(self, session: AdapterSession) -> AdapterSession:
        return await super().create_session(
            dataclasses.replace(session, expires=_ms(session.expires))
        )

    async def update_session(self, session_token: str, expires: datetime) -> AdapterSession | None:
        return await super().update_session(session_token, _ms(expires))

    async def delete_session(self, session_token: str) -> AdapterSession | None:
        await super().delete_session(session_token)
        return None

    async def create_verification_token(self, token: VerificationToken) -> VerificationToken:
        return await super().create_verification_token(
            dataclasses.replace(token, expires=_ms(token.expires))
        )


class TestJsLikeAdapter(AdapterConformanceWithoutWebAuthn):
    concurrency = 20  # the least the suite allows

    @pytest.fixture
    async def adapter(self) -> JsLikeAdapter:
        return JsLikeAdapter()


# -- the suite's own rules -------------------------------------------------------------


def test_suite_covers_the_whole_protocol() -> None:
    protocol = {
        name
        for name, member in vars(Adapter).items()
        if not name.startswith("_") and inspect.isfunction(member)
    }
    assert set(ADAPTER_METHODS) | set(AUTHENTICATOR_METHODS) == protocol
    assert not set(ADAPTER_METHODS) & set(AUTHENTICATOR_METHODS)


def _collected(cls: type) -> set[str]:
    """The test names pytest collects from ``cls``: callables named ``test_*``."""
    return {name for name in dir(cls) if name.startswith("test_") and callable(getattr(cls, name))}


def test_supports_webauthn_false_leaves_the_authenticator_tests_out() -> None:
    passkey_tests = _collected(AdapterAuthenticatorConformance)
    core_tests = _collected(AdapterConformanceWithoutWebAuthn)
    assert len(passkey_tests) >= 8
    assert not passkey_tests & core_tests
    assert _collected(AdapterConformance) == passkey_tests | core_tests

    class WithoutPasskeys(AdapterConformance):
        supports_webauthn = False

    class PasskeysAgain(WithoutPasskeys):
        supports_webauthn = True

    assert _collected(WithoutPasskeys) == core_tests
    assert _collected(PasskeysAgain) == passkey_tests | core_tests
    assert _collected(AdapterConformance) == passkey_tests | core_tests


def test_concurrency_below_20_is_refused() -> None:
    with pytest.raises(TypeError, match="at least 20 concurrent calls"):

        class Timid(AdapterConformance):
            concurrency = 19


def test_supports_webauthn_true_needs_the_authenticator_tests() -> None:
    with pytest.raises(TypeError, match="subclass AdapterConformance instead"):

        class Inconsistent(AdapterConformanceWithoutWebAuthn):
            supports_webauthn = True


# -- the suite catches broken adapters -------------------------------------------------


class RacyTokens(MemoryAdapter):
    async def use_verification_token(self, identifier: str, token: str) -> VerificationToken | None:
        found = self.tokens.get((identifier, token))
        await asyncio.sleep(0)  # a read, then a delete: not atomic
        self.tokens.pop((identifier, token), None)
        return found


class NoCascade(MemoryAdapter):
    async def delete_user(self, user_id: str) -> AdapterUser | None:
        return self.users.pop(user_id, None)


class AuthenticatorsOutliveUsers(MemoryAdapter):
    async def delete_user(self, user_id: str) -> AdapterUser | None:
        kept = dict(self.authenticators)
        user = await super().delete_user(user_id)
        self.authenticators = kept
        return user


class NaiveDates(MemoryAdapter):
    async def get_user(self, user_id: str) -> AdapterUser | None:
        user = await super().get_user(user_id)
        if user is None or user.email_verified is None:
            return user
        return dataclasses.replace(user, email_verified=user.email_verified.replace(tzinfo=None))


class SecondsOnly(MemoryAdapter):
    async def create_session(self, session: AdapterSession) -> AdapterSession:
        expires = session.expires.replace(microsecond=0)
        return await super().create_session(dataclasses.replace(session, expires=expires))


class OneTokenPerIdentifier(MemoryAdapter):
    async def create_verification_token(self, token: VerificationToken) -> VerificationToken:
        self.tokens = {k: t for k, t in self.tokens.items() if t.identifier != token.identifier}
        return await super().create_verification_token(token)


class StaleEmailIndex(MemoryAdapter):
    def __init__(self) -> None:
        super().__init__()
        self.by_email: dict[str, str] = {}

    async def create_user(self, user: AdapterUser) -> AdapterUser:
        if user.email is not None:
            self.by_email[user.email] = user.id
        return await super().create_user(user)

    async def get_user_by_email(self, email: str) -> AdapterUser | None:
        user_id = self.by_email.get(email)
        return self.users.get(user_id) if user_id else None


class NoneIsAnEmail(MemoryAdapter):
    async def create_user(self, user: AdapterUser) -> AdapterUser:
        if any(u.email == user.email for u in self.users.values()):
            raise ValueError(f"another user has the email {user.email!r}")
        return await super().create_user(user)


class SyncGetUser(MemoryAdapter):
    def get_user(self, user_id: str) -> AdapterUser | None:  # type: ignore[override]
        return self.users.get(user_id)


class SilentCounter(MemoryAdapter):
    async def update_authenticator_counter(self, credential_id: str, counter: int) -> Any:
        if credential_id not in self.authenticators:
            return None
        return await super().update_authenticator_counter(credential_id, counter)


class RacyRateLimit(MemoryAdapter):
    async def increment_rate_limit(self, key: str, window_seconds: int) -> int:
        entry = (key, window_seconds, RateLimitWindow.current(window_seconds).number)
        count = self.rate_limits.get(entry, 0) + 1
        await asyncio.sleep(0)  # a read, then a write: not atomic
        self.rate_limits[entry] = count
        return count


class OneWindowLength(MemoryAdapter):
    async def increment_rate_limit(self, key: str, window_seconds: int) -> int:
        return await super().increment_rate_limit(key, 86400)


class CaseBlindRateLimitKeys(MemoryAdapter):
    async def increment_rate_limit(self, key: str, window_seconds: int) -> int:
        return await super().increment_rate_limit(key.lower(), window_seconds)


class EndlessWindow(MemoryAdapter):
    async def increment_rate_limit(self, key: str, window_seconds: int) -> int:
        return await super().increment_rate_limit(key, 10**9)


class ResetOfOneWindowLength(MemoryAdapter):
    async def reset_rate_limit(self, key: str) -> None:
        for entry in [entry for entry in self.rate_limits if entry[:2] == (key, 86400)]:
            del self.rate_limits[entry]


class ResetOfEveryKey(MemoryAdapter):
    async def reset_rate_limit(self, key: str) -> None:
        self.rate_limits.clear()


class RacyChallenges(MemoryAdapter):
    async def use_challenge(self, key: str) -> Challenge | None:
        found = self.challenges.get(key)
        await asyncio.sleep(0)  # a read, then a delete: not atomic
        self.challenges.pop(key, None)
        return found


class ReusableChallenges(MemoryAdapter):
    async def use_challenge(self, key: str) -> Challenge | None:
        return self.challenges.get(key)


class LastChallengeOnly(MemoryAdapter):
    async def create_challenge(self, challenge: Challenge) -> None:
        self.challenges.clear()
        await super().create_challenge(challenge)


class DuplicateChallengeRefused(MemoryAdapter):
    async def create_challenge(self, challenge: Challenge) -> None:
        if challenge.key in self.challenges:
            raise ValueError("duplicate key")
        await super().create_challenge(challenge)


class RacyVersions(MemoryAdapter):
    async def bump_session_version(self, user_id: str) -> int:
        version = self.session_versions.get(user_id, 0) + 1
        await asyncio.sleep(0)  # a read, then a write: not atomic
        self.session_versions[user_id] = version
        return version


class DetailsOutliveSessions(MemoryAdapter):
    async def delete_session(self, session_token: str) -> AdapterSession | None:
        return self.sessions.pop(session_token, None)


class ExpiredSessionsListed(MemoryAdapter):
    async def list_user_sessions(self, user_id: str) -> list[UserSession]:
        mine = [s for s in self.sessions.values() if s.user_id == user_id]
        return [UserSession(session=s, details=None) for s in mine]


class EverySessionEnded(MemoryAdapter):
    async def delete_user_sessions(self, user_id: str, except_token: str | None = None) -> int:
        return await super().delete_user_sessions(user_id)


class PasskeyDetailsOutlivePasskeys(MemoryAdapter):
    async def delete_authenticator(self, credential_id: str) -> AdapterAuthenticator | None:
        return self.authenticators.pop(credential_id, None)


class UncheckedPasskeyChanges(MemoryAdapter):
    async def update_authenticator_details(
        self, credential_id: str, changes: Mapping[str, Any]
    ) -> PasskeyDetails | None:
        details = self.passkey_details[credential_id]
        self.passkey_details[credential_id] = dataclasses.replace(details, **changes)
        return self.passkey_details[credential_id]


class OldestEventsFirst(MemoryAdapter):
    async def list_security_events(self, user_id: str, limit: int = 50) -> list[SecurityEvent]:
        return list(reversed(await super().list_security_events(user_id, limit)))


class BlindPasswordWrites(MemoryAdapter):
    async def set_password(self, record: PasswordRecord, replaces: str | None = None) -> bool:
        return await super().set_password(record)  # replaces ignored: no compare and set


class RacyPasswordWrites(MemoryAdapter):
    async def set_password(self, record: PasswordRecord, replaces: str | None = None) -> bool:
        stored = self.passwords.get(record.user_id)
        await asyncio.sleep(0)  # a compare, then a set: not atomic
        if replaces is not None and (stored is None or stored.hash != replaces):
            return False
        self.passwords[record.user_id] = record
        return True


class RacyTotpSteps(MemoryAdapter):
    async def use_totp_step(self, user_id: str, step: int) -> bool:
        enrolment = self.mfa.get(user_id)
        await asyncio.sleep(0)  # a read, then a write: not atomic
        if enrolment is None or (enrolment.totp_last_step or 0) >= step:
            return False
        self.mfa[user_id] = dataclasses.replace(enrolment, totp_last_step=step)
        return True


class EarlierTotpSteps(MemoryAdapter):
    async def use_totp_step(self, user_id: str, step: int) -> bool:
        enrolment = self.mfa.get(user_id)
        if enrolment is None or enrolment.totp_secret is None or enrolment.totp_last_step == step:
            return False
        self.mfa[user_id] = dataclasses.replace(enrolment, totp_last_step=step)
        return True


class ReusableRecoveryCodes(MemoryAdapter):
    async def use_recovery_code(self, user_id: str, code_hash: str) -> bool:
        return code_hash in self.recovery_codes.get(user_id, set())


class RacyRecoveryCodes(MemoryAdapter):
    async def use_recovery_code(self, user_id: str, code_hash: str) -> bool:
        found = code_hash in self.recovery_codes.get(user_id, set())
        await asyncio.sleep(0)  # a read, then a delete: not atomic
        self.recovery_codes.get(user_id, set()).discard(code_hash)
        return found


class AnyonesRecoveryCodes(MemoryAdapter):
    async def use_recovery_code(self, user_id: str, code_hash: str) -> bool:
        holders = [codes for codes in self.recovery_codes.values() if code_hash in codes]
        for codes in holders:
            codes.discard(code_hash)
        return bool(holders)


class UncheckedRecoveryCodes(MemoryAdapter):
    async def replace_recovery_codes(self, user_id: str, code_hashes: Sequence[str]) -> None:
        self.recovery_codes[user_id] = set(code_hashes)


class MfaOffKeepsCodes(MemoryAdapter):
    async def delete_mfa(self, user_id: str) -> bool:
        return self.mfa.pop(user_id, None) is not None


class ExpiredBrowsersFound(MemoryAdapter):
    async def get_trusted_browser(self, browser_id: str) -> TrustedBrowser | None:
        return self.trusted_browsers.get(browser_id)


class OldestBrowsersFirst(MemoryAdapter):
    async def list_trusted_browsers(self, user_id: str) -> list[TrustedBrowser]:
        return list(reversed(await super().list_trusted_browsers(user_id)))


class AnyonesBrowserDeleted(MemoryAdapter):
    async def delete_trusted_browsers(self, user_id: str, browser_id: str | None = None) -> int:
        if browser_id is not None and browser_id in self.trusted_browsers:
            del self.trusted_browsers[browser_id]  # whoever's it is
            return 1
        return await super().delete_trusted_browsers(user_id, browser_id)


class FactorsOutliveUsers(MemoryAdapter):
    async def delete_user(self, user_id: str) -> AdapterUser | None:
        passwords = dict(self.passwords)
        user = await super().delete_user(user_id)
        self.passwords = passwords
        return user


class OrphanPasswords(MemoryAdapter):
    async def set_password(self, record: PasswordRecord, replaces: str | None = None) -> bool:
        self.users.setdefault(record.user_id, AdapterUser(id=record.user_id))
        return await super().set_password(record, replaces)


BROKEN: list[tuple[type[MemoryAdapter], str, str]] = [
    (RacyTokens, "test_use_verification_token_is_atomic", "50 of 50 concurrent"),
    (NoCascade, "test_delete_user_cascades", "get_account of a deleted user's account"),
    (AuthenticatorsOutliveUsers, "test_delete_user_deletes_authenticators", "deleted user's"),
    (NaiveDates, "test_email_verified_round_trips_as_utc", "naive"),
    (NaiveDates, "test_returned_dates_are_aware_utc", "get_user.email_verified is naive"),
    (SecondsOnly, "test_create_session_and_get_session_and_user", r"\(to the ms\)"),
    (
        OneTokenPerIdentifier,
        "test_verification_tokens_are_keyed_by_identifier_and_token",
        "two for one identifier",
    ),
    (StaleEmailIndex, "test_update_user_email_moves_email_lookup", "get_user_by_email"),
    (StaleEmailIndex, "test_update_user_sets_and_clears_email", "after setting the email"),
    (NoneIsAnEmail, "test_users_without_email_are_stored", "a second user without email"),
    (SyncGetUser, "test_adapter_methods_are_coroutine_functions", r"not async def: \['get_user'\]"),
    (SilentCounter, "test_update_authenticator_counter_unknown_raises", "expected it to raise"),
    (RacyRateLimit, "test_increment_rate_limit_is_atomic", r"50 concurrent .* returned \[1, 1,"),
    (OneWindowLength, "test_rate_limit_keys_and_window_lengths_are_independent", "on its own"),
    (CaseBlindRateLimitKeys, "test_rate_limit_keys_and_window_lengths_are_independent", "own"),
    (EndlessWindow, "test_rate_limit_window_rolls_over", "next 1-second window returned 3"),
    (
        ResetOfOneWindowLength,
        "test_reset_rate_limit_starts_every_count_of_the_key_again",
        r"returned \[1, 2, 1, 1, 1, 2, 2\]",
    ),
    (
        ResetOfEveryKey,
        "test_reset_rate_limit_starts_every_count_of_the_key_again",
        "other keys count on",
    ),
    (RacyChallenges, "test_use_challenge_is_atomic", "50 of 50 concurrent use_challenge"),
    (ReusableChallenges, "test_use_challenge_returns_it_once", "of a used challenge returned"),
    (LastChallengeOnly, "test_challenges_are_kept_by_key", "of the other challenge returned None"),
    (
        DuplicateChallengeRefused,
        "test_creating_a_challenge_twice_keeps_one",
        "stored already raised ValueError",
    ),
    (RacyVersions, "test_bump_session_version_is_atomic", "50 concurrent bump_session_version"),
    (DetailsOutliveSessions, "test_delete_session_deletes_its_details", "after delete_session"),
    (
        ExpiredSessionsListed,
        "test_list_user_sessions_leaves_out_expired_and_other_users",
        "expected only the session that has not expired",
    ),
    (
        EverySessionEnded,
        "test_delete_user_sessions_keeps_the_excepted_one",
        r"except_token\) returned 3; expected 2",
    ),
    (
        PasskeyDetailsOutlivePasskeys,
        "test_delete_authenticator_deletes_it_and_its_details",
        "list_authenticator_details after delete_authenticator",
    ),
    (
        UncheckedPasskeyChanges,
        "test_update_authenticator_details_checks_the_changes",
        r"\{'name': ''\}\) returned .*; expected ValueError",
    ),
    (OldestEventsFirst, "test_security_events_newest_first", "list_security_events: Security"),
    (
        BlindPasswordWrites,
        "test_set_password_compares_and_sets",
        r"set_password\(replaces=…\) of a user without a password returned True",
    ),
    (
        RacyPasswordWrites,
        "test_set_password_compare_and_set_is_atomic",
        "returned 50 True; expected exactly one",
    ),
    (OrphanPasswords, "test_set_password_refuses_what_it_cannot_keep", "unknown user returned"),
    (RacyTotpSteps, "test_use_totp_step_is_atomic", "returned 50 True; expected exactly one"),
    (
        EarlierTotpSteps,
        "test_use_totp_step_accepts_each_step_once",
        r"returned \[True, False, True, True, False\]",
    ),
    (
        ReusableRecoveryCodes,
        "test_recovery_codes_are_replaced_and_used_once",
        "of a code used already returned True",
    ),
    (RacyRecoveryCodes, "test_use_recovery_code_is_atomic", "returned 50 True"),
    (
        AnyonesRecoveryCodes,
        "test_recovery_codes_are_replaced_and_used_once",
        "of another user's code returned True",
    ),
    (
        UncheckedRecoveryCodes,
        "test_replace_recovery_codes_refuses_what_it_cannot_keep",
        r"replace_recovery_codes\(\[\]\) returned None; expected ValueError",
    ),
    (
        MfaOffKeepsCodes,
        "test_delete_mfa_deletes_recovery_codes_and_trusted_browsers",
        "recovery codes are left after delete_mfa",
    ),
    (
        ExpiredBrowsersFound,
        "test_expired_trusted_browsers_are_neither_found_nor_listed",
        "of an expired browser returned",
    ),
    (
        OldestBrowsersFirst,
        "test_trusted_browsers_round_trip_newest_first",
        "newest first, ties by browser_id",
    ),
    (
        AnyonesBrowserDeleted,
        "test_delete_trusted_browsers_one_or_all",
        r"another user's browser\) returned 1; expected 0",
    ),
    (
        FactorsOutliveUsers,
        "test_delete_user_deletes_passwords_and_second_factors",
        "a deleted user's password",
    ),
]


@pytest.mark.parametrize(
    ("adapter_type", "test_name", "message"),
    BROKEN,
    ids=[f"{adapter.__name__}-{test}" for adapter, test, _ in BROKEN],
)
async def test_the_suite_catches(
    adapter_type: type[MemoryAdapter], test_name: str, message: str
) -> None:
    suite = AdapterConformance()
    test = getattr(suite, test_name)
    with pytest.raises(AssertionError, match=message):
        await test(adapter_type())


async def test_a_missing_method_is_named() -> None:
    class Partial:
        async def get_user(self, user_id: str) -> AdapterUser | None:
            return None

    suite = AdapterConformanceWithoutWebAuthn()
    with pytest.raises(AssertionError, match=r"Partial: missing \['create_user', "):
        await suite.test_adapter_methods_are_coroutine_functions(cast(Adapter, Partial()))


async def test_extension_tests_skip_an_adapter_without_the_extension() -> None:
    class WithoutExtensions:
        async def get_user(self, user_id: str) -> AdapterUser | None:
            return None

    class CountsWithoutReset:
        async def increment_rate_limit(self, key: str, window_seconds: int) -> int:
            return 1

    suite = AdapterConformanceWithoutWebAuthn()
    adapter = cast(Adapter, WithoutExtensions())
    with pytest.raises(pytest.skip.Exception, match="has no increment_rate_limit"):
        await suite.test_increment_rate_limit_counts_up(adapter)
    with pytest.raises(pytest.skip.Exception, match="has no create_challenge"):
        await suite.test_use_challenge_returns_it_once(adapter)
    with pytest.raises(pytest.skip.Exception, match="CountsWithoutReset has no reset_rate"):
        await suite.test_reset_rate_limit_of_an_unknown_key(cast(Adapter, CountsWithoutReset()))


# -- rate limits -----------------------------------------------------------------------


@pytest.mark.parametrize("seconds", [0, -60, 1.5, True, "60"])
async def test_window_lengths_are_positive_integers(seconds: Any) -> None:
    with pytest.raises(ValueError, match="positive integer"):
        RateLimitWindow.current(seconds)
    with pytest.raises(ValueError, match="positive integer"):
        await MemoryAdapter().increment_rate_limit("k", seconds)


def test_rate_limit_windows_are_numbered_from_the_epoch() -> None:
    window = RateLimitWindow(60, 100, 6_030.5)
    assert window.ends_at == 6_060
    current = RateLimitWindow.current(3600)
    assert current.number == int(current.now // 3600)
    assert current.now < current.ends_at <= current.now + 3600


async def test_counts_of_ended_windows_are_dropped(rate_limit_clock: RateLimitClock) -> None:
    """The adapter keeps the counts of current windows only."""
    adapter = MemoryAdapter()
    assert [await adapter.increment_rate_limit("a", 10) for _ in range(2)] == [1, 2]
    assert await adapter.increment_rate_limit("b", 60) == 1
    rate_limit_clock.now += 10  # a's 10-second window has ended, b's minute goes on
    assert await adapter.increment_rate_limit("c", 10) == 1
    assert adapter.rate_limits == {("b", 60, 16_666): 1, ("c", 10, 100_001): 1}
    assert await adapter.increment_rate_limit("a", 10) == 1
    rate_limit_clock.now += 60
    assert await adapter.increment_rate_limit("d", 1) == 1
    assert adapter.rate_limits == {("d", 1, 1_000_070): 1}


async def test_counts_of_a_reset_key_are_dropped(rate_limit_clock: RateLimitClock) -> None:
    adapter = MemoryAdapter()
    for key, seconds in [("a", 10), ("a", 60), ("b", 10)]:
        await adapter.increment_rate_limit(key, seconds)
    await adapter.reset_rate_limit("a")
    assert adapter.rate_limits == {("b", 10, 100_000): 1}
    rate_limit_clock.now += 60  # every window has ended; the dropped ones are not missed
    assert await adapter.increment_rate_limit("c", 10) == 1
    assert adapter.rate_limits == {("c", 10, 100_006): 1}


# -- challenges ------------------------------------------------------------------------


async def test_expired_challenges_are_dropped_when_one_is_created() -> None:
    adapter = MemoryAdapter()
    now = datetime.now(UTC)
    expired = Challenge("a" * 64, now - timedelta(seconds=1))
    again = Challenge("b" * 64, now - timedelta(seconds=1))
    current = Challenge("c" * 64, now + timedelta(minutes=5))
    await adapter.create_challenge(expired)
    await adapter.create_challenge(again)
    assert await adapter.use_challenge(again.key) == again  # used before it was dropped
    await adapter.create_challenge(again)  # stored again after its use
    await adapter.create_challenge(current)
    assert adapter.challenges == {current.key: current}
    assert await adapter.use_challenge(expired.key) is None


# -- leases ----------------------------------------------------------------------------


async def test_leases_that_ran_out_are_dropped_when_one_is_claimed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Leases run by the process's monotonic clock (here a stand-in for this module's
    ``time``), and the adapter keeps those that have not run out."""
    clock = [1000.0]
    monkeypatch.setattr("authui.adapters.memory.time", SimpleNamespace(monotonic=lambda: clock[0]))
    adapter = MemoryAdapter()
    first = await adapter.claim_lease("a", 10)
    released = await adapter.claim_lease("b", 10)
    assert first is not None
    assert released is not None
    await adapter.release_lease("b", released)
    assert await adapter.claim_lease("b", 60) is not None  # a newer lease of b
    clock[0] += 10  # a's lease, and b's released one, end now
    assert await adapter.claim_lease("a", 10) is not None
    assert await adapter.claim_lease("c", 10) is not None
    assert sorted(adapter.leases) == ["a", "b", "c"]
    assert adapter.leases["b"][1] == 1060
    clock[0] += 60
    assert await adapter.claim_lease("d", 1) is not None
    assert sorted(adapter.leases) == ["d"]
    assert len(adapter._lease_ends) == 1


# -- the account center ----------------------------------------------------------------


def session_details(token: str, expires: datetime) -> SessionDetails:
    now = datetime.now(UTC)
    return SessionDetails(
        session_token=token,
        user_id="u",
        expires=expires,
        created=now,
        last_seen=now,
        auth_time=now,
        amr=(),
    )


async def test_expired_session_details_are_dropped_when_details_are_used() -> None:
    """Details past their ``expires`` (those of a session that Auth.js deleted too) go at
    the next use of any details; a touch keeps details from going at their old time."""
    adapter = MemoryAdapter()
    now = datetime.now(UTC)
    await adapter.save_session_details(session_details("gone", now - timedelta(seconds=1)))
    await adapter.save_session_details(session_details("moved", now + timedelta(seconds=30)))
    assert sorted(adapter.session_details) == ["moved"]
    await adapter.touch_session_details("moved", now, now + timedelta(days=1))
    adapter._session_details_ends[0] = (now - timedelta(seconds=1), "moved")  # its old time
    assert await adapter.get_session_details("moved") is not None
    assert sorted(adapter.session_details) == ["moved"]


async def test_old_security_events_are_dropped_when_one_is_recorded() -> None:
    adapter = MemoryAdapter()
    now = datetime.now(UTC)
    old = SecurityEvent(user_id="u", kind="old", at=now - timedelta(days=SECURITY_EVENT_DAYS))
    new = SecurityEvent(user_id="u", kind="new", at=now)
    await adapter.record_security_event(old)
    await adapter.record_security_event(new)
    assert adapter.security_events == {"u": [new]}


# -- password accounts and multi-factor authentication ---------------------------------


async def test_expired_trusted_browsers_are_dropped_when_one_is_saved() -> None:
    """Browsers past their ``expires`` go when a browser is next saved; one saved again
    with a later ``expires`` does not go at its old time."""
    adapter = MemoryAdapter()
    user = await adapter.create_user(AdapterUser(id="u"))
    now = datetime.now(UTC)

    def browser(browser_id: str, expires: datetime) -> TrustedBrowser:
        return TrustedBrowser(browser_id=browser_id, user_id=user.id, created=now, expires=expires)

    await adapter.save_trusted_browser(browser("gone", now - timedelta(seconds=1)))
    await adapter.save_trusted_browser(browser("moved", now + timedelta(days=1)))
    assert sorted(adapter.trusted_browsers) == ["moved"]
    adapter._browser_ends[0] = (now - timedelta(seconds=1), "moved")  # as if of an old save
    await adapter.save_trusted_browser(browser("new", now + timedelta(days=1)))
    assert sorted(adapter.trusted_browsers) == ["moved", "new"]
