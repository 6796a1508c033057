"""``RedisFactors``: the Redis adapter's password accounts and multi-factor authentication,
in keys of authui's own beside Auth.js's records: passwords (``password:``), MFA
enrolments (``mfa:``), recovery codes (``recovery-codes:``, a set per user) and trusted
browsers (``trusted-browser:``, expiring at their ``expires``, indexed per user in
``user-trusted-browsers:``)."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence

from redis.asyncio.client import Pipeline
from redis.commands.core import AsyncScript

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
from authui.adapters.json_records import dump_record
from authui.adapters.redis.keys import RedisKeys
from authui.adapters.redis.store import epoch_ms, load, multi, now, texts

# KEYS[1]: a user's MFA enrolment, KEYS[2] their recovery codes, KEYS[3] their index of
# trusted browsers; ARGV[1]: what the key of a trusted browser starts with. Deletes the
# enrolment, the codes, every browser in the index and the index: 1 if there was an
# enrolment, else 0.
_DELETE_MFA = """
local had = redis.call('DEL', KEYS[1])
redis.call('DEL', KEYS[2])
for _, id in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
    redis.call('DEL', ARGV[1] .. id)
end
redis.call('DEL', KEYS[3])
return had
"""

# KEYS[1]: a user's index of trusted browsers; ARGV[1]: what the key of a trusted browser
# starts with; ARGV[2], if given: the id of the one browser to delete (only if it is in the
# index). Deletes the browsers and their entries: how many had not expired (Redis dropped
# the others).
_DELETE_TRUSTED_BROWSERS = """
local ids = {}
if ARGV[2] then
    if redis.call('ZSCORE', KEYS[1], ARGV[2]) then ids = {ARGV[2]} end
else
    ids = redis.call('ZRANGE', KEYS[1], 0, -1)
end
local deleted = 0
for _, id in ipairs(ids) do
    deleted = deleted + redis.call('DEL', ARGV[1] .. id)
    redis.call('ZREM', KEYS[1], id)
