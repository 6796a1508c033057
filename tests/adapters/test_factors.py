"""Password accounts and multi-factor authentication on every adapter kind (memory, SQLite,
PostgreSQL, MariaDB, Redis: ``conftest.adapter``), beyond the conformance suite: the
longest values a store keeps whole, case-sensitive ids and hashes, and the writes that
race a user's deletion. How each store removes expired trusted browsers is tested with
each adapter (``test_memory``, ``test_sqlalchemy``, ``test_redis``)."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

from authui.adapters.account import MAX_CLIENT, MAX_USER_AGENT
from authui.adapters.base import AdapterUser
from authui.adapters.factors import (
    MAX_BROWSER_ID,
    MAX_PASSWORD_HASH,
    MAX_RECOVERY_CODE_HASH,
    MAX_TOTP_SECRET,
    MAX_TOTP_STEP,
    RECOVERY_CODES_KEPT,
    MfaEnrolment,
    PasswordRecord,
    TrustedBrowser,
)
from tests.adapters.conftest import AnyAdapter


def in_days(days: float) -> datetime:
    return datetime.now(UTC) + timedelta(days=days)


async def new_user(adapter: AnyAdapter) -> AdapterUser:
    return await adapter.create_user(AdapterUser(id=str(uuid.uuid4())))


def browser_of(user_id: str, browser_id: str) -> TrustedBrowser:
    return TrustedBrowser(
        browser_id=browser_id, user_id=user_id, created=in_days(0), expires=in_days(30)
    )


async def test_the_longest_values_are_kept_whole(adapter: AnyAdapter) -> None:
    user = await new_user(adapter)
    password = PasswordRecord(user_id=user.id, hash="ü" * MAX_PASSWORD_HASH, updated=in_days(0))
    assert await adapter.set_password(password)
    assert await adapter.get_password(user.id) == password

    enrolment = MfaEnrolment(
        user_id=user.id,
        created=in_days(0),
        totp_secret="ü" * MAX_TOTP_SECRET,
        totp_last_step=MAX_TOTP_STEP - 1,
        passkey=True,
    )
    await adapter.save_mfa(enrolment)
    assert await adapter.get_mfa(user.id) == enrolment
    assert await adapter.use_totp_step(user.id, MAX_TOTP_STEP)
    assert not await adapter.use_totp_step(user.id, MAX_TOTP_STEP)
    found = await adapter.get_mfa(user.id)
    assert found is not None
    assert found.totp_last_step == MAX_TOTP_STEP

    codes = [f"{n:0{MAX_RECOVERY_CODE_HASH}x}" for n in range(RECOVERY_CODES_KEPT)]
    await adapter.replace_recovery_codes(user.id, codes)
    assert await adapter.count_recovery_codes(user.id) == RECOVERY_CODES_KEPT
    assert await adapter.use_recovery_code(user.id, codes[-1])

    browser = TrustedBrowser(
        browser_id="b" * MAX_BROWSER_ID,
        user_id=user.id,
        created=in_days(0),
        expires=in_days(30),
        user_agent="ü" * MAX_USER_AGENT,
        client="f" * MAX_CLIENT,
    )
    await adapter.save_trusted_browser(browser)
    assert await adapter.get_trusted_browser(browser.browser_id) == browser
    assert await adapter.list_trusted_browsers(user.id) == [browser]


async def test_hashes_and_browser_ids_are_case_sensitive(adapter: AnyAdapter) -> None:
    """MariaDB compares with a binary collation, as PostgreSQL, SQLite and Redis do."""
    user = await new_user(adapter)
    hashed = "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$SGFzaA"
    await adapter.set_password(PasswordRecord(user_id=user.id, hash=hashed, updated=in_days(0)))
    changed = PasswordRecord(user_id=user.id, hash="$argon2id$new", updated=in_days(0))
    assert not await adapter.set_password(changed, replaces=hashed.lower())
    assert await adapter.set_password(changed, replaces=hashed)

    await adapter.replace_recovery_codes(user.id, ["ABCDEF" * 10, "abcdef" * 10])
    assert await adapter.use_recovery_code(user.id, "abcdef" * 10)
    assert not await adapter.use_recovery_code(user.id, "abcdef" * 10)
    assert await adapter.count_recovery_codes(user.id) == 1

    await adapter.save_trusted_browser(browser_of(user.id, "Browser-1"))
    assert await adapter.get_trusted_browser("browser-1") is None
    assert await adapter.delete_trusted_browsers(user.id, "BROWSER-1") == 0
    assert await adapter.delete_trusted_browsers(user.id, "Browser-1") == 1


async def test_writes_racing_a_users_deletion_leave_nothing_behind(adapter: AnyAdapter) -> None:
    """Each write of a user's record, concurrent with ``delete_user``, either comes first
    (and is deleted with the user) or is refused: nothing of the user stays."""
    for _ in range(5):
        user = await new_user(adapter)
        writes = [
            adapter.set_password(
                PasswordRecord(user_id=user.id, hash="$argon2id$x", updated=in_days(0))
            ),
            adapter.save_mfa(MfaEnrolment(user_id=user.id, created=in_days(0), passkey=True)),
            adapter.replace_recovery_codes(user.id, ["c" * 64]),
            adapter.save_trusted_browser(browser_of(user.id, uuid.uuid4().hex)),
        ]
        deletion = adapter.delete_user(user.id)
        results = await asyncio.gather(deletion, *writes, return_exceptions=True)
        for result in results[1:]:
            assert result in (None, True) or isinstance(result, ValueError), result
        assert await adapter.get_password(user.id) is None
        assert await adapter.get_mfa(user.id) is None
        assert await adapter.count_recovery_codes(user.id) == 0
        assert await adapter.list_trusted_browsers(user.id) == []


async def test_delete_mfa_leaves_the_password(adapter: AnyAdapter) -> None:
    user = await new_user(adapter)
    password = PasswordRecord(user_id=user.id, hash="$argon2id$kept", updated=in_days(0))
    await adapter.set_password(password)
    await adapter.save_mfa(MfaEnrolment(user_id=user.id, created=in_days(0), totp_secret="s"))
    assert await adapter.delete_mfa(user.id)
    assert await adapter.get_password(user.id) == password
    assert await adapter.delete_password(user.id)
    assert await adapter.get_user(user.id) == user
