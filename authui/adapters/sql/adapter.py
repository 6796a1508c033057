"""``SQLAlchemyAdapter``: every adapter method over SQLAlchemy 2's async engine; authui's
own methods come from ``SQLAccountCenter``, ``SQLFactors`` and ``SQLExtensions``, the
engine and transactions from ``SQLStore``."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.ext.asyncio import AsyncConnection

from authui.adapters.base import (
    AdapterAccount,
    AdapterAuthenticator,
    AdapterSession,
    AdapterUser,
    UserChanges,
    VerificationToken,
)
from authui.adapters.sql.account import SQLAccountCenter
from authui.adapters.sql.extensions import SQLExtensions
from authui.adapters.sql.factors import SQLFactors
from authui.adapters.sql.records import (
    account_from,
    authenticator_from,
    session_and_user_from,
    session_from,
    token_from,
    user_from,
    values_of,
)
from authui.adapters.sql.statements import delete_returning, update_returning
from authui.adapters.token_refresh import account_changes

_USER_FIELDS = frozenset(UserChanges.__annotations__)


class SQLAlchemyAdapter(SQLAccountCenter, SQLFactors, SQLExtensions):
    """Users, accounts, database sessions, sign-in tokens and passkeys in a SQL database,
    in the Auth.js SQL schema by default.

    Args:
        database: A database URL for SQLAlchemy's async drivers
            (``sqlite+aiosqlite:///auth.db``, ``postgresql+asyncpg://…``,
            ``mysql+asyncmy://…``), or an ``AsyncEngine`` the application already has
            (the adapter then shares its pool and never disposes of it).
        naming: Table names, column names and schema; Auth.js's by default.
        id_type: How ``users.id`` holds ids. ``None`` (the default): as the database's
            ``users`` table has them, learned by ``prepare()`` (which authui calls before
            its first call), and text on a database without one. ``"text"`` stores user
            ids as given: authui makes uuids, and Auth.js setups with string ids (Prisma,
            Drizzle, Kysely) read the same. ``"integer"`` is Auth.js's PostgreSQL
            schema, ``users.id SERIAL``: the database numbers new users, ``create_user``
            returns the user with that id (as a string), and an id that is not a number
            finds nothing.
        engine_options: Keyword arguments for ``create_async_engine`` when the adapter
            creates the engine; they override its defaults: ``DEFAULT_POOL_OPTIONS``,
            ``hide_parameters=True`` (bound values such as session tokens stay out of
            exception messages) and, on PostgreSQL (asyncpg) and MariaDB/MySQL (asyncmy),
            time limits in ``connect_args``: ``CONNECT_TIMEOUT`` (5 s) to connect and
            ``STATEMENT_TIMEOUT`` (10 s) for each statement (asyncpg's ``timeout`` and
            ``command_timeout``, asyncmy's ``connect_timeout`` and ``read_timeout``). A
            limit set in ``connect_args`` or in the URL's query
            (``…?command_timeout=30``) wins. A database that stops answering is then an
            outage within seconds (503) rather than a request that hangs. An engine
            passed in keeps its own settings.

    Create the tables with ``await adapter.create_all()`` (or a migration tool, with
    ``adapter.tables.metadata``), and close the adapter with ``await adapter.close()`` or
    ``async with``. Every method is one transaction; ``use_verification_token``,
    ``use_challenge`` and ``unlink_account`` use ``DELETE … RETURNING`` where the database
    has it and a ``DELETE`` whose row count decides elsewhere, so a token is handed out
    once.

    On a database an Auth.js app made, with Auth.js's tables alone, every Auth.js
    method works; those of authui's extensions whose tables are missing are
    ``unavailable`` (``prepare`` finds which), and authui does without them or says at
    start-up what is missing and the one command that adds it.

    authui's extensions keep tables of their own, which ``create_all`` makes and
    ``authui db upgrade`` adds to an older database: ``increment_rate_limit`` and
    ``reset_rate_limit`` count in ``rate_limits`` (version 3), ``create_challenge`` and
    ``use_challenge`` keep ``authui_challenges`` (version 4), ``claim_lease`` and
    ``release_lease`` keep ``authui_leases`` (version 5), and the account center keeps
    ``authui_session_details``, ``authui_passkeys``, ``authui_security_events`` and
    ``authui_session_versions`` (version 6), and password accounts and multi-factor
    authentication keep ``authui_passwords``, ``authui_mfa``, ``authui_recovery_codes``
    and ``authui_trusted_browsers`` (version 7). Creating and upgrading the tables runs
    without the statement time limit. ``update_account``, ``delete_user_sessions`` and
    ``delete_authenticator``, authui's extensions too, write Auth.js's own tables, in
    their existing columns. ``delete_session`` and ``delete_user`` also delete what the
    account center keeps of the sessions and the user, so version 6 must be there, and
    ``delete_user`` what password accounts and multi-factor authentication keep of the
    user, so version 7 must be there too.
    """

    # -- users ---------------------------------------------------------------------------

    async def create_user(self, user: AdapterUser) -> AdapterUser:
        """Insert ``user``; with integer ids the database's id replaces ``user.id``."""
        async with self._transaction() as conn:
            return await self._insert_user(conn, user)

    async def create_user_and_session(
        self, user: AdapterUser, session_token: str, expires: datetime
    ) -> tuple[AdapterUser, AdapterSession]:
        """Insert a new user and its first session in one transaction: both or neither."""
        async with self._transaction() as conn:
            stored = await self._insert_user(conn, user)
            session = AdapterSession(
                session_token=session_token, user_id=stored.id, expires=expires
            )
            await self._insert_session(conn, session)
        return stored, session

    async def create_user_and_account(
        self, user: AdapterUser, account: AdapterAccount
    ) -> tuple[AdapterUser, AdapterAccount]:
        """Insert a new user and its first account in one transaction: both or neither (a
        taken email or account refuses both). The account's ``user_id`` becomes the new
        user's id."""
        async with self._transaction() as conn:
            stored = await self._insert_user(conn, user)
            linked = dataclasses.replace(account, user_id=stored.id)
            await self._insert_account(conn, linked)
        return stored, linked

    async def _insert_user(self, conn: AsyncConnection, user: AdapterUser) -> AdapterUser:
        values: dict[str, Any] = {
            "name": user.name,
            "email": user.email,
            "email_verified": user.email_verified,
            "image": user.image,
        }
        if self.id_type == "text":
            values["id"] = user.id
        result = await conn.execute(insert(self.tables.users).values(values))
        if self.id_type == "text":
            return user
        (new_id,) = result.inserted_primary_key or (None,)
        return dataclasses.replace(user, id=str(new_id))

    async def get_user(self, user_id: str) -> AdapterUser | None:
        """The user with ``user_id``, or ``None``."""
        users = self.tables.users
        key = self._user_key(user_id)
        if key is None:
            return None
        row = await self._first(select(users).where(users.c.id == key))
        return user_from(users, row) if row else None

    async def get_user_by_email(self, email: str) -> AdapterUser | None:
        """The user with ``email``, or ``None``."""
        users = self.tables.users
        row = await self._first(select(users).where(users.c.email == email))
        return user_from(users, row) if row else None

    async def get_user_by_account(
        self, provider: str, provider_account_id: str
    ) -> AdapterUser | None:
        """The user who linked the account ``provider_account_id`` at ``provider``."""
        users, accounts = self.tables.users, self.tables.accounts
        query = (
            select(users)
            .join(accounts, accounts.c.user_id == users.c.id)
            .where(
                accounts.c.provider == provider,
                accounts.c.provider_account_id == provider_account_id,
            )
        )
        row = await self._first(query)
        return user_from(users, row) if row else None

    async def update_user(self, user_id: str, changes: UserChanges) -> AdapterUser:
        """Apply ``changes`` and return the user.

        Raises:
            KeyError: There is no such user.
            TypeError: ``changes`` has a field users don't have.
        """
        unknown = set(changes) - _USER_FIELDS
        if unknown:
            raise TypeError(f"update_user: users have no field(s) {sorted(unknown)}")
        users = self.tables.users
        key = self._user_key(user_id)
        row = None
        if key is not None:
            async with self._transaction() as conn:
                where = users.c.id == key
                if changes:
                    row = await update_returning(conn, users, where, dict(changes))
                else:
                    row = (await conn.execute(select(users).where(where))).first()
        if row is None:
            raise KeyError(f"no user with id {user_id!r}")
        return user_from(users, row)

    async def delete_user(self, user_id: str) -> AdapterUser | None:
        """Delete the user with their sessions, accounts and passkeys, what the account
        center keeps of them but their session version, and their password, MFA
        enrolment, recovery codes and trusted browsers, in one transaction.

        The user's row goes first: a concurrent write of the user's password or second
        factors (which locks that row, see ``SQLFactors``) is then either refused or
        waited for, and what it wrote deleted."""
        key = self._user_key(user_id)
        if key is None:
            return None
        t = self.tables
        async with self._transaction() as conn:
            row = await delete_returning(conn, t.users, t.users.c.id == key)
            kept = t.session_versions
            dependents = (t.sessions, t.accounts, t.authenticators, *t.account_center, *t.factors)
            for table in self._present(*dependents):
                if table is kept:
                    continue
                await conn.execute(delete(table).where(table.c.user_id == key))
        return user_from(t.users, row) if row else None

    # -- accounts ------------------------------------------------------------------------

    async def link_account(self, account: AdapterAccount) -> AdapterAccount:
        """Insert ``account``."""
        async with self._transaction() as conn:
            await self._insert_account(conn, account)
        return account

    async def _insert_account(self, conn: AsyncConnection, account: AdapterAccount) -> None:
        values = values_of(account) | {"user_id": self._user_ref(account.user_id)}
        await conn.execute(insert(self.tables.accounts).values(values))

    async def unlink_account(
        self, provider: str, provider_account_id: str
    ) -> AdapterAccount | None:
        """Delete the account and return it, or ``None`` if there is none."""
        accounts = self.tables.accounts
        where = (accounts.c.provider == provider) & (
            accounts.c.provider_account_id == provider_account_id
        )
        async with self._transaction() as conn:
            row = await delete_returning(conn, accounts, where)
        return account_from(accounts, row) if row else None

    async def get_account(self, provider_account_id: str, provider: str) -> AdapterAccount | None:
        """The account ``provider_account_id`` at ``provider``, or ``None``."""
        accounts = self.tables.accounts
        query = select(accounts).where(
            accounts.c.provider == provider,
            accounts.c.provider_account_id == provider_account_id,
        )
        row = await self._first(query)
        return account_from(accounts, row) if row else None

    async def list_user_accounts(self, user_id: str) -> list[AdapterAccount]:
        """Every account linked to the user, by provider and provider account id."""
        key = self._user_key(user_id)
        if key is None:
            return []
        accounts = self.tables.accounts
        query = (
            select(accounts)
            .where(accounts.c.user_id == key)
            .order_by(accounts.c.provider, accounts.c.provider_account_id)
        )
        async with self._transaction() as conn:
            rows = (await conn.execute(query)).all()
        return [account_from(accounts, row) for row in rows]

    async def update_account(
        self, provider: str, provider_account_id: str, changes: Mapping[str, Any]
    ) -> AdapterAccount | None:
        """Set the account's fields in ``changes`` (its OAuth tokens, after a refresh) in
        one ``UPDATE`` and return the account as stored; ``None`` if there is none.

        Raises:
            ValueError: ``changes`` names a field accounts don't have, or one that
                identifies the account (see ``authui.adapters.token_refresh.account_changes``).
            TypeError: A value is not of its field's type.
        """
        fields = account_changes(changes)
        accounts = self.tables.accounts
        where = (accounts.c.provider == provider) & (
            accounts.c.provider_account_id == provider_account_id
        )
        if not fields:
            row = await self._first(select(accounts).where(where))
        else:
            async with self._transaction() as conn:
                row = await update_returning(conn, accounts, where, fields)
        return account_from(accounts, row) if row else None

    # -- sessions ------------------------------------------------------------------------

    async def create_session(self, session: AdapterSession) -> AdapterSession:
        """Insert ``session``."""
        async with self._transaction() as conn:
            await self._insert_session(conn, session)
        return session

    async def _insert_session(self, conn: AsyncConnection, session: AdapterSession) -> None:
        values = values_of(session) | {"user_id": self._user_ref(session.user_id)}
        await conn.execute(insert(self.tables.sessions).values(values))

    async def get_session_and_user(
        self, session_token: str
    ) -> tuple[AdapterSession, AdapterUser] | None:
        """The session and its user in one query, or ``None``: on the driver's own
        connection where the engine allows it (``authui.adapters.sql.session_reads``),
        read anew each time."""
        row = await self.session_read(session_token)
        tables = self.tables
        return session_and_user_from(tables.sessions, tables.users, row) if row else None

    async def update_session(self, session_token: str, expires: datetime) -> AdapterSession | None:
        """Set the session's expiry; ``None`` if there is no such session."""
        sessions = self.tables.sessions
        async with self._transaction() as conn:
            where = sessions.c.session_token == session_token
            row = await update_returning(conn, sessions, where, {"expires": expires})
        return session_from(sessions, row) if row else None

    async def delete_session(self, session_token: str) -> AdapterSession | None:
        """Delete the session and its details and return it, or ``None`` if there is
        none."""
        sessions, details = self.tables.sessions, self.tables.session_details
        async with self._transaction() as conn:
            where = sessions.c.session_token == session_token
            row = await delete_returning(conn, sessions, where)
            for kept in self._present(details):
                await conn.execute(delete(kept).where(kept.c.session_token == session_token))
        return session_from(sessions, row) if row else None

    # -- verification tokens -------------------------------------------------------------

    async def create_verification_token(self, token: VerificationToken) -> VerificationToken:
        """Insert ``token``."""
        async with self._transaction() as conn:
            await conn.execute(insert(self.tables.verification_tokens).values(values_of(token)))
        return token

    async def use_verification_token(self, identifier: str, token: str) -> VerificationToken | None:
        """Delete the token and return it: of concurrent calls exactly one gets it."""
        tokens = self.tables.verification_tokens
        where = (tokens.c.identifier == identifier) & (tokens.c.token == token)
        async with self._transaction() as conn:
            row = await delete_returning(conn, tokens, where)
        return token_from(tokens, row) if row else None

    # -- authenticators ------------------------------------------------------------------

    async def get_authenticator(self, credential_id: str) -> AdapterAuthenticator | None:
        """The passkey with ``credential_id``, or ``None``."""
        authenticators = self.tables.authenticators
        query = select(authenticators).where(authenticators.c.credential_id == credential_id)
        row = await self._first(query)
        return authenticator_from(authenticators, row) if row else None

    async def create_authenticator(
        self, authenticator: AdapterAuthenticator
    ) -> AdapterAuthenticator:
        """Insert ``authenticator``."""
        values = values_of(authenticator) | {"user_id": self._user_ref(authenticator.user_id)}
        async with self._transaction() as conn:
            await conn.execute(insert(self.tables.authenticators).values(values))
        return authenticator

    async def list_authenticators_by_user_id(self, user_id: str) -> list[AdapterAuthenticator]:
        """The user's passkeys (``[]`` for none)."""
        authenticators = self.tables.authenticators
        key = self._user_key(user_id)
        if key is None:
            return []
        query = select(authenticators).where(authenticators.c.user_id == key)
        async with self._transaction() as conn:
            rows = (await conn.execute(query)).all()
        return [authenticator_from(authenticators, row) for row in rows]

    async def update_authenticator_counter(
        self, credential_id: str, counter: int
    ) -> AdapterAuthenticator:
        """Set the passkey's signature counter.

        Raises:
            KeyError: There is no passkey with ``credential_id``.
        """
        authenticators = self.tables.authenticators
        async with self._transaction() as conn:
            where = authenticators.c.credential_id == credential_id
            row = await update_returning(conn, authenticators, where, {"counter": counter})
        if row is None:
            raise KeyError(f"no authenticator with credential id {credential_id!r}")
        return authenticator_from(authenticators, row)
