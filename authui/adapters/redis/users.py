"""``RedisUsers``: users and the accounts linked to them, with the email index and each
user's set of accounts kept in step in ``WATCH``/``MULTI``/``EXEC`` transactions."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from redis.asyncio.client import Pipeline

from authui.adapters.base import AdapterAccount, AdapterUser, UserChanges
from authui.adapters.json_records import dump_record, utc
from authui.adapters.redis.keys import RedisKeys, account_member
from authui.adapters.redis.store import existing_keys, load, multi, text, texts
from authui.adapters.token_refresh import account_changes


class RedisUsers(RedisKeys):
    """Auth.js's user and account methods; ``delete_user`` also deletes the user's
    sessions and authenticators, what the account center keeps of the user, and their
    password, MFA enrolment, recovery codes and trusted browsers."""

    # Users ----------------------------------------------------------------------------

    async def create_user(self, user: AdapterUser) -> AdapterUser:
        """Store a new user; ``ValueError`` if its id or email is taken."""

        async def step(pipe: Pipeline) -> AdapterUser:
            await self._queue_new_user(pipe, user)
            return normal_user(user)

        return await self._transaction(step, *self._new_user_keys(user))

    def _new_user_keys(self, user: AdapterUser) -> list[str]:
        """The keys a new user takes: its record's and, with an email, its index entry."""
        return existing_keys(self.user_key(user.id), self._email_key_of(user.email))

    async def _queue_new_user(self, pipe: Pipeline, user: AdapterUser) -> None:
        """In a transaction watching ``_new_user_keys(user)``: raise ``ValueError`` if the
        id or the email is taken, else ``MULTI`` and queue the user and its email index."""
        user_key, email_key = self.user_key(user.id), self._email_key_of(user.email)
        if await pipe.exists(user_key):
            raise ValueError(f"user {user.id!r} exists")
        if email_key is not None and await pipe.exists(email_key):
            raise ValueError(f"another user has the email {user.email!r}")
        multi(pipe)
        pipe.set(user_key, dump_record(user))
        if email_key is not None:
            pipe.set(email_key, user.id)

    async def get_user(self, user_id: str) -> AdapterUser | None:
        """The user with this id, or ``None``."""
        return load(AdapterUser, await self._redis.get(self.user_key(user_id)))

    async def get_user_by_email(self, email: str) -> AdapterUser | None:
        """The user with this email, or ``None``."""
        user_id = text(await self._redis.get(self.email_key(email)))
        return None if user_id is None else await self.get_user(user_id)

    async def get_user_by_account(
        self, provider: str, provider_account_id: str
    ) -> AdapterUser | None:
        """The user who linked this account, or ``None``."""
        account = await self.get_account(provider_account_id, provider)
        return None if account is None else await self.get_user(account.user_id)

    async def update_user(self, user_id: str, changes: UserChanges) -> AdapterUser:
        """Apply ``changes`` and return the user; the email index follows a new email (an
        email set to ``None`` leaves the index, one set from ``None`` enters it).

        Raises ``KeyError`` for an unknown user and ``ValueError`` for an email another
        user has.
        """
        user_key = self.user_key(user_id)

        async def step(pipe: Pipeline) -> AdapterUser:
            user = load(AdapterUser, await pipe.get(user_key))
            if user is None:
                raise KeyError(f"no user {user_id!r}")
            updated = normal_user(dataclasses.replace(user, **changes))
            if updated.email != user.email:
                old_key = self._email_key_of(user.email)
                new_key = self._email_key_of(updated.email)
                await pipe.watch(*existing_keys(old_key, new_key))
                owner = None if new_key is None else text(await pipe.get(new_key))
                if owner is not None and owner != user_id:
                    raise ValueError(f"another user has the email {updated.email!r}")
                stale = await self._own_email_key(pipe, old_key, user_id)
                multi(pipe)
                if stale is not None:
                    pipe.delete(stale)
                if new_key is not None:
                    pipe.set(new_key, user_id)
            else:
                multi(pipe)
            pipe.set(user_key, dump_record(updated))
            return updated

        return await self._transaction(step, user_key)

    async def delete_user(self, user_id: str) -> AdapterUser | None:
        """Delete the user with its email index, sessions, accounts and authenticators,
        what the account center keeps of them (session and passkey details, security
        events; not the session version), and their password, MFA enrolment, recovery
        codes and trusted browsers, in one transaction; return the user, or ``None`` if
        there was none."""
        user_key = self.user_key(user_id)
        accounts_key = self.user_accounts_key(user_id)
        sessions_key = self.user_sessions_key(user_id)
        authenticators_key = self.user_authenticators_key(user_id)
        browsers_key = self.user_trusted_browsers_key(user_id)

        async def step(pipe: Pipeline) -> AdapterUser | None:
            user = load(AdapterUser, await pipe.get(user_key))
            email_key = None if user is None else self._email_key_of(user.email)
            if email_key is not None:
                await pipe.watch(email_key)
            email_key = await self._own_email_key(pipe, email_key, user_id)
            accounts = texts(await pipe.smembers(accounts_key))
            sessions = texts(await pipe.zrange(sessions_key, 0, -1))
            authenticators = texts(await pipe.lrange(authenticators_key, 0, -1))
            browsers = texts(await pipe.zrange(browsers_key, 0, -1))
            keys = [user_key, accounts_key, sessions_key, authenticators_key, browsers_key]
            keys.append(self.user_events_key(user_id))
            keys += [self.password_key(user_id), self.mfa_key(user_id)]
            keys.append(self.recovery_codes_key(user_id))
            keys += [self.trusted_browser_key(browser_id) for browser_id in browsers]
            keys += [f"{self._prefix}account:{member}" for member in accounts]
            keys += [self.session_key(token) for token in sessions]
            keys += [self.session_details_key(token) for token in sessions]
            keys += [self.authenticator_key(credential_id) for credential_id in authenticators]
            keys += [self.passkey_details_key(credential_id) for credential_id in authenticators]
            keys += existing_keys(email_key)
            multi(pipe)
            pipe.delete(*keys)
            return user

        return await self._transaction(
            step, user_key, accounts_key, sessions_key, authenticators_key, browsers_key
        )

    @staticmethod
    async def _own_email_key(pipe: Pipeline, email_key: str | None, user_id: str) -> str | None:
        """``email_key`` if it (watched) points at ``user_id``, so that it is the user's to
        delete; ``None`` if there is no key or it names another user."""
        if email_key is None or text(await pipe.get(email_key)) != user_id:
            return None
        return email_key

    # Accounts -------------------------------------------------------------------------

    async def link_account(self, account: AdapterAccount) -> AdapterAccount | None:
        """Store the account and index it under its user (moving it if it was linked to
        another user)."""
        key = self.account_key(account.provider, account.provider_account_id)
        member = account_member(account.provider, account.provider_account_id)

        async def step(pipe: Pipeline) -> AdapterAccount:
            previous = load(AdapterAccount, await pipe.get(key))
            multi(pipe)
            if previous is not None and previous.user_id != account.user_id:
                pipe.srem(self.user_accounts_key(previous.user_id), member)
            self._queue_account(pipe, account)
            return account

        return await self._transaction(step, key)

    async def create_user_and_account(
        self, user: AdapterUser, account: AdapterAccount
    ) -> tuple[AdapterUser, AdapterAccount]:
        """Store a new user and its first account in one transaction (``MULTI``/``EXEC``):
        both or neither; ``ValueError`` if the id, the email or the account is taken. The
        account's ``user_id`` becomes the user's id."""
        key = self.account_key(account.provider, account.provider_account_id)
        linked = dataclasses.replace(account, user_id=user.id)

        async def step(pipe: Pipeline) -> tuple[AdapterUser, AdapterAccount]:
            if await pipe.exists(key):
                raise ValueError(f"the {account.provider} account is linked already")
            await self._queue_new_user(pipe, user)
            self._queue_account(pipe, linked)
            return normal_user(user), linked

        return await self._transaction(step, key, *self._new_user_keys(user))

    def _queue_account(self, pipe: Pipeline, account: AdapterAccount) -> None:
        """Queue the account's record and its entry in its user's set of accounts."""
        member = account_member(account.provider, account.provider_account_id)
        pipe.set(
            self.account_key(account.provider, account.provider_account_id), dump_record(account)
        )
        pipe.sadd(self.user_accounts_key(account.user_id), member)

    async def unlink_account(
        self, provider: str, provider_account_id: str
    ) -> AdapterAccount | None:
        """Delete the account and return it, or ``None`` if there was none."""
        account = load(
            AdapterAccount,
            await self._redis.getdel(self.account_key(provider, provider_account_id)),
        )
        if account is not None:
            await self._redis.srem(
                self.user_accounts_key(account.user_id),
                account_member(provider, provider_account_id),
            )
        return account

    async def get_account(self, provider_account_id: str, provider: str) -> AdapterAccount | None:
        """The account, or ``None``."""
        return load(
            AdapterAccount, await self._redis.get(self.account_key(provider, provider_account_id))
        )

    async def list_user_accounts(self, user_id: str) -> list[AdapterAccount]:
        """Every account in the user's ``user-accounts:`` set, by provider and id."""
        members = sorted(texts(await self._redis.smembers(self.user_accounts_key(user_id))))
        if not members:
            return []
        values = await self._redis.mget([f"{self._prefix}account:{m}" for m in members])
        found = [load(AdapterAccount, value) for value in values]
        accounts = [a for a in found if a is not None]
        return sorted(accounts, key=lambda a: (a.provider, a.provider_account_id))

    async def update_account(
        self, provider: str, provider_account_id: str, changes: Mapping[str, Any]
    ) -> AdapterAccount | None:
        """Set the account's fields in ``changes`` (its OAuth tokens, after a refresh) and
        return the account as stored, in a transaction on its key; ``None`` if there is no
        such account. ``ValueError`` for a field accounts don't have or one that
        identifies the account, ``TypeError`` for a value of the wrong type
        (``authui.adapters.token_refresh.account_changes``)."""
        fields = account_changes(changes)
        key = self.account_key(provider, provider_account_id)

        async def step(pipe: Pipeline) -> AdapterAccount | None:
            account = load(AdapterAccount, await pipe.get(key))
            multi(pipe)
            if account is None or not fields:
                return account
            updated = dataclasses.replace(account, **fields)
            pipe.set(key, dump_record(updated))
            return updated

        return await self._transaction(step, key)


def normal_user(user: AdapterUser) -> AdapterUser:
    """``user`` with ``email_verified`` in UTC, as every method returns a user."""
    verified = user.email_verified
    return dataclasses.replace(user, email_verified=None if verified is None else utc(verified))
