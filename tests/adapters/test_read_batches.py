"""``ReadBatches``: reads waiting together share a round trip, each gets its own key's
value, none is served by a round trip that started before it asked, and a failure or a
cancellation strands nobody."""

from __future__ import annotations

import asyncio

import pytest

from authui.adapters.read_batches import GATHER_TURNS, MAX_BATCH, ReadBatches


class Store:
    """``read_many`` over a dict, each round trip held until the test lets it finish."""

    def __init__(self, values: dict[str, str]) -> None:
        self.values = values
        self.batches: list[list[str]] = []
        self.started = asyncio.Event()
        self.finish = asyncio.Event()
        self.fail_with: Exception | None = None

    async def read_many(self, keys: list[str]) -> dict[str, str]:
        self.batches.append(list(keys))
        snapshot = dict(self.values)  # what the store holds when the round trip starts
        self.started.set()
        await self.finish.wait()
        if self.fail_with is not None:
            raise self.fail_with
        return {key: snapshot[key] for key in keys if key in snapshot}


Task = asyncio.Task[str | None]


async def while_one_is_on_its_way(
    store: Store, batches: ReadBatches[str, str], first: str, *then: str
) -> tuple[Task, list[Task]]:
    """Read ``first``; once its round trip has started, read the keys of ``then``."""
    leader = asyncio.create_task(batches.read(first))
    await store.started.wait()
    waiting = [asyncio.create_task(batches.read(key)) for key in then]
    await asyncio.sleep(0)  # every task runs until it waits
    return leader, waiting


async def test_reads_waiting_together_share_the_next_round_trip() -> None:
    store = Store({f"k{n}": f"v{n}" for n in range(10)})
    batches = ReadBatches(store.read_many, limit=1)
    keys = [f"k{n}" for n in range(1, 10)]
    first, rest = await while_one_is_on_its_way(store, batches, "k0", *keys, "nothing")
    store.finish.set()
    assert await first == "v0"
    assert [await task for task in rest] == [*(f"v{n}" for n in range(1, 10)), None]
    assert store.batches == [["k0"], [*(f"k{n}" for n in range(1, 10)), "nothing"]]


async def test_a_read_is_never_served_by_a_round_trip_that_started_before_it() -> None:
    """The value changes while a round trip is on its way; a read asked for after it
    started waits for the next one and sees the change."""
    store = Store({"session": "valid"})
    batches = ReadBatches(store.read_many, limit=1)
    early = asyncio.create_task(batches.read("session"))
    await store.started.wait()
    del store.values["session"]  # revoked while the first round trip is on its way
    late = asyncio.create_task(batches.read("session"))
    await asyncio.sleep(0)
    store.finish.set()
    assert await early == "valid"
    assert await late is None
    assert store.batches == [["session"], ["session"]]


async def test_a_batch_holds_at_most_max_batch_keys() -> None:
    store = Store({f"k{n}": "v" for n in range(200)})
    batches = ReadBatches(store.read_many, limit=1)
    keys = [f"k{n}" for n in range(1, 200)]
    first, rest = await while_one_is_on_its_way(store, batches, "k0", *keys)
    store.finish.set()
    await asyncio.gather(first, *rest)
    assert [len(batch) for batch in store.batches] == [1, MAX_BATCH, MAX_BATCH, MAX_BATCH, 7]


async def test_a_failed_round_trip_fails_its_readers_and_the_next_one_goes_on() -> None:
    store = Store({"a": "1", "b": "2"})
    batches = ReadBatches(store.read_many, limit=1)
    store.fail_with = ConnectionError("the store went away")
    store.finish.set()
    with pytest.raises(ConnectionError):
        await batches.read("a")
    store.fail_with = None
    assert await batches.read("b") == "2"


