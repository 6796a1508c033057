"""An adapter that keeps users, accounts, sessions, tokens and passkeys in Redis.

Install the extra (``pip install "authui[redis]"``) and hand the adapter a URL or an
existing ``redis.asyncio.Redis`` client::

    adapter = RedisAdapter("redis://localhost:6379/0")
    adapter = RedisAdapter(client, prefix="myapp:auth:")

The adapter uses that one client (and so its connection pool) for every call. When it made
the client from a URL it also owns it: ``await adapter.close()`` (or ``async with``)
closes it; a client passed in stays the caller's to close.

Key layout
----------
Every key starts with the prefix (default ``authui:``). Records are JSON strings whose
field names are the Auth.js ones (``emailVerified``, ``userId``, ``providerAccountId``,
``sessionToken``, ``credentialID``, …); dates are ISO 8601 strings with a UTC offset
(``2030-01-01T12:00:00.123456+00:00``)::

    user:<id>                                 user (JSON)
    user-by-email:<email>                     the user's id (none for a user without email)
    account:<provider>:<providerAccountId>    account (JSON)
    user-accounts:<userId>                    SET of "<provider>:<providerAccountId>"
    session:<sessionToken>                    session (JSON), TTL at its expires
    user-sessions:<userId>                    ZSET of session tokens, scored by expiry (ms)
    token:<identifier>:<token>                verification token (JSON), TTL at its expires
    authenticator:<credentialID>              authenticator (JSON)
    user-authenticators:<userId>              LIST of credential ids, oldest first
    rate-limit:<seconds>:<window>:<key>       integer count, TTL at the window's end

Sessions and verification tokens get a TTL at their ``expires`` (``SET … PXAT``), so Redis
drops them by itself once they expire; ``update_session`` moves it. Expired session tokens left in
``user-sessions:<userId>`` are pruned whenever that user gets a new session.

``rate-limit:`` keys hold the counts of ``increment_rate_limit`` (an authui extension, not
part of Auth.js's interface): the count of ``<key>`` in window number ``<window>``
(``floor(now / <seconds>)``) of ``<seconds>``-second windows. The key embeds the window,
so a new window starts from a new key, and each key lives until its window ends (a TTL of
the window's remaining time, so clocks that differ between Redis and the app do not
matter).

The per-user indexes live in their own namespaces (``user-accounts:`` rather than
``account:user:``) so that no id, email or provider can make one key look like another;
in the two keys with two variable parts, ``:`` and ``%`` in the first part (provider,
identifier) are percent-encoded (``%3A``, ``%25``), which leaves ordinary values as they are.

Atomicity: ``use_verification_token`` is one ``GETDEL``, so of many concurrent calls for
one token exactly one gets it; ``increment_rate_limit`` is ``INCR`` and ``PEXPIRE`` in one
``MULTI``/``EXEC``, so every concurrent call gets a count of its own. Changes that touch
several keys (``create_user``, ``update_user``, ``delete_user``, ``link_account``,
``create_authenticator``, ``update_session``, ``update_authenticator_counter``, …) run as
``WATCH``/``MULTI``/``EXEC`` transactions that retry when a watched key changes underneath
them. The keys of one operation may live in different hash slots, so Redis Cluster is not
supported.

Emails are unique: ``create_user`` and ``update_user`` raise ``ValueError`` for an email
another user has (as the Auth.js SQL schemas' unique constraint would). A user may have no
email (``None``: OAuth providers such as Twitter/X give none); such users have no
``user-by-email:`` key, and any number of them can exist.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from types import TracebackType
from typing import Self, TypeVar, cast

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline
from redis.exceptions import WatchError

from authui.adapters.base import (
    AdapterAccount,
    AdapterAuthenticator,
    AdapterSession,
    AdapterUser,
    RateLimitWindow,
    UserChanges,
    VerificationToken,
)
from authui.adapters.json_records import dump_record, load_record, utc

__all__ = ["DEFAULT_PREFIX", "RedisAdapter"]

DEFAULT_PREFIX = "authui:"

_T = TypeVar("_T")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MILLISECOND = timedelta(milliseconds=1)


class RedisAdapter:
    """Every adapter method, and authui's ``increment_rate_limit``, over Redis
    (``redis.asyncio``).

    Args:
        redis: A ``redis://``/``rediss://``/``unix://`` URL, or an existing
            ``redis.asyncio.Redis`` client (with or without ``decode_responses``).
        prefix: Put in front of every key, so several apps (or test runs) can share one
            database.
    """

    def __init__(self, redis: str | Redis, *, prefix: str = DEFAULT_PREFIX) -> None:
        if isinstance(redis, str):
            self._redis = Redis.from_url(redis, decode_responses=True)
            self._owns_client = True
        else:
            self._redis = redis
            self._owns_client = False
        self._prefix = prefix

    @property
    def redis(self) -> Redis:
        """The client every call goes through."""
        return self._redis

    @property
    def prefix(self) -> str:
        """What every key starts with."""
        return self._prefix

    async def close(self) -> None:
        """Close the client if the adapter made it from a URL; a client passed in is left
        open for its owner to close."""
        if self._owns_client:
            await self._redis.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

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
        return f"{self._prefix}token:{_escape(identifier)}:{token}"

    def authenticator_key(self, credential_id: str) -> str:
        """``<prefix>authenticator:<credentialID>``: the authenticator's JSON."""
        return f"{self._prefix}authenticator:{credential_id}"

    def user_authenticators_key(self, user_id: str) -> str:
        """``<prefix>user-authenticators:<userId>``: list of credential ids, oldest first."""
        return f"{self._prefix}user-authenticators:{user_id}"

    def rate_limit_key(self, key: str, window_seconds: int, window: int) -> str:
        """``<prefix>rate-limit:<seconds>:<window>:<key>``: the count of ``key`` in window
        number ``window`` of ``window_seconds``-second windows, expiring when it ends.
        ``<key>`` comes last and the numbers hold no ``:``, so it needs no escaping."""
        return f"{self._prefix}rate-limit:{window_seconds}:{window}:{key}"

    # Users ----------------------------------------------------------------------------

    async def create_user(self, user: AdapterUser) -> AdapterUser:
        """Store a new user; ``ValueError`` if its id or email is taken."""

        async def step(pipe: Pipeline) -> AdapterUser:
            await self._queue_new_user(pipe, user)
            return _normal_user(user)

        return await self._transaction(step, *self._new_user_keys(user))

    def _new_user_keys(self, user: AdapterUser) -> list[str]:
        """The keys a new user takes: its record's and, with an email, its index entry."""
        return _keys(self.user_key(user.id), self._email_key_of(user.email))

    async def _queue_new_user(self, pipe: Pipeline, user: AdapterUser) -> None:
        """In a transaction watching ``_new_user_keys(user)``: raise ``ValueError`` if the
        id or the email is taken, else ``MULTI`` and queue the user and its email index."""
        user_key, email_key = self.user_key(user.id), self._email_key_of(user.email)
        if await pipe.exists(user_key):
            raise ValueError(f"user {user.id!r} exists")
        if email_key is not None and await pipe.exists(email_key):
            raise ValueError(f"another user has the email {user.email!r}")
        _multi(pipe)
        pipe.set(user_key, dump_record(user))
        if email_key is not None:
            pipe.set(email_key, user.id)

    async def get_user(self, user_id: str) -> AdapterUser | None:
        """The user with this id, or ``None``."""
        return _load(AdapterUser, await self._redis.get(self.user_key(user_id)))

    async def get_user_by_email(self, email: str) -> AdapterUser | None:
        """The user with this email, or ``None``."""
        user_id = _text(await self._redis.get(self.email_key(email)))
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
            user = _load(AdapterUser, await pipe.get(user_key))
            if user is None:
                raise KeyError(f"no user {user_id!r}")
            updated = _normal_user(dataclasses.replace(user, **changes))
            if updated.email != user.email:
                old_key = self._email_key_of(user.email)
                new_key = self._email_key_of(updated.email)
                await pipe.watch(*_keys(old_key, new_key))
                owner = None if new_key is None else _text(await pipe.get(new_key))
                if owner is not None and owner != user_id:
                    raise ValueError(f"another user has the email {updated.email!r}")
                stale = await self._own_email_key(pipe, old_key, user_id)
                _multi(pipe)
                if stale is not None:
                    pipe.delete(stale)
                if new_key is not None:
                    pipe.set(new_key, user_id)
            else:
                _multi(pipe)
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
            user = _load(AdapterUser, await pipe.get(user_key))
            email_key = None if user is None else self._email_key_of(user.email)
            if email_key is not None:
                await pipe.watch(email_key)
            email_key = await self._own_email_key(pipe, email_key, user_id)
            accounts = _texts(await pipe.smembers(accounts_key))
            sessions = _texts(await pipe.zrange(sessions_key, 0, -1))
            authenticators = _texts(await pipe.lrange(authenticators_key, 0, -1))
            keys = [user_key, accounts_key, sessions_key, authenticators_key]
            keys += [f"{self._prefix}account:{member}" for member in accounts]
            keys += [self.session_key(token) for token in sessions]
            keys += [self.authenticator_key(credential_id) for credential_id in authenticators]
            keys += _keys(email_key)
            _multi(pipe)
            pipe.delete(*keys)
            return user

        return await self._transaction(
            step, user_key, accounts_key, sessions_key, authenticators_key
        )

    @staticmethod
    async def _own_email_key(pipe: Pipeline, email_key: str | None, user_id: str) -> str | None:
        """``email_key`` if it (watched) points at ``user_id``, so that it is the user's to
        delete; ``None`` if there is no key or it names another user."""
        if email_key is None or _text(await pipe.get(email_key)) != user_id:
            return None
        return email_key

    # Accounts -------------------------------------------------------------------------

    async def link_account(self, account: AdapterAccount) -> AdapterAccount | None:
        """Store the account and index it under its user (moving it if it was linked to
        another user)."""
        key = self.account_key(account.provider, account.provider_account_id)
        member = _account_member(account.provider, account.provider_account_id)

        async def step(pipe: Pipeline) -> AdapterAccount:
            previous = _load(AdapterAccount, await pipe.get(key))
            _multi(pipe)
            if previous is not None and previous.user_id != account.user_id:
                pipe.srem(self.user_accounts_key(previous.user_id), member)
            pipe.set(key, dump_record(account))
            pipe.sadd(self.user_accounts_key(account.user_id), member)
            return account

        return await self._transaction(step, key)

    async def unlink_account(
        self, provider: str, provider_account_id: str
    ) -> AdapterAccount | None:
        """Delete the account and return it, or ``None`` if there was none."""
        account = _load(
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
        return _load(
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
            pxat=_epoch_ms(session.expires),
        )
        pipe.zadd(index_key, {session.session_token: _epoch_ms(session.expires)})
        pipe.zremrangebyscore(index_key, "-inf", f"({_epoch_ms(_now())}")

    async def get_session_and_user(
        self, session_token: str
    ) -> tuple[AdapterSession, AdapterUser] | None:
        """The session and its user, or ``None`` if either is missing (or expired)."""
        session = _load(AdapterSession, await self._redis.get(self.session_key(session_token)))
        if session is None:
            return None
        user = await self.get_user(session.user_id)
        return None if user is None else (session, user)

    async def update_session(self, session_token: str, expires: datetime) -> AdapterSession | None:
        """Move the session's expiry (and its TTL); ``None`` if there is no such session."""
        key = self.session_key(session_token)

        async def step(pipe: Pipeline) -> AdapterSession | None:
            session = _load(AdapterSession, await pipe.get(key))
            _multi(pipe)
            if session is None:
                return None
            updated = dataclasses.replace(session, expires=utc(expires))
            pipe.set(key, dump_record(updated), pxat=_epoch_ms(expires))
            pipe.zadd(self.user_sessions_key(session.user_id), {session_token: _epoch_ms(expires)})
            return updated

        return await self._transaction(step, key)

    async def delete_session(self, session_token: str) -> AdapterSession | None:
        """Delete the session and return it, or ``None`` if there was none."""
        session = _load(AdapterSession, await self._redis.getdel(self.session_key(session_token)))
        if session is not None:
            await self._redis.zrem(self.user_sessions_key(session.user_id), session_token)
        return session

    # Verification tokens --------------------------------------------------------------

    async def create_verification_token(self, token: VerificationToken) -> VerificationToken:
        """Store the token to expire at ``token.expires``."""
        await self._redis.set(
            self.verification_token_key(token.identifier, token.token),
            dump_record(token),
            pxat=_epoch_ms(token.expires),
        )
        return dataclasses.replace(token, expires=utc(token.expires))

    async def use_verification_token(self, identifier: str, token: str) -> VerificationToken | None:
        """Return the token and delete it in one step (``GETDEL``): of concurrent calls
        exactly one gets it; the others, and any later call, get ``None``."""
        return _load(
            VerificationToken,
            await self._redis.getdel(self.verification_token_key(identifier, token)),
        )

    # Rate limits (an authui extension) ------------------------------------------------

    async def increment_rate_limit(self, key: str, window_seconds: int) -> int:
        """Count one event for ``key`` in the current window of ``window_seconds`` and
        return the window's count, this one included: ``INCR`` of the window's key and a
        ``PEXPIRE`` at the window's end, in one ``MULTI``/``EXEC``."""
        window = RateLimitWindow.current(window_seconds)
        redis_key = self.rate_limit_key(key, window_seconds, window.number)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.incr(redis_key)
            pipe.pexpire(redis_key, math.ceil((window.ends_at - window.now) * 1000))
            count, _ = await pipe.execute()
        return int(count)

    # Authenticators -------------------------------------------------------------------

    async def get_authenticator(self, credential_id: str) -> AdapterAuthenticator | None:
        """The authenticator, or ``None``."""
        return _load(
            AdapterAuthenticator, await self._redis.get(self.authenticator_key(credential_id))
        )

    async def create_authenticator(
        self, authenticator: AdapterAuthenticator
    ) -> AdapterAuthenticator:
        """Store the authenticator and append it to its user's list."""
        key = self.authenticator_key(authenticator.credential_id)
        credential_id = authenticator.credential_id

        async def step(pipe: Pipeline) -> AdapterAuthenticator:
            previous = _load(AdapterAuthenticator, await pipe.get(key))
            _multi(pipe)
            if previous is not None:
                pipe.lrem(self.user_authenticators_key(previous.user_id), 0, credential_id)
            pipe.set(key, dump_record(authenticator))
            pipe.rpush(self.user_authenticators_key(authenticator.user_id), credential_id)
            return authenticator

        return await self._transaction(step, key)

    async def list_authenticators_by_user_id(self, user_id: str) -> list[AdapterAuthenticator]:
        """The user's authenticators, oldest first; ``[]`` if none."""
        credential_ids = _texts(
            await self._redis.lrange(self.user_authenticators_key(user_id), 0, -1)
        )
        if not credential_ids:
            return []
        values = await self._redis.mget([self.authenticator_key(c) for c in credential_ids])
        found = (_load(AdapterAuthenticator, value) for value in values)
        return [a for a in found if a is not None]

    async def update_authenticator_counter(
        self, credential_id: str, counter: int
    ) -> AdapterAuthenticator:
        """Set the signature counter and return the authenticator; ``KeyError`` for an
        unknown credential."""
        key = self.authenticator_key(credential_id)

        async def step(pipe: Pipeline) -> AdapterAuthenticator:
            authenticator = _load(AdapterAuthenticator, await pipe.get(key))
            if authenticator is None:
                raise KeyError(f"no authenticator {credential_id!r}")
            updated = dataclasses.replace(authenticator, counter=counter)
            _multi(pipe)
            pipe.set(key, dump_record(updated))
            return updated

        return await self._transaction(step, key)

    # Plumbing -------------------------------------------------------------------------

    async def _transaction(self, step: Callable[[Pipeline], Awaitable[_T]], *watch: str) -> _T:
        """Run ``step`` as an optimistic transaction: ``WATCH`` the keys, let ``step`` read
        (immediate mode), call ``MULTI`` and queue its writes; ``EXEC`` them, and start over
        if a watched key changed meanwhile. ``step`` raising aborts without writing."""
        async with self._redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    await pipe.watch(*watch)
                    result = await step(pipe)
                    await pipe.execute()
                except WatchError:
                    continue
                return result


def _multi(pipe: Pipeline) -> None:
    """``MULTI``: what follows is queued (redis-py leaves ``multi`` unannotated)."""
    cast("Callable[[], None]", pipe.multi)()


# Serialisation ------------------------------------------------------------------------


def _keys(*keys: str | None) -> list[str]:
    """The keys that are there (a user without email has no email index key)."""
    return [key for key in keys if key is not None]


def _escape(part: str) -> str:
    return part.replace("%", "%25").replace(":", "%3A")


def _account_member(provider: str, provider_account_id: str) -> str:
    return f"{_escape(provider)}:{provider_account_id}"


def _now() -> datetime:
    return datetime.now(UTC)


def _epoch_ms(value: datetime) -> int:
    """Milliseconds since the epoch, at least 1 (``PXAT`` refuses 0 and below; a time in
    the past makes Redis drop the key at once)."""
    return max(1, (utc(value) - _EPOCH) // _MILLISECOND)


def _text(value: object) -> str | None:
    """A reply as ``str`` (clients without ``decode_responses`` return ``bytes``)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode()
    raise TypeError(f"unexpected Redis reply {value!r}")


def _texts(values: object) -> list[str]:
    """A list or set reply as ``str`` values."""
    return [cast("str", _text(v)) for v in cast("list[object] | set[object]", values)]


def _normal_user(user: AdapterUser) -> AdapterUser:
    verified = user.email_verified
    return dataclasses.replace(user, email_verified=None if verified is None else utc(verified))


def _load(cls: type[_T], value: object) -> _T | None:
    """A record stored as JSON (the reply may be ``bytes``)."""
    return load_record(cls, _text(value))
