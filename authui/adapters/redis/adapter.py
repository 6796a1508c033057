"""``RedisAdapter``: Auth.js's adapter methods over Redis; authui's own methods come from
``RedisExtensions``, the client and transactions from ``RedisStore``."""

from __future__ import annotations

import dataclasses
from datetime import datetime

from redis.asyncio.client import Pipeline

from authui.adapters.base import (
    AdapterAccount,
    AdapterAuthenticator,
    AdapterSession,
    AdapterUser,
    UserChanges,
    VerificationToken,
)
from authui.adapters.json_records import dump_record, utc
from authui.adapters.redis.extensions import RedisExtensions
from authui.adapters.redis.store import (
    epoch_ms,
    escape,
    existing_keys,
    load,
    multi,
    now,
    text,
    texts,
)


class RedisAdapter(RedisExtensions):
    """Every adapter method, and authui's extensions (rate limits, single-use challenges),
    over Redis (``redis.asyncio``).

    Args:
        redis: A ``redis://``/``rediss://``/``unix://`` URL, or an existing
            ``redis.asyncio.Redis`` client (with or without ``decode_responses``).
        prefix: Put in front of every key, so several apps (or test runs) can share one
            database.
    """

    # Keys -----------------------------------------------------------------------------

    def user_key(self, user_id: str) -> str:
        """``<prefix>user:<id>``: the user's JSON."""
        return f"{self._prefix}user:{user_id}"

    def email_key(self, email: str) -> str:
        """``<prefix>user-by-email:<email>``: the id of the user with that email."""
        return f"{self._prefix}user-by-email:{email}"

    def _email_key_of(self, email: str | None) -> str | None:
        """The email index key for ``email``; ``None`` for a user without email."""
        return None if email is None else self.email_key(email)

    def account_key(self, provider: str, provider_account_id: str) -> str:
        """``<prefix>account:<provider>:<providerAccountId>``: the account's JSON."""
        return f"{self._prefix}account:{_account_member(provider, provider_account_id)}"

    def user_accounts_key(self, user_id: str) -> str:
        """``<prefix>user-accounts:<userId>``: set of ``<provider>:<providerAccountId>``."""
        return f"{self._prefix}user-accounts:{user_id}"

    def session_key(self, session_token: str) -> str:
        """``<prefix>session:<sessionToken>``: the session's JSON, expiring at ``expires``."""
        return f"{self._prefix}session:{session_token}"

    def user_sessions_key(self, user_id: str) -> str:
        """``<prefix>user-sessions:<userId>``: sorted set of session tokens by expiry."""
        return f"{self._prefix}user-sessions:{user_id}"

    def verification_token_key(self, identifier: str, token: str) -> str:
        """``<prefix>token:<identifier>:<token>``: the token's JSON, expiring at ``expires``."""
        return f"{self._prefix}token:{escape(identifier)}:{token}"

    def authenticator_key(self, credential_id: str) -> str:
        """``<prefix>authenticator:<credentialID>``: the authenticator's JSON."""
        return f"{self._prefix}authenticator:{credential_id}"

    def user_authenticators_key(self, user_id: str) -> str:
        """``<prefix>user-authenticators:<userId>``: list of credential ids, oldest first."""
        return f"{self._prefix}user-authenticators:{user_id}"

    # Users ----------------------------------------------------------------------------

    async def create_user(self, user: AdapterUser) -> AdapterUser:
        """Store a new user; ``ValueError`` if its id or email is taken."""

        async def step(pipe: Pipeline) -> AdapterUser:
            await self._queue_new_user(pipe, user)
            return _normal_user(user)

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
            updated = _normal_user(dataclasses.replace(user, **changes))
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
        """Delete the user with its email index, sessions, accounts and authenticators, in
        one transaction; return the user, or ``None`` if there was none."""
        user_key = self.user_key(user_id)
        accounts_key = self.user_accounts_key(user_id)
        sessions_key = self.user_sessions_key(user_id)
        authenticators_key = self.user_authenticators_key(user_id)

        async def step(pipe: Pipeline) -> AdapterUser | None:
            user = load(AdapterUser, await pipe.get(user_key))
            email_key = None if user is None else self._email_key_of(user.email)
            if email_key is not None:
                await pipe.watch(email_key)
            email_key = await self._own_email_key(pipe, email_key, user_id)
            accounts = texts(await pipe.smembers(accounts_key))
            sessions = texts(await pipe.zrange(sessions_key, 0, -1))
            authenticators = texts(await pipe.lrange(authenticators_key, 0, -1))
            keys = [user_key, accounts_key, sessions_key, authenticators_key]
            keys += [f"{self._prefix}account:{member}" for member in accounts]
            keys += [self.session_key(token) for token in sessions]
            keys += [self.authenticator_key(credential_id) for credential_id in authenticators]
            keys += existing_keys(email_key)
            multi(pipe)
            pipe.delete(*keys)
            return user

        return await self._transaction(
            step, user_key, accounts_key, sessions_key, authenticators_key
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
        member = _account_member(account.provider, account.provider_account_id)

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
            return _normal_user(user), linked

        return await self._transaction(step, key, *self._new_user_keys(user))

    def _queue_account(self, pipe: Pipeline, account: AdapterAccount) -> None:
        """Queue the account's record and its entry in its user's set of accounts."""
        member = _account_member(account.provider, account.provider_account_id)
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
                _account_member(provider, provider_account_id),
            )
        return account

    async def get_account(self, provider_account_id: str, provider: str) -> AdapterAccount | None:
        """The account, or ``None``."""
        return load(
            AdapterAccount, await self._redis.get(self.account_key(provider, provider_account_id))
        )

    # Sessions -------------------------------------------------------------------------

    async def create_session(self, session: AdapterSession) -> AdapterSession:
        """Store the session to expire at ``session.expires``."""
        async with self._redis.pipeline(transaction=True) as pipe:
            self._queue_session(pipe, session)
            await pipe.execute()
        return dataclasses.replace(session, expires=utc(session.expires))

    async def create_user_and_session(
        self, user: AdapterUser, session_token: str, expires: datetime
    ) -> tuple[AdapterUser, AdapterSession]:
        """Store a new user and its first session in one transaction: both or neither."""
        session = AdapterSession(session_token=session_token, user_id=user.id, expires=expires)

        async def step(pipe: Pipeline) -> tuple[AdapterUser, AdapterSession]:
            await self._queue_new_user(pipe, user)
            self._queue_session(pipe, session)
            return _normal_user(user), dataclasses.replace(session, expires=utc(expires))

        return await self._transaction(step, *self._new_user_keys(user))

    def _queue_session(self, pipe: Pipeline, session: AdapterSession) -> None:
        index_key = self.user_sessions_key(session.user_id)
        pipe.set(
            self.session_key(session.session_token),
            dump_record(session),
            pxat=epoch_ms(session.expires),
        )
        pipe.zadd(index_key, {session.session_token: epoch_ms(session.expires)})
        pipe.zremrangebyscore(index_key, "-inf", f"({epoch_ms(now())}")

    async def get_session_and_user(
        self, session_token: str
    ) -> tuple[AdapterSession, AdapterUser] | None:
        """The session and its user, or ``None`` if either is missing (or expired)."""
        session = load(AdapterSession, await self._redis.get(self.session_key(session_token)))
        if session is None:
            return None
        user = await self.get_user(session.user_id)
        return None if user is None else (session, user)

    async def update_session(self, session_token: str, expires: datetime) -> AdapterSession | None:
        """Move the session's expiry (and its TTL); ``None`` if there is no such session."""
        key = self.session_key(session_token)

        async def step(pipe: Pipeline) -> AdapterSession | None:
            session = load(AdapterSession, await pipe.get(key))
            multi(pipe)
            if session is None:
                return None
            updated = dataclasses.replace(session, expires=utc(expires))
            pipe.set(key, dump_record(updated), pxat=epoch_ms(expires))
            pipe.zadd(self.user_sessions_key(session.user_id), {session_token: epoch_ms(expires)})
            return updated

        return await self._transaction(step, key)

    async def delete_session(self, session_token: str) -> AdapterSession | None:
        """Delete the session and return it, or ``None`` if there was none."""
        session = load(AdapterSession, await self._redis.getdel(self.session_key(session_token)))
        if session is not None:
            await self._redis.zrem(self.user_sessions_key(session.user_id), session_token)
        return session

    # Verification tokens --------------------------------------------------------------

    async def create_verification_token(self, token: VerificationToken) -> VerificationToken:
        """Store the token to expire at ``token.expires``."""
        await self._redis.set(
            self.verification_token_key(token.identifier, token.token),
            dump_record(token),
            pxat=epoch_ms(token.expires),
        )
        return dataclasses.replace(token, expires=utc(token.expires))

    async def use_verification_token(self, identifier: str, token: str) -> VerificationToken | None:
        """Return the token and delete it in one step (``GETDEL``): of concurrent calls
        exactly one gets it; the others, and any later call, get ``None``."""
        return load(
            VerificationToken,
            await self._redis.getdel(self.verification_token_key(identifier, token)),
        )

    # Authenticators -------------------------------------------------------------------

    async def get_authenticator(self, credential_id: str) -> AdapterAuthenticator | None:
        """The authenticator, or ``None``."""
        return load(
            AdapterAuthenticator, await self._redis.get(self.authenticator_key(credential_id))
        )

    async def create_authenticator(
        self, authenticator: AdapterAuthenticator
    ) -> AdapterAuthenticator:
        """Store the authenticator and append it to its user's list."""
        key = self.authenticator_key(authenticator.credential_id)
        credential_id = authenticator.credential_id

        async def step(pipe: Pipeline) -> AdapterAuthenticator:
            previous = load(AdapterAuthenticator, await pipe.get(key))
            multi(pipe)
            if previous is not None:
                pipe.lrem(self.user_authenticators_key(previous.user_id), 0, credential_id)
            pipe.set(key, dump_record(authenticator))
            pipe.rpush(self.user_authenticators_key(authenticator.user_id), credential_id)
            return authenticator

        return await self._transaction(step, key)

    async def list_authenticators_by_user_id(self, user_id: str) -> list[AdapterAuthenticator]:
        """The user's authenticators, oldest first; ``[]`` if none."""
        credential_ids = texts(
            await self._redis.lrange(self.user_authenticators_key(user_id), 0, -1)
        )
        if not credential_ids:
            return []
        values = await self._redis.mget([self.authenticator_key(c) for c in credential_ids])
        found = (load(AdapterAuthenticator, value) for value in values)
        return [a for a in found if a is not None]

    async def update_authenticator_counter(
        self, credential_id: str, counter: int
    ) -> AdapterAuthenticator:
        """Set the signature counter and return the authenticator; ``KeyError`` for an
        unknown credential."""
        key = self.authenticator_key(credential_id)

        async def step(pipe: Pipeline) -> AdapterAuthenticator:
            authenticator = load(AdapterAuthenticator, await pipe.get(key))
            if authenticator is None:
                raise KeyError(f"no authenticator {credential_id!r}")
            updated = dataclasses.replace(authenticator, counter=counter)
            multi(pipe)
            pipe.set(key, dump_record(updated))
            return updated

        return await self._transaction(step, key)


def _account_member(provider: str, provider_account_id: str) -> str:
    return f"{escape(provider)}:{provider_account_id}"


def _normal_user(user: AdapterUser) -> AdapterUser:
    verified = user.email_verified
    return dataclasses.replace(user, email_verified=None if verified is None else utc(verified))
