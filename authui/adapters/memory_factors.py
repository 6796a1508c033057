"""``MemoryFactors``: the memory adapter's passwords, MFA enrolments, recovery codes and
trusted browsers (``authui.adapters.factors``), over dictionaries. ``MemoryAdapter`` has
it; as everywhere in the memory adapter, each method body runs without awaiting, so on one
event loop every call is atomic (``use_totp_step`` and ``use_recovery_code`` give a step or
a code to one caller).
"""

from __future__ import annotations

import dataclasses
import heapq
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from authui.adapters.base import AdapterUser
from authui.adapters.factors import (
    MfaEnrolment,
    PasswordRecord,
    TrustedBrowser,
    browser_order,
    check_mfa_enrolment,
    check_password,
    check_trusted_browser,
    recovery_code_hashes,
    totp_step,
)
from authui.adapters.memory_account import MemoryAccountCenter


class MemoryFactors(MemoryAccountCenter):
    """Passwords, MFA enrolments, recovery codes and trusted browsers
    (``authui.adapters.factors``); ``MemoryAdapter`` documents the rest. A write of a
    user's record refuses a user that is not in ``users`` (``ValueError``). Trusted
    browsers past their ``expires`` are dropped when one is next saved."""

    #: The users, which ``MemoryAdapter`` keeps.
    users: dict[str, AdapterUser]

    def __init__(self) -> None:
        super().__init__()
        #: ``user_id`` -> its password.
        self.passwords: dict[str, PasswordRecord] = {}
        #: ``user_id`` -> its MFA enrolment.
        self.mfa: dict[str, MfaEnrolment] = {}
        #: ``user_id`` -> the hashes of its recovery codes.
        self.recovery_codes: dict[str, set[str]] = {}
        #: ``browser_id`` -> the trusted browser.
        self.trusted_browsers: dict[str, TrustedBrowser] = {}
        # (when it expires, its id), soonest first: what to drop when.
        self._browser_ends: list[tuple[datetime, str]] = []

    def _check_user(self, user_id: str) -> None:
        if user_id not in self.users:
            raise ValueError(f"no user {user_id!r}")

    async def get_password(self, user_id: str) -> PasswordRecord | None:
        """authui extension: the user's password, or ``None``."""
        return self.passwords.get(user_id)

    async def set_password(self, record: PasswordRecord, replaces: str | None = None) -> bool:
        """authui extension: store the user's password (with ``replaces``, only if the
        stored hash is ``replaces``); whether it stored. ``ValueError`` for an unknown
        user or a hash that ``check_password`` refuses."""
        check_password(record)
        self._check_user(record.user_id)
        stored = self.passwords.get(record.user_id)
        if replaces is not None and (stored is None or stored.hash != replaces):
            return False
        self.passwords[record.user_id] = record
        return True

    async def delete_password(self, user_id: str) -> bool:
        """authui extension: delete the user's password; whether there was one."""
        return self.passwords.pop(user_id, None) is not None

    async def get_mfa(self, user_id: str) -> MfaEnrolment | None:
        """authui extension: the user's MFA enrolment, or ``None``."""
        return self.mfa.get(user_id)

    async def save_mfa(self, enrolment: MfaEnrolment) -> None:
        """authui extension: store the enrolment, replacing the user's. ``ValueError`` for
        an unknown user or what ``check_mfa_enrolment`` refuses."""
        check_mfa_enrolment(enrolment)
        self._check_user(enrolment.user_id)
        self.mfa[enrolment.user_id] = enrolment

    async def delete_mfa(self, user_id: str) -> bool:
        """authui extension: delete the user's enrolment, recovery codes and trusted
        browsers; whether there was an enrolment."""
        self.recovery_codes.pop(user_id, None)
        self._drop_browsers(lambda b: b.user_id == user_id)
        return self.mfa.pop(user_id, None) is not None

    async def use_totp_step(self, user_id: str, step: int) -> bool:
        """authui extension: set ``totp_last_step`` to ``step`` if the user has a TOTP
        secret and no step as late; whether it did."""
        totp_step(step)
        enrolment = self.mfa.get(user_id)
        if enrolment is None or enrolment.totp_secret is None:
            return False
        if enrolment.totp_last_step is not None and enrolment.totp_last_step >= step:
            return False
        self.mfa[user_id] = dataclasses.replace(enrolment, totp_last_step=step)
        return True

    async def replace_recovery_codes(self, user_id: str, code_hashes: Sequence[str]) -> None:
        """authui extension: the user's recovery codes become ``code_hashes``.
        ``ValueError`` for an unknown user or what ``recovery_code_hashes`` refuses."""
        hashes = recovery_code_hashes(code_hashes)
        self._check_user(user_id)
        self.recovery_codes[user_id] = set(hashes)

    async def use_recovery_code(self, user_id: str, code_hash: str) -> bool:
        """authui extension: delete that code of the user; whether it was there."""
        codes = self.recovery_codes.get(user_id, set())
        if code_hash not in codes:
            return False
        codes.discard(code_hash)
        return True

    async def count_recovery_codes(self, user_id: str) -> int:
        """authui extension: how many recovery codes the user holds."""
        return len(self.recovery_codes.get(user_id, ()))

    async def save_trusted_browser(self, browser: TrustedBrowser) -> None:
        """authui extension: store ``browser``, replacing the one with its id. The
        browsers that have expired are dropped first. ``ValueError`` for an unknown user
        or what ``check_trusted_browser`` refuses."""
        check_trusted_browser(browser)
        self._check_user(browser.user_id)
        now, ends = datetime.now(UTC), self._browser_ends
        while ends and ends[0][0] <= now:
            _, browser_id = heapq.heappop(ends)
            stored = self.trusted_browsers.get(browser_id)
            if stored is not None and stored.expires <= now:  # not saved again since
                del self.trusted_browsers[browser_id]
        self.trusted_browsers[browser.browser_id] = browser
        heapq.heappush(ends, (browser.expires, browser.browser_id))

    async def get_trusted_browser(self, browser_id: str) -> TrustedBrowser | None:
        """authui extension: the trusted browser, or ``None`` (also once expired)."""
        browser = self.trusted_browsers.get(browser_id)
        return browser if browser is not None and browser.expires > datetime.now(UTC) else None

    async def list_trusted_browsers(self, user_id: str) -> list[TrustedBrowser]:
        """authui extension: the user's browsers that have not expired, newest first."""
        now = datetime.now(UTC)
        mine = (
            b for b in self.trusted_browsers.values() if b.user_id == user_id and b.expires > now
        )
        return sorted(mine, key=browser_order)

    async def delete_trusted_browsers(self, user_id: str, browser_id: str | None = None) -> int:
        """authui extension: delete that browser of the user's, or all of the user's; how
        many of them had not expired."""
        now = datetime.now(UTC)
        dropped = self._drop_browsers(
            lambda b: b.user_id == user_id and browser_id in (None, b.browser_id)
        )
        return sum(1 for b in dropped if b.expires > now)

    def _drop_browsers(self, which: Callable[[TrustedBrowser], bool]) -> list[TrustedBrowser]:
        dropped = [b for b in self.trusted_browsers.values() if which(b)]
        for browser in dropped:
            del self.trusted_browsers[browser.browser_id]
        return dropped

    def _forget_factors(self, user_id: str) -> None:
        """Drop the user's password, enrolment, recovery codes and browsers
        (``delete_user``)."""
        self.passwords.pop(user_id, None)
        self.mfa.pop(user_id, None)
        self.recovery_codes.pop(user_id, None)
        self._drop_browsers(lambda b: b.user_id == user_id)
