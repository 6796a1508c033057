"""``RedisStore``: what every part of ``RedisAdapter`` stands on: the client and the key
prefix, optimistic transactions, and how replies and records are read."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import TypeVar, cast

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline
from redis.exceptions import WatchError

from authui.adapters.base import ClosedOnExit
from authui.adapters.json_records import load_record, utc

DEFAULT_PREFIX = "authui:"

T = TypeVar("T")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MILLISECOND = timedelta(milliseconds=1)


class RedisStore(ClosedOnExit):
    """The client and the key prefix; ``RedisAdapter`` documents the arguments."""

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

    async def _transaction(self, step: Callable[[Pipeline], Awaitable[T]], *watch: str) -> T:
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


def multi(pipe: Pipeline) -> None:
    """``MULTI``: what follows is queued (redis-py leaves ``multi`` unannotated)."""
    cast("Callable[[], None]", pipe.multi)()


def existing_keys(*keys: str | None) -> list[str]:
    """The keys that are there (a user without email has no email index key)."""
    return [key for key in keys if key is not None]


def escape(part: str) -> str:
    """``part`` with ``%`` and ``:`` percent-encoded, so that it cannot look like two."""
    return part.replace("%", "%25").replace(":", "%3A")


def now() -> datetime:
    return datetime.now(UTC)


def epoch_ms(value: datetime) -> int:
    """Milliseconds since the epoch, at least 1 (``PXAT`` refuses 0 and below; a time in
    the past makes Redis drop the key at once)."""
    return max(1, (utc(value) - _EPOCH) // _MILLISECOND)


def text(value: object) -> str | None:
    """A reply as ``str`` (clients without ``decode_responses`` return ``bytes``)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode()
    raise TypeError(f"unexpected Redis reply {value!r}")


def texts(values: object) -> list[str]:
    """A list or set reply as ``str`` values."""
    return [cast("str", text(v)) for v in cast("list[object] | set[object]", values)]


def load(cls: type[T], value: object) -> T | None:
    """A record stored as JSON (the reply may be ``bytes``)."""
    return load_record(cls, text(value))
