"""``RedisAuthenticators``: passkeys, each user's listed oldest first."""

from __future__ import annotations

import dataclasses

from redis.asyncio.client import Pipeline

from authui.adapters.base import AdapterAuthenticator
from authui.adapters.json_records import dump_record
from authui.adapters.redis.keys import RedisKeys
from authui.adapters.redis.store import load, multi, texts


class RedisAuthenticators(RedisKeys):
    """Auth.js's authenticator methods."""

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
