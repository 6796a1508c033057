"""The suite's tests of password accounts and multi-factor authentication (authui's
optional methods): passwords, MFA enrolments, recovery codes and trusted browsers,
``FactorConformance``."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import secrets
import uuid
from collections.abc import Awaitable
from typing import Any

from authui.adapters.base import Adapter, AdapterUser
from authui.adapters.factors import (
    RECOVERY_CODES_KEPT,
    MfaEnrolment,
    PasswordRecord,
    TrustedBrowser,
)
from authui.testing.adapter_suite.common import (
    USER_AGENT,
    ConformanceBase,
    Method,
    absent,
    add_user,
    b64,
    date_in,
    expect,
    optional,
    present,
    same,
)


class FactorConformance(ConformanceBase):
    """``get_password``, ``set_password`` (and its compare and set), ``delete_password``;
    ``get_mfa``, ``save_mfa``, ``delete_mfa`` and ``use_totp_step``; the recovery codes;
    the trusted browsers; what ``delete_user`` deletes of them. Each test is skipped for an
    adapter without the optional methods it uses."""

    # -- passwords -----------------------------------------------------------------------

    async def test_password_round_trip(self, adapter: Adapter) -> None:
        get, set_password = _password_methods(adapter)
        user, other = await add_user(adapter), await add_user(adapter)
        absent(await get(user.id), "get_password of a user without a password")
        record = new_password(user.id)
        _true(await set_password(record), "set_password")
        same(await get(user.id), record, "get_password")
        absent(await get(other.id), "get_password of another user")
        absent(await get(str(uuid.uuid4())), "get_password(unknown user)")
        changed = new_password(user.id, updated=date_in(days=0, microsecond=131_313))
        _true(await set_password(changed), "set_password of a user with a password")
        same(await get(user.id), changed, "get_password after a second set_password")

    async def test_set_password_compares_and_sets(self, adapter: Adapter) -> None:
        """With ``replaces`` it stores only over exactly that hash."""
        get, set_password = _password_methods(adapter)
        user = await add_user(adapter)
        first = new_password(user.id)
        _false(
            await set_password(first, first.hash),
            "set_password(replaces=…) of a user without a password",
        )
        absent(await get(user.id), "get_password after a refused compare-and-set")
        await set_password(first)
        rehashed = new_password(user.id)
        _true(await set_password(rehashed, first.hash), "set_password(replaces=the stored hash)")
        same(await get(user.id), rehashed, "get_password after a compare-and-set")
        late = new_password(user.id)
        _false(
            await set_password(late, first.hash),
            "set_password(replaces=a hash changed meanwhile)",
        )
        same(await get(user.id), rehashed, "get_password after a refused compare-and-set")

    async def test_set_password_compare_and_set_is_atomic(self, adapter: Adapter) -> None:
        get, set_password = _password_methods(adapter)
        user = await add_user(adapter)
        old = new_password(user.id)
        await set_password(old)
        rivals = [new_password(user.id) for _ in range(self.concurrency)]
        stored = await asyncio.gather(*(set_password(rival, old.hash) for rival in rivals))
        winners = [rival for rival, won in zip(rivals, stored, strict=True) if won is True]
        expect(
            len(winners) == 1 and all(won in (True, False) for won in stored),
            f"{len(rivals)} concurrent set_password(replaces=the stored hash) calls returned "
            f"{stored.count(True)} True; expected exactly one",
        )
        same(await get(user.id), winners[0], "get_password after concurrent compare-and-sets")

    async def test_set_password_refuses_what_it_cannot_keep(self, adapter: Adapter) -> None:
        get, set_password = _password_methods(adapter)
        user = await add_user(adapter)
        kept = new_password(user.id)
        await set_password(kept)
        for bad in ("", "$" * 513):
            record = new_password(user.id, hash=bad)
            await _refused(set_password(record), f"set_password(hash of {len(bad)} characters)")
            await _refused(
                set_password(record, kept.hash),
                f"set_password(hash of {len(bad)} characters, replaces=…)",
            )
        same(await get(user.id), kept, "get_password after refused writes")
        gone = await _deleted_user(adapter)
        await _refused(set_password(new_password(gone.id)), "set_password of an unknown user")
        absent(await get(gone.id), "get_password of an unknown user after set_password")

    async def test_delete_password(self, adapter: Adapter) -> None:
        get, set_password = _password_methods(adapter)
        delete = optional(adapter, "delete_password")
        user, other = await add_user(adapter), await add_user(adapter)
        theirs = new_password(other.id)
        for record in (new_password(user.id), theirs):
            await set_password(record)
        _true(await delete(user.id), "delete_password of a user with a password")
        absent(await get(user.id), "get_password after delete_password")
        _false(await delete(user.id), "delete_password of a user without a password")
        _false(await delete(str(uuid.uuid4())), "delete_password(unknown user)")
        same(await get(other.id), theirs, "get_password of another user after delete_password")

    # -- MFA enrolments ------------------------------------------------------------------

    async def test_mfa_round_trip(self, adapter: Adapter) -> None:
        get, save = _mfa_methods(adapter)
        delete = optional(adapter, "delete_mfa")
        user, other = await add_user(adapter), await add_user(adapter)
        absent(await get(user.id), "get_mfa of a user without an enrolment")
        for enrolment, on in (
            (new_enrolment(user.id, totp_last_step=57_000_000), True),
            (new_enrolment(user.id, totp_secret=None, passkey=True), True),
            (new_enrolment(user.id, totp_secret=None), False),
            (new_enrolment(user.id, passkey=True), True),
        ):
            await save(enrolment)
            found = same(await get(user.id), enrolment, "get_mfa after save_mfa")
            expect(found.on is on, f"{found!r}.on is {found.on!r}; expected {on}")
        absent(await get(other.id), "get_mfa of another user")
        absent(await get(str(uuid.uuid4())), "get_mfa(unknown user)")
        _true(await delete(user.id), "delete_mfa of a user with an enrolment")
        absent(await get(user.id), "get_mfa after delete_mfa")
        _false(await delete(user.id), "delete_mfa of a user without an enrolment")

    async def test_save_mfa_refuses_what_it_cannot_keep(self, adapter: Adapter) -> None:
        get, save = _mfa_methods(adapter)
        user = await add_user(adapter)
        kept = new_enrolment(user.id)
        await save(kept)
        bad: list[dict[str, Any]] = [
            {"totp_secret": ""},
            {"totp_secret": "s" * 1025},
            {"totp_last_step": -1},
            {"totp_last_step": True},
            {"totp_last_step": 2**63},
            {"totp_last_step": 1.5},
        ]
        for fields in bad:
            await _refused(save(new_enrolment(user.id, **fields)), f"save_mfa({fields})")
        same(await get(user.id), kept, "get_mfa after refused writes")
        gone = await _deleted_user(adapter)
        await _refused(save(new_enrolment(gone.id)), "save_mfa of an unknown user")
        absent(await get(gone.id), "get_mfa of an unknown user after save_mfa")

    async def test_delete_mfa_deletes_recovery_codes_and_trusted_browsers(
        self, adapter: Adapter
    ) -> None:
        get, save = _mfa_methods(adapter)
        delete = optional(adapter, "delete_mfa")
        replace_codes, _, count = _code_methods(adapter)
        save_browser, get_browser, list_browsers = _browser_methods(adapter)
        user, other = await add_user(adapter), await add_user(adapter)
        browsers: dict[str, list[TrustedBrowser]] = {}
        for who in (user, other):
            await save(new_enrolment(who.id))
            await replace_codes(who.id, code_hashes(5))
            browsers[who.id] = [
                new_browser(who.id, created=date_in(days=-n, microsecond=0)) for n in (1, 2)
            ]
            for browser in browsers[who.id]:
                await save_browser(browser)

        _true(await delete(user.id), "delete_mfa of a user with an enrolment")
        expect(await count(user.id) == 0, "recovery codes are left after delete_mfa")
        expect(await list_browsers(user.id) == [], "trusted browsers are left after delete_mfa")
        for browser in browsers[user.id]:
            absent(await get_browser(browser.browser_id), "get_trusted_browser after delete_mfa")
        present(await get(other.id), "another user's enrolment after delete_mfa")
        theirs = await count(other.id)
        expect(theirs == 5, f"another user holds {theirs!r} recovery codes; expected 5")
        listed = await list_browsers(other.id)
        for found, browser in zip(listed, browsers[other.id], strict=True):
            same(found, browser, "another user's trusted browser after delete_mfa")

        await replace_codes(user.id, code_hashes(3))
        await save_browser(new_browser(user.id))
        _false(await delete(user.id), "delete_mfa of a user without an enrolment")
        expect(await count(user.id) == 0, "delete_mfa without an enrolment left recovery codes")
        expect(await list_browsers(user.id) == [], "delete_mfa without an enrolment left browsers")

    # -- TOTP steps ----------------------------------------------------------------------

    async def test_use_totp_step_accepts_each_step_once(self, adapter: Adapter) -> None:
        get, save = _mfa_methods(adapter)
        use = optional(adapter, "use_totp_step")
        user, other = await add_user(adapter), await add_user(adapter)
        _false(await use(user.id, 100), "use_totp_step of a user without an enrolment")
        await save(new_enrolment(user.id, totp_secret=None, passkey=True))
        _false(await use(user.id, 100), "use_totp_step of an enrolment without totp_secret")
        await save(new_enrolment(user.id))
        await save(new_enrolment(other.id, totp_last_step=100))
        used = [await use(user.id, step) for step in (100, 100, 99, 101, 101)]
        expect(
            used == [True, False, False, True, False],
            f"use_totp_step of steps 100, 100, 99, 101, 101 returned {used}; expected "
            "[True, False, False, True, False]: each step once, never an earlier one",
        )
        found = present(await get(user.id), "get_mfa after use_totp_step")
        expect(found.totp_last_step == 101, f"totp_last_step is {found.totp_last_step!r}")
        _true(await use(other.id, 101), "use_totp_step of another user's step")
        _false(await use(str(uuid.uuid4()), 100), "use_totp_step(unknown user)")

    async def test_use_totp_step_refuses_a_bad_step(self, adapter: Adapter) -> None:
        get, save = _mfa_methods(adapter)
        use = optional(adapter, "use_totp_step")
        user = await add_user(adapter)
        kept = new_enrolment(user.id, totp_last_step=7)
        await save(kept)
        for step in (-1, True, 1.5, "100", 2**63):
            await _refused(use(user.id, step), f"use_totp_step(step={step!r})")
        same(await get(user.id), kept, "get_mfa after refused steps")

    async def test_use_totp_step_is_atomic(self, adapter: Adapter) -> None:
        get, save = _mfa_methods(adapter)
        use = optional(adapter, "use_totp_step")
        user = await add_user(adapter)
        await save(new_enrolment(user.id, totp_last_step=1_000))
        used = await asyncio.gather(*(use(user.id, 1_001) for _ in range(self.concurrency)))
        expect(
            used.count(True) == 1 and used.count(False) == len(used) - 1,
            f"{len(used)} concurrent use_totp_step calls of one step returned "
            f"{used.count(True)} True; expected exactly one",
        )
        found = present(await get(user.id), "get_mfa after concurrent use_totp_step")
        expect(found.totp_last_step == 1_001, f"totp_last_step is {found.totp_last_step!r}")

    # -- recovery codes ------------------------------------------------------------------

    async def test_recovery_codes_are_replaced_and_used_once(self, adapter: Adapter) -> None:
        replace_codes, use, count = _code_methods(adapter)
        user, other = await add_user(adapter), await add_user(adapter)
        expect(await count(user.id) == 0, "count_recovery_codes of a user without codes")
        first, theirs = code_hashes(10), code_hashes(10)
        await replace_codes(user.id, first)
        await replace_codes(other.id, theirs)
        _count(await count(user.id), 10)
        _true(await use(user.id, first[0]), "use_recovery_code of a code the user holds")
        _false(await use(user.id, first[0]), "use_recovery_code of a code used already")
        _false(await use(user.id, theirs[0]), "use_recovery_code of another user's code")
        _false(await use(user.id, "0" * 64), "use_recovery_code of an unknown code")
        _count(await count(user.id), 9)
        _count(await count(other.id), 10)
        second = code_hashes(RECOVERY_CODES_KEPT)
        await replace_codes(user.id, tuple(second))
        _count(await count(user.id), RECOVERY_CODES_KEPT)
        _false(await use(user.id, first[1]), "use_recovery_code of a code replaced since")
        _true(await use(user.id, second[-1]), "use_recovery_code of a new code")
        _true(await use(other.id, theirs[0]), "use_recovery_code of another user's own code")
        _false(await use(str(uuid.uuid4()), first[2]), "use_recovery_code(unknown user)")
        _count(await count(str(uuid.uuid4())), 0)

    async def test_replace_recovery_codes_refuses_what_it_cannot_keep(
        self, adapter: Adapter
    ) -> None:
        replace_codes, use, count = _code_methods(adapter)
        user = await add_user(adapter)
        kept = code_hashes(3)
        await replace_codes(user.id, kept)
        twice = code_hashes(1) * 2
        bad: list[object] = [
            [],
            code_hashes(RECOVERY_CODES_KEPT + 1),
            twice,
            [""],
            ["a" * 65],
            [3],
            "0123abcd",
        ]
        for hashes in bad:
            await _refused(replace_codes(user.id, hashes), f"replace_recovery_codes({hashes!r})")
        _count(await count(user.id), 3)
        _true(await use(user.id, kept[0]), "use_recovery_code of a code kept after refusals")
        gone = await _deleted_user(adapter)
        await _refused(replace_codes(gone.id, code_hashes(2)), "replace_recovery_codes(unknown)")
        _count(await count(gone.id), 0)

    async def test_use_recovery_code_is_atomic(self, adapter: Adapter) -> None:
        replace_codes, use, count = _code_methods(adapter)
        user = await add_user(adapter)
        codes = code_hashes(5)
        await replace_codes(user.id, codes)
        used = await asyncio.gather(*(use(user.id, codes[2]) for _ in range(self.concurrency)))
        expect(
            used.count(True) == 1 and used.count(False) == len(used) - 1,
            f"{len(used)} concurrent use_recovery_code calls of one code returned "
            f"{used.count(True)} True; expected exactly one",
        )
        _count(await count(user.id), 4)

    # -- trusted browsers ----------------------------------------------------------------

    async def test_trusted_browsers_round_trip_newest_first(self, adapter: Adapter) -> None:
        """Listed newest ``created`` first, by ``browser_id`` where that ties."""
        save, get, list_browsers = _browser_methods(adapter)
        user, other = await add_user(adapter), await add_user(adapter)
        tie = date_in(days=-1, microsecond=250_000)
        # Ids that sort alike in every collation: a lowercase letter, then hex.
        expected = [
            new_browser(user.id, created=date_in(days=-0.5, microsecond=1), user_agent=None),
            new_browser(user.id, browser_id=f"a{secrets.token_hex(16)}", created=tie),
            new_browser(user.id, browser_id=f"c{secrets.token_hex(16)}", created=tie, client=None),
            new_browser(user.id, created=date_in(days=-3, microsecond=999_999)),
        ]
        theirs = new_browser(other.id)
        for browser in (expected[2], theirs, expected[0], expected[3], expected[1]):
            await save(browser)
        for browser in (*expected, theirs):
            same(await get(browser.browser_id), browser, "get_trusted_browser")
        listed = await list_browsers(user.id)
        expect(
            isinstance(listed, list) and len(listed) == len(expected),
            f"list_trusted_browsers returned {listed!r}; expected the user's 4",
        )
        for found, browser in zip(listed, expected, strict=True):
            same(found, browser, "list_trusted_browsers (newest first, ties by browser_id)")
        listed_other = await list_browsers(other.id)
        expect(len(listed_other) == 1, f"another user's trusted browsers: {listed_other!r}")
        same(listed_other[0], theirs, "list_trusted_browsers of another user")
        unknown = await list_browsers(str(uuid.uuid4()))
        expect(unknown == [], f"list_trusted_browsers(unknown user) returned {unknown!r}")
        absent(await get(secrets.token_urlsafe(32)), "get_trusted_browser(unknown id)")

    async def test_save_trusted_browser_replaces_it(self, adapter: Adapter) -> None:
        save, get, list_browsers = _browser_methods(adapter)
        user, other = await add_user(adapter), await add_user(adapter)
        browser = new_browser(user.id)
        await save(browser)
        renewed = dataclasses.replace(
            browser, expires=date_in(days=60, microsecond=424_242), client="192.0.2.77"
        )
        await save(renewed)
        same(await get(browser.browser_id), renewed, "get_trusted_browser after a 2nd save")
        listed = await list_browsers(user.id)
        expect(len(listed) == 1, f"list_trusted_browsers after a 2nd save: {listed!r}")
        moved = dataclasses.replace(renewed, user_id=other.id)
        await save(moved)
        same(await get(browser.browser_id), moved, "get_trusted_browser of a browser moved")
        mine = await list_browsers(user.id)
        expect(mine == [], f"a browser saved for another user is still listed: {mine!r}")
        listed = await list_browsers(other.id)
        expect(len(listed) == 1, f"list_trusted_browsers of its new user: {listed!r}")
        same(listed[0], moved, "list_trusted_browsers of its new user")

    async def test_expired_trusted_browsers_are_neither_found_nor_listed(
        self, adapter: Adapter
    ) -> None:
        save, get, list_browsers = _browser_methods(adapter)
        delete = optional(adapter, "delete_trusted_browsers")
        user = await add_user(adapter)
        expired = new_browser(
            user.id,
            created=date_in(days=-31, microsecond=0),
            expires=date_in(days=-1, microsecond=0),
        )
        current = new_browser(user.id)
        for browser in (current, expired):  # the expired one last: nothing drops it yet
            await save(browser)
        absent(await get(expired.browser_id), "get_trusted_browser of an expired browser")
        listed = await list_browsers(user.id)
        expect(len(listed) == 1, f"list_trusted_browsers listed {listed!r}; expected one")
        same(listed[0], current, "list_trusted_browsers leaves out the expired")
        deleted = await delete(user.id)
        expect(
            deleted == 1,
            f"delete_trusted_browsers returned {deleted!r}; expected 1 (the expired one "
            "does not count)",
        )

    async def test_delete_trusted_browsers_one_or_all(self, adapter: Adapter) -> None:
        save, get, list_browsers = _browser_methods(adapter)
        delete = optional(adapter, "delete_trusted_browsers")
        user, other = await add_user(adapter), await add_user(adapter)
        first, second, third = (
            new_browser(user.id, created=date_in(days=-n, microsecond=0)) for n in (1, 2, 3)
        )
        theirs = new_browser(other.id)
        for browser in (first, second, third, theirs):
            await save(browser)

        def deleted(count: object, expected: int, what: str) -> None:
            __tracebackhide__ = True
            expect(count == expected, f"{what} returned {count!r}; expected {expected}")

        deleted(await delete(user.id, first.browser_id), 1, "delete_trusted_browsers(user, id)")
        absent(await get(first.browser_id), "get_trusted_browser after its deletion")
        deleted(
            await delete(user.id, theirs.browser_id),
            0,
            "delete_trusted_browsers(user, another user's browser)",
        )
        same(await get(theirs.browser_id), theirs, "another user's browser after a deletion")
        deleted(await delete(user.id, first.browser_id), 0, "delete_trusted_browsers again")
        listed = await list_browsers(user.id)
        expect(len(listed) == 2, f"list_trusted_browsers after a deletion: {listed!r}")
        for found, browser in zip(listed, (second, third), strict=True):
            same(found, browser, "the user's other browsers after a deletion")
        deleted(await delete(user.id), 2, "delete_trusted_browsers(user)")
        expect(await list_browsers(user.id) == [], "browsers left after deleting all")
        deleted(await delete(user.id), 0, "delete_trusted_browsers(user) again")
        deleted(await delete(str(uuid.uuid4())), 0, "delete_trusted_browsers(unknown user)")
        listed = await list_browsers(other.id)
        expect(len(listed) == 1, f"another user's browsers after deletions: {listed!r}")

    async def test_save_trusted_browser_refuses_what_it_cannot_keep(self, adapter: Adapter) -> None:
        save, get, list_browsers = _browser_methods(adapter)
        user = await add_user(adapter)
        bad: list[dict[str, Any]] = [
            {"browser_id": ""},
            {"browser_id": "b" * 65},
            {"user_agent": "u" * 513},
            {"client": "c" * 65},
        ]
        for fields in bad:
            browser = new_browser(user.id, **fields)
            await _refused(save(browser), f"save_trusted_browser({_lengths(fields)})")
        gone = await _deleted_user(adapter)
        browser = new_browser(gone.id)
        await _refused(save(browser), "save_trusted_browser of an unknown user")
        absent(await get(browser.browser_id), "get_trusted_browser after a refused save")
        listed = await list_browsers(user.id)
        expect(listed == [], f"list_trusted_browsers after refused saves: {listed!r}")

    # -- users ---------------------------------------------------------------------------

    async def test_delete_user_deletes_passwords_and_second_factors(self, adapter: Adapter) -> None:
        get_password, set_password = _password_methods(adapter)
        get_mfa, save_mfa = _mfa_methods(adapter)
        replace_codes, _, count = _code_methods(adapter)
        save_browser, get_browser, list_browsers = _browser_methods(adapter)
        user, other = await add_user(adapter), await add_user(adapter)
        browsers: dict[str, TrustedBrowser] = {}
        for who in (user, other):
            await set_password(new_password(who.id))
            await save_mfa(new_enrolment(who.id))
            await replace_codes(who.id, code_hashes(4))
            browsers[who.id] = new_browser(who.id)
            await save_browser(browsers[who.id])

        await adapter.delete_user(user.id)
        absent(await get_password(user.id), "a deleted user's password")
        absent(await get_mfa(user.id), "a deleted user's MFA enrolment")
        _count(await count(user.id), 0)
        absent(await get_browser(browsers[user.id].browser_id), "a deleted user's browser")
        expect(await list_browsers(user.id) == [], "a deleted user's browsers are listed")
        present(await get_password(other.id), "another user's password after delete_user")
        present(await get_mfa(other.id), "another user's enrolment after delete_user")
        _count(await count(other.id), 4)
        same(
            await get_browser(browsers[other.id].browser_id),
            browsers[other.id],
            "another user's browser after delete_user",
        )


# -- records -------------------------------------------------------------------------------


def _phc() -> str:
    """A password hash as argon2 writes it (a PHC string)."""
    salt = b64(secrets.token_bytes(16), url=False).rstrip("=")
    digest = b64(secrets.token_bytes(32), url=False).rstrip("=")
    return f"$argon2id$v=19$m=65536,t=3,p=4${salt}${digest}"


def new_password(user_id: str, **fields: Any) -> PasswordRecord:
    values: dict[str, Any] = {
        "user_id": user_id,
        "hash": _phc(),
        "updated": date_in(days=-2, microsecond=121_212),
    }
    values.update(fields)
    return PasswordRecord(**values)


def new_enrolment(user_id: str, **fields: Any) -> MfaEnrolment:
    """An enrolment with a TOTP secret (as authui stores it: encrypted, opaque)."""
    values: dict[str, Any] = {
        "user_id": user_id,
        "created": date_in(days=-5, microsecond=343_434),
        "totp_secret": f"v1.{secrets.token_urlsafe(96)}",
        "totp_last_step": None,
        "passkey": False,
    }
    values.update(fields)
    return MfaEnrolment(**values)


def new_browser(user_id: str, **fields: Any) -> TrustedBrowser:
    values: dict[str, Any] = {
        "browser_id": secrets.token_urlsafe(32),
        "user_id": user_id,
        "created": date_in(days=-1, microsecond=565_656),
        "expires": date_in(days=30, microsecond=787_878),
        "user_agent": USER_AGENT,
        "client": "198.51.100.42",
    }
    values.update(fields)
    return TrustedBrowser(**values)


def code_hashes(count: int) -> list[str]:
    """The hashes of ``count`` new recovery codes (hex SHA-256)."""
    return [hashlib.sha256(secrets.token_bytes(16)).hexdigest() for _ in range(count)]


# -- helpers ---------------------------------------------------------------------------------


async def _deleted_user(adapter: Adapter) -> AdapterUser:
    """A user that was stored and is deleted: its id is one the store may give, but no
    user has it."""
    user = await add_user(adapter)
    await adapter.delete_user(user.id)
    return user


async def _refused(call: Awaitable[object], what: str) -> None:
    """``call`` raises ``ValueError``."""
    __tracebackhide__ = True
    try:
        returned = await call
    except ValueError:
        return
    except Exception as exc:
        raise AssertionError(f"{what} raised {exc!r}; expected ValueError") from exc
    raise AssertionError(f"{what} returned {returned!r}; expected ValueError")


def _true(value: object, what: str) -> None:
    __tracebackhide__ = True
    expect(value is True, f"{what} returned {value!r}; expected True")


def _false(value: object, what: str) -> None:
    __tracebackhide__ = True
    expect(value is False, f"{what} returned {value!r}; expected False")


def _count(value: object, expected: int) -> None:
    __tracebackhide__ = True
    expect(value == expected, f"count_recovery_codes returned {value!r}; expected {expected}")


def _lengths(fields: dict[str, Any]) -> str:
    return ", ".join(f"{name} of {len(value)} characters" for name, value in fields.items())


def _password_methods(adapter: object) -> tuple[Method, Method]:
    """The adapter's ``get_password`` and ``set_password``; the test is skipped for an
    adapter without them."""
    __tracebackhide__ = True
    return optional(adapter, "get_password"), optional(adapter, "set_password")


def _mfa_methods(adapter: object) -> tuple[Method, Method]:
    """The adapter's ``get_mfa`` and ``save_mfa``; skipped without them."""
    __tracebackhide__ = True
    return optional(adapter, "get_mfa"), optional(adapter, "save_mfa")


def _code_methods(adapter: object) -> tuple[Method, Method, Method]:
    """The adapter's ``replace_recovery_codes``, ``use_recovery_code`` and
    ``count_recovery_codes``; skipped without them."""
    __tracebackhide__ = True
    return (
        optional(adapter, "replace_recovery_codes"),
        optional(adapter, "use_recovery_code"),
        optional(adapter, "count_recovery_codes"),
    )


def _browser_methods(adapter: object) -> tuple[Method, Method, Method]:
    """The adapter's ``save_trusted_browser``, ``get_trusted_browser`` and
    ``list_trusted_browsers``; skipped without them."""
    __tracebackhide__ = True
    return (
        optional(adapter, "save_trusted_browser"),
        optional(adapter, "get_trusted_browser"),
        optional(adapter, "list_trusted_browsers"),
    )