async def test_readers_of_a_failed_batch_get_its_error() -> None:
    store = Store({"a": "1", "b": "2"})
    batches = ReadBatches(store.read_many, limit=1)
    first, (waiting,) = await while_one_is_on_its_way(store, batches, "a", "b")
    store.fail_with = ConnectionError("the store went away")
    store.finish.set()
    with pytest.raises(ConnectionError):
        await first
    with pytest.raises(ConnectionError):  # its own round trip failed too
        await waiting


async def test_a_cancelled_leader_hands_its_batch_on() -> None:
    store = Store({"a": "1", "b": "2"})
    batches = ReadBatches(store.read_many, limit=1)
    leader, (waiting,) = await while_one_is_on_its_way(store, batches, "a", "b")
    leader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await leader
    store.finish.set()
    assert await asyncio.wait_for(waiting, 5) == "2"


async def test_a_cancelled_waiter_leaves_no_gap() -> None:
    store = Store({"a": "1", "b": "2", "c": "3"})
    batches = ReadBatches(store.read_many, limit=1)
    leader, (gone, kept) = await while_one_is_on_its_way(store, batches, "a", "b", "c")
    gone.cancel()
    store.finish.set()
    assert await leader == "1"
    assert await asyncio.wait_for(kept, 5) == "3"
    assert gone.cancelled()
    assert store.batches[-1] == ["c"]


async def test_two_round_trips_at_once_with_a_limit_of_two() -> None:
    store = Store({"a": "1", "b": "2", "c": "3"})
    batches = ReadBatches(store.read_many, limit=2)
    tasks = [asyncio.create_task(batches.read(key)) for key in "abc"]
    await asyncio.sleep(0)  # every task runs until it waits
    assert store.batches == [["a"], ["b"]]
    store.finish.set()
    assert [await task for task in tasks] == ["1", "2", "3"]
    assert store.batches == [["a"], ["b"], ["c"]]


async def test_gathering_reads_the_keys_of_one_turn_together() -> None:
    """With ``gather`` (a read that does not wait for a network, such as SQLite's), the
    lead lets the event loop turn: the reads asked meanwhile join its batch."""
    store = Store({"a": "1", "b": "2", "c": "3"})
    store.finish.set()
    batches = ReadBatches(store.read_many, limit=1, gather=1)
    found = await asyncio.gather(*(batches.read(key) for key in "abca"))
    assert found == ["1", "2", "3", "1"]
    assert store.batches == [["a", "b", "c"]]  # one query, each key once


async def reads_started_turns_apart(batches: ReadBatches[str, str], keys: str) -> list[str | None]:
    """Read each key in a task of its own, started one turn of the event loop after the
    previous one."""
    tasks = []
    for key in keys:
        tasks.append(asyncio.create_task(batches.read(key)))
        await asyncio.sleep(0)
    return list(await asyncio.gather(*tasks))


@pytest.mark.parametrize(
    ("turns", "expected"),
    [(1, [["a"], ["b"], ["c"]]), (2, [["a", "b"], ["c"]]), (3, [["a", "b", "c"]])],
)
async def test_gathering_waits_the_turns_it_is_given(turns: int, expected: list[list[str]]) -> None:
    """Each more turn the lead waits lets the reads asked one turn later join it."""
    store = Store({"a": "1", "b": "2", "c": "3"})
    store.finish.set()
    batches = ReadBatches(store.read_many, limit=1, gather=turns)
    assert await reads_started_turns_apart(batches, "abc") == ["1", "2", "3"]
    assert store.batches == expected


async def test_a_lead_cancelled_while_gathering_hands_on() -> None:
    store = Store({"a": "1", "b": "2"})
    store.finish.set()
    batches = ReadBatches(store.read_many, limit=1, gather=GATHER_TURNS)
    leader = asyncio.create_task(batches.read("a"))
    await asyncio.sleep(0)  # the lead is in its turn of gathering
    waiting = asyncio.create_task(batches.read("b"))
    leader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await leader
    assert await asyncio.wait_for(waiting, 5) == "2"
