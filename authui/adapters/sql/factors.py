"""``SQLFactors``: the SQL adapter's password accounts and multi-factor authentication, in
tables of authui's own beside Auth.js's (``authui_passwords``, ``authui_mfa``,
``authui_recovery_codes``, ``authui_trusted_browsers``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from authui.adapters.factors import (
    MfaEnrolment,
    PasswordRecord,
    TrustedBrowser,
    check_mfa_enrolment,
    check_password,
    check_trusted_browser,
    recovery_code_hashes,
    totp_step,
)
from authui.adapters.sql.records import (
    mfa_from,
    password_from,
    trusted_browser_from,
    values_of,
)
from authui.adapters.sql.statements import replace
from authui.adapters.sql.store import SQLStore


class SQLFactors(SQLStore):
    """Passwords, MFA enrolments, recovery codes and trusted browsers.

    A write of a user's record reads the user's row in its transaction, first and with a
    shared lock (``SELECT … FOR KEY SHARE`` on PostgreSQL, ``LOCK IN SHARE MODE`` on
    MariaDB/MySQL) or, on SQLite, after the write (which holds the database's one write
    lock), and refuses an unknown user (``ValueError``, rolled back): a concurrent
    ``delete_user``, which deletes the user's row first, either waits for the write and
    then deletes what it wrote, or has deleted the user before and the write is refused.
    The single-use steps are one statement each, whose row count decides: of concurrent
    calls exactly one changes the row.

    Trusted browsers past their ``expires`` are deleted after a browser is saved, at most
    once a minute per adapter (``SQLStore._sweep``, through the index on ``expires``).
    """

    async def _write_for_user(
        self, conn: AsyncConnection, user_id: str, write: Callable[[str | int], Awaitable[None]]
    ) -> None:
        """In a transaction: ``await write(key)``, ``key`` the ``users.id`` of
        ``user_id``, if the user is there, their row locked against deletion until the
        transaction ends. On SQLite, whose driver begins the transaction at its first write
        (and whose one writer at a time then holds the lock), the write comes first and the
        look after it.

        Raises:
            ValueError: There is no such user (nothing is written).
        """
        key = self._user_ref(user_id)
        users = self.tables.users
        look = select(users.c.id).where(users.c.id == key)
        if conn.dialect.name == "sqlite":
            await write(key)
            found = (await conn.execute(look)).first()
        else:
            locked = look.with_for_update(read=True, key_share=True)
            found = (await conn.execute(locked)).first()
            if found is not None:
                await write(key)
        if found is None:
            raise ValueError(f"no user {user_id!r}")  # the transaction rolls back

    # -- passwords -----------------------------------------------------------------------

    async def get_password(self, user_id: str) -> PasswordRecord | None:
        """The user's password, or ``None``."""
        key = self._user_key(user_id)
        if key is None:
            return None
        passwords = self.tables.passwords
        row = await self._first(select(passwords).where(passwords.c.user_id == key))
        return password_from(passwords, row) if row else None

    async def set_password(self, record: PasswordRecord, replaces: str | None = None) -> bool:
        """Store the user's password; whether it stored. Without ``replaces``, one upsert
        (``authui.adapters.sql.statements.replace``); with it, one ``UPDATE … WHERE user_id
        = :id AND hash = :replaces`` whose row count decides (the row is locked, so of
        concurrent calls one matches).

        Raises:
            ValueError: The hash is empty or too long (``check_password``), or there is no
                such user.
        """
        check_password(record)
        passwords = self.tables.passwords
        async with self._transaction() as conn:
            if replaces is None:

                async def write(key: str | int) -> None:
                    values = values_of(record) | {"user_id": key}
                    await replace(conn, passwords, values, "set_password")

                await self._write_for_user(conn, record.user_id, write)
                return True
            key = self._user_ref(record.user_id)
            where = (passwords.c.user_id == key) & (passwords.c.hash == replaces)
            changes = {"hash": record.hash, "updated": record.updated}
            result = await conn.execute(update(passwords).where(where).values(changes))
            if result.rowcount == 1:
                return True
            users = self.tables.users
            if (await conn.execute(select(users.c.id).where(users.c.id == key))).first() is None:
                raise ValueError(f"no user {record.user_id!r}")
            return False

    async def delete_password(self, user_id: str) -> bool:
        """Delete the user's password: one ``DELETE``; whether there was one."""
        key = self._user_key(user_id)
        if key is None:
            return False
        passwords = self.tables.passwords
        async with self._transaction() as conn:
            deleted = await conn.execute(delete(passwords).where(passwords.c.user_id == key))
        return bool(deleted.rowcount == 1)

    # -- multi-factor authentication -----------------------------------------------------

    async def get_mfa(self, user_id: str) -> MfaEnrolment | None:
        """The user's MFA enrolment, or ``None``."""
        key = self._user_key(user_id)
        if key is None:
            return None
        mfa = self.tables.mfa
        row = await self._first(select(mfa).where(mfa.c.user_id == key))
        return mfa_from(mfa, row) if row else None

    async def save_mfa(self, enrolment: MfaEnrolment) -> None:
        """Insert the enrolment, or replace the user's: one upsert.

        Raises:
            ValueError: What ``check_mfa_enrolment`` refuses, or there is no such user.
        """
        check_mfa_enrolment(enrolment)
        async with self._transaction() as conn:

            async def write(key: str | int) -> None:
                values = values_of(enrolment) | {"user_id": key}
                await replace(conn, self.tables.mfa, values, "save_mfa")

            await self._write_for_user(conn, enrolment.user_id, write)

    async def delete_mfa(self, user_id: str) -> bool:
        """Delete the user's enrolment, recovery codes and trusted browsers in one
        transaction; whether there was an enrolment."""
        key = self._user_key(user_id)
        if key is None:
            return False
        t = self.tables
        async with self._transaction() as conn:
            deleted = await conn.execute(delete(t.mfa).where(t.mfa.c.user_id == key))
            for table in (t.recovery_codes, t.trusted_browsers):
                await conn.execute(delete(table).where(table.c.user_id == key))
        return bool(deleted.rowcount == 1)

    async def use_totp_step(self, user_id: str, step: int) -> bool:
        """Set ``totp_last_step`` to ``step`` if the user has a TOTP secret and no step as
        late: one ``UPDATE … WHERE user_id = :id AND totp_secret IS NOT NULL AND
        (totp_last_step IS NULL OR totp_last_step < :step)``, whose row count says whether
        it did. A concurrent call waits for the row and then finds the step taken, so of
        concurrent calls with one step, in any number of processes, one gets ``True``.

        Raises:
            ValueError: ``step`` is not an integer from 0 to ``MAX_TOTP_STEP``.
        """
        totp_step(step)
        key = self._user_key(user_id)
        if key is None:
            return False
        c = self.tables.mfa.c
        where = (
            (c.user_id == key)
            & c.totp_secret.is_not(None)
            & (c.totp_last_step.is_(None) | (c.totp_last_step < step))
        )
        async with self._transaction() as conn:
            result = await conn.execute(
                update(self.tables.mfa).where(where).values(totp_last_step=step)
            )
        return bool(result.rowcount == 1)

    # -- recovery codes ------------------------------------------------------------------

    async def replace_recovery_codes(self, user_id: str, code_hashes: Sequence[str]) -> None:
        """Delete the user's recovery codes and insert ``code_hashes``, in one transaction.

        Raises:
            ValueError: What ``recovery_code_hashes`` refuses, or there is no such user.
        """
        hashes = recovery_code_hashes(code_hashes)
        codes = self.tables.recovery_codes
        async with self._transaction() as conn:

            async def write(key: str | int) -> None:
                await conn.execute(delete(codes).where(codes.c.user_id == key))
                rows = [{"user_id": key, "code_hash": code_hash} for code_hash in hashes]
                await conn.execute(insert(codes), rows)

            await self._write_for_user(conn, user_id, write)

    async def use_recovery_code(self, user_id: str, code_hash: str) -> bool:
        """Delete that code of the user: one ``DELETE … WHERE user_id = :id AND code_hash
        = :hash``, whose row count says whether it was there (of concurrent calls, one
        deletes it)."""
        key = self._user_key(user_id)
        if key is None:
            return False
        c = self.tables.recovery_codes.c
        where = (c.user_id == key) & (c.code_hash == code_hash)
        async with self._transaction() as conn:
            deleted = await conn.execute(delete(self.tables.recovery_codes).where(where))
        return bool(deleted.rowcount == 1)

    async def count_recovery_codes(self, user_id: str) -> int:
        """How many recovery codes the user holds: one ``SELECT count(*)``."""
        key = self._user_key(user_id)
        if key is None:
            return 0
        codes = self.tables.recovery_codes
        query = select(func.count()).select_from(codes).where(codes.c.user_id == key)
        row = await self._first(query)
        return int(row[0]) if row else 0

    # -- trusted browsers ----------------------------------------------------------------

    async def save_trusted_browser(self, browser: TrustedBrowser) -> None:
        """Insert ``browser``, or replace the row of its id: one upsert.

        Raises:
            ValueError: What ``check_trusted_browser`` refuses, or there is no such user.
        """
        check_trusted_browser(browser)
        browsers = self.tables.trusted_browsers
        async with self._transaction() as conn:

            async def write(key: str | int) -> None:
                values = values_of(browser) | {"user_id": key}
                await replace(conn, browsers, values, "save_trusted_browser")

            await self._write_for_user(conn, browser.user_id, write)
        await self._sweep(browsers, datetime.now(UTC))

    async def get_trusted_browser(self, browser_id: str) -> TrustedBrowser | None:
        """The trusted browser, or ``None`` (also once it has expired)."""
        browsers = self.tables.trusted_browsers
        where = (browsers.c.browser_id == browser_id) & (browsers.c.expires > datetime.now(UTC))
        row = await self._first(select(browsers).where(where))
        return trusted_browser_from(browsers, row) if row else None

    async def list_trusted_browsers(self, user_id: str) -> list[TrustedBrowser]:
        """The user's browsers that have not expired, newest ``created`` first, by
        ``browser_id`` where that ties."""
        key = self._user_key(user_id)
        if key is None:
            return []
        browsers = self.tables.trusted_browsers
        c = browsers.c
        query = (
            select(browsers)
            .where(c.user_id == key, c.expires > datetime.now(UTC))
            .order_by(c.created.desc(), c.browser_id)
        )
        async with self._transaction() as conn:
            rows = (await conn.execute(query)).all()
        return [trusted_browser_from(browsers, row) for row in rows]

    async def delete_trusted_browsers(self, user_id: str, browser_id: str | None = None) -> int:
        """Delete that browser of the user's, or all of the user's, in one transaction;
        how many of them had not expired (a ``DELETE`` of those, then one of the rest)."""
        key = self._user_key(user_id)
        if key is None:
            return 0
        browsers = self.tables.trusted_browsers
        where = browsers.c.user_id == key
        if browser_id is not None:
            where = where & (browsers.c.browser_id == browser_id)
        current = browsers.c.expires > datetime.now(UTC)
        async with self._transaction() as conn:
            deleted = await conn.execute(delete(browsers).where(where & current))
            await conn.execute(delete(browsers).where(where))
        return int(deleted.rowcount)
