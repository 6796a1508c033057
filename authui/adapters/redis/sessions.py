"""``RedisSessions``: database sessions and sign-in (verification) tokens, the records
Redis drops by itself at their ``expires`` (``SET … PXAT``); each user's sessions are
indexed (``user-sessions:<userId>``), so that ``delete_user``, ``delete_user_sessions`` and
``list_user_sessions`` find them. Deleting a session deletes its details too."""

from __future__ import annotations

import dataclasses
import functools
from datetime import datetime

from redis.asyncio.client import Pipeline
from redis.commands.core import AsyncScript

from authui.adapters.base import AdapterSession, AdapterUser, VerificationToken
from authui.adapters.json_records import dump_record, utc
from authui.adapters.read_batches import ReadBatches
from authui.adapters.redis.own_connection import ScriptOnOwnConnection
from authui.adapters.redis.store import epoch_ms, load, multi, now
from authui.adapters.redis.users import RedisUsers, normal_user

# KEYS: session keys; ARGV[1]: what the key of a user starts with (``<prefix>user:``). For
# each session, its JSON and its user's, by the session's userId (false for what is missing).
_SESSIONS_AND_USERS = """
local found = {}
for i, key in ipairs(KEYS) do
    local session = redis.call('GET', key)
    local user = false
    if session then
        local user_id = cjson.decode(session)['userId']
        if type(user_id) == 'string' then user = redis.call('GET', ARGV[1] .. user_id) end
    end
    found[2 * i - 1] = session
    found[2 * i] = user
end
return found
"""

# KEYS[1]: a user's index of sessions; ARGV[1]: what the key of a session starts with
# (``<prefix>session:``), ARGV[2] what the key of a session's details starts with; ARGV[3],
# if given: the token of the session to keep. Deletes every other session in the index, its
# details and its entry: how many sessions there were (those that expired are gone already).
_DELETE_USER_SESSIONS = """
local deleted = 0
for _, token in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    if token ~= ARGV[3] then
        deleted = deleted + redis.call('DEL', ARGV[1] .. token)
        redis.call('DEL', ARGV[2] .. token)
        redis.call('ZREM', KEYS[1], token)
    end
end
return deleted
"""


class RedisSessions(RedisUsers):
    """Auth.js's session and verification token methods."""

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
            return normal_user(user), dataclasses.replace(session, expires=utc(expires))

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
        """The session and its user, or ``None`` if either is missing (or expired): one
        round trip, a Lua script that reads the session and then, by its ``userId``, the
        user, both read anew on every call, on a connection kept for it
        (``authui.adapters.redis.own_connection``). Checks waiting at the same time share
        the script call (``authui.adapters.read_batches``)."""
        found = await self._session_batches.read(session_token)
        if found is None:
            return None
        session = load(AdapterSession, found[0])
        user = load(AdapterUser, found[1])
        return None if session is None or user is None else (session, user)

    @functools.cached_property
    def _session_script(self) -> ScriptOnOwnConnection:
        return ScriptOnOwnConnection(self._redis, _SESSIONS_AND_USERS)

    @functools.cached_property
    def _session_batches(self) -> ReadBatches[str, tuple[object, object]]:
        script = self._session_script
        users = [self.user_key("")]

        async def read_many(tokens: list[str]) -> dict[str, tuple[object, object]]:
            keys = [self.session_key(token) for token in tokens]
            found = await script(keys, users)
            return {
                token: (found[2 * n], found[2 * n + 1])
                for n, token in enumerate(tokens)
                if found[2 * n] is not None
            }

        return ReadBatches(read_many)

    async def close(self) -> None:
        """Close the session check's connection, then the client if the adapter owns it."""
        await self._session_script.aclose()
        await super().close()

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
        """Delete the session and its details and return it, or ``None`` if there was
        none."""
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.getdel(self.session_key(session_token))
            pipe.delete(self.session_details_key(session_token))
            found, _ = await pipe.execute()
        session = load(AdapterSession, found)
        if session is not None:
            await self._redis.zrem(self.user_sessions_key(session.user_id), session_token)
        return session

    async def delete_user_sessions(self, user_id: str, except_token: str | None = None) -> int:
        """Delete every session of the user but ``except_token``'s, with their details and
        their entries in the user's index of sessions, in one Lua script (one atomic step:
        a session created meanwhile comes before or after it); how many sessions it
        deleted. Sessions that had expired are gone already, so they are not counted."""
        index = self.user_sessions_key(user_id)
        args = [self.session_key(""), self.session_details_key("")]
        if except_token is not None:
            args.append(except_token)
        return int(await self._delete_user_sessions(keys=[index], args=args))

    @functools.cached_property
    def _delete_user_sessions(self) -> AsyncScript:
        return self._redis.register_script(_DELETE_USER_SESSIONS)

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