end
return deleted
"""


class RedisFactors(RedisKeys):
    """Passwords, MFA enrolments, recovery codes and trusted browsers.

    A write of a user's record runs in a transaction that watches the user's key and
    refuses an unknown user (``ValueError``): a concurrent ``delete_user`` either comes
    after it (and deletes what it wrote) or makes it start over and be refused. The
    single-use steps are atomic: ``use_totp_step`` a transaction on the enrolment's key,
    ``use_recovery_code`` one ``SREM``.
    """

    async def _check_user(self, pipe: Pipeline, user_id: str) -> None:
        """In a transaction watching the user's key: ``ValueError`` if there is no user."""
        if not await pipe.exists(self.user_key(user_id)):
            raise ValueError(f"no user {user_id!r}")

    # -- passwords -----------------------------------------------------------------------

    async def get_password(self, user_id: str) -> PasswordRecord | None:
        """The user's password, or ``None``."""
        return load(PasswordRecord, await self._redis.get(self.password_key(user_id)))

    async def set_password(self, record: PasswordRecord, replaces: str | None = None) -> bool:
        """Store the user's password (with ``replaces``, only if the stored hash is
        ``replaces``) in a transaction watching the user's key and the password's, so that
        of concurrent compare-and-sets one stores; whether it stored.

        Raises:
            ValueError: The hash is empty or too long (``check_password``), or there is no
                such user.
        """
        check_password(record)
        user_key, key = self.user_key(record.user_id), self.password_key(record.user_id)

        async def step(pipe: Pipeline) -> bool:
            await self._check_user(pipe, record.user_id)
            stored = None if replaces is None else load(PasswordRecord, await pipe.get(key))
            multi(pipe)
            if replaces is not None and (stored is None or stored.hash != replaces):
                return False
            pipe.set(key, dump_record(record))
            return True

        return await self._transaction(step, user_key, key)

    async def delete_password(self, user_id: str) -> bool:
        """Delete the user's password: one ``DEL``; whether there was one."""
        return bool(await self._redis.delete(self.password_key(user_id)))

    # -- multi-factor authentication -----------------------------------------------------

    async def get_mfa(self, user_id: str) -> MfaEnrolment | None:
        """The user's MFA enrolment, or ``None``."""
        return load(MfaEnrolment, await self._redis.get(self.mfa_key(user_id)))

    async def save_mfa(self, enrolment: MfaEnrolment) -> None:
        """Store the enrolment, replacing the user's, in a transaction watching the user's
        key.

        Raises:
            ValueError: What ``check_mfa_enrolment`` refuses, or there is no such user.
        """
        check_mfa_enrolment(enrolment)

        async def step(pipe: Pipeline) -> None:
            await self._check_user(pipe, enrolment.user_id)
            multi(pipe)
            pipe.set(self.mfa_key(enrolment.user_id), dump_record(enrolment))

        await self._transaction(step, self.user_key(enrolment.user_id))

    async def delete_mfa(self, user_id: str) -> bool:
        """Delete the user's enrolment, recovery codes and trusted browsers in one Lua
        script (one atomic step); whether there was an enrolment."""
        keys = [
            self.mfa_key(user_id),
            self.recovery_codes_key(user_id),
            self.user_trusted_browsers_key(user_id),
        ]
        return bool(await self._delete_mfa(keys=keys, args=[self.trusted_browser_key("")]))

    async def use_totp_step(self, user_id: str, step: int) -> bool:
        """Set ``totp_last_step`` to ``step`` if the user has a TOTP secret and no step as
        late, in a transaction watching the enrolment's key: a concurrent call that wrote
        first makes it start over and find the step taken, so of concurrent calls with one
        step, in any number of processes, one gets ``True``.

        Raises:
            ValueError: ``step`` is not an integer from 0 to ``MAX_TOTP_STEP``.
        """
        totp_step(step)
        key = self.mfa_key(user_id)

        async def use(pipe: Pipeline) -> bool:
            enrolment = load(MfaEnrolment, await pipe.get(key))
            multi(pipe)
            if enrolment is None or enrolment.totp_secret is None:
                return False
            if enrolment.totp_last_step is not None and enrolment.totp_last_step >= step:
                return False
            pipe.set(key, dump_record(dataclasses.replace(enrolment, totp_last_step=step)))
            return True

        return await self._transaction(use, key)

    # -- recovery codes ------------------------------------------------------------------

    async def replace_recovery_codes(self, user_id: str, code_hashes: Sequence[str]) -> None:
        """Make the user's set of recovery codes ``code_hashes`` (``DEL``, ``SADD``) in a
        transaction watching the user's key.

        Raises:
            ValueError: What ``recovery_code_hashes`` refuses, or there is no such user.
        """
        hashes = recovery_code_hashes(code_hashes)
        key = self.recovery_codes_key(user_id)

        async def step(pipe: Pipeline) -> None:
            await self._check_user(pipe, user_id)
            multi(pipe)
            pipe.delete(key)
            pipe.sadd(key, *hashes)

        await self._transaction(step, self.user_key(user_id))

    async def use_recovery_code(self, user_id: str, code_hash: str) -> bool:
        """Delete that code from the user's set: one ``SREM``, so of concurrent calls one
        deletes it; whether it was there."""
        return bool(await self._redis.srem(self.recovery_codes_key(user_id), code_hash))

    async def count_recovery_codes(self, user_id: str) -> int:
        """How many recovery codes the user holds: one ``SCARD``."""
        return int(await self._redis.scard(self.recovery_codes_key(user_id)))

    # -- trusted browsers ----------------------------------------------------------------

    async def save_trusted_browser(self, browser: TrustedBrowser) -> None:
        """Store ``browser`` (replacing the one with its id, and taking it out of another
        user's index) to expire at its ``expires`` (``SET … PXAT``), and index it under its
        user, in a transaction watching the user's key and the browser's. The index drops
        its expired entries, and expires with the last of its browsers (``PEXPIREAT … NX``
        sets a first expiry, ``… GT`` extends it).

        Raises:
            ValueError: What ``check_trusted_browser`` refuses, or there is no such user.
        """
        check_trusted_browser(browser)
        key = self.trusted_browser_key(browser.browser_id)
        index = self.user_trusted_browsers_key(browser.user_id)
        expires = epoch_ms(browser.expires)

        async def step(pipe: Pipeline) -> None:
            await self._check_user(pipe, browser.user_id)
            previous = load(TrustedBrowser, await pipe.get(key))
            multi(pipe)
            if previous is not None and previous.user_id != browser.user_id:
                pipe.zrem(self.user_trusted_browsers_key(previous.user_id), browser.browser_id)
            pipe.set(key, dump_record(browser), pxat=expires)
            pipe.zadd(index, {browser.browser_id: expires})
            pipe.zremrangebyscore(index, "-inf", f"({epoch_ms(now())}")
            pipe.pexpireat(index, expires, nx=True)
            pipe.pexpireat(index, expires, gt=True)

        await self._transaction(step, self.user_key(browser.user_id), key)

    async def get_trusted_browser(self, browser_id: str) -> TrustedBrowser | None:
        """The trusted browser, or ``None`` (also once it has expired)."""
        browser = load(TrustedBrowser, await self._redis.get(self.trusted_browser_key(browser_id)))
        return browser if browser is not None and browser.expires > now() else None

    async def list_trusted_browsers(self, user_id: str) -> list[TrustedBrowser]:
        """The user's browsers that have not expired, newest ``created`` first (by
        ``browser_id`` where that ties): the ids in the user's index that expire after now
        (``ZRANGE … BYSCORE``), then the browsers in one ``MGET``."""
        at = now()
        index = self.user_trusted_browsers_key(user_id)
        ids = texts(await self._redis.zrange(index, f"({epoch_ms(at)}", "+inf", byscore=True))
        if not ids:
            return []
        values = await self._redis.mget([self.trusted_browser_key(i) for i in ids])
        found = (load(TrustedBrowser, value) for value in values)
        mine = (b for b in found if b is not None and b.user_id == user_id and b.expires > at)
        return sorted(mine, key=browser_order)

    async def delete_trusted_browsers(self, user_id: str, browser_id: str | None = None) -> int:
        """Delete that browser of the user's (if it is in the user's index), or every one
        in the index, with their entries, in one Lua script; how many of them had not
        expired (Redis dropped the others already)."""
        args = [self.trusted_browser_key("")]
        if browser_id is not None:
            args.append(browser_id)
        keys = [self.user_trusted_browsers_key(user_id)]
        return int(await self._delete_trusted_browsers(keys=keys, args=args))

    @functools.cached_property
    def _delete_mfa(self) -> AsyncScript:
        return self._redis.register_script(_DELETE_MFA)

    @functools.cached_property
    def _delete_trusted_browsers(self) -> AsyncScript:
        return self._redis.register_script(_DELETE_TRUSTED_BROWSERS)
