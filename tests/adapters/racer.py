"""One process of a race between OS processes over one store: ``python -m
tests.adapters.racer '<json>'``, started by ``tests/adapters/test_process_races.py``.

The JSON names the store (``url``; ``schema`` and ``prefix`` for the SQL adapter's naming
or the Redis key prefix), the ``task``, and a barrier: every racer builds its adapter,
creates the file ``<barrier>/<me>``, and starts the task once ``parties`` files are
there, so that all of them run it at the same moment. The racer prints its answer as
JSON and exits with 0, or lets the exception end it (a traceback and exit status 1).

Tasks:

- ``first-use``: an adapter whose schema is brought up to date before its first call (as
  ``AuthConfig(adapter="sqlite+aiosqlite:///…")`` makes one), then ``get_user``;
- ``create-all``: ``create_all()``, then ``get_user``;
- ``use-challenges``: ``use_challenge`` of every key in ``keys`` at once; the answer is
  the keys this process got;
- ``claim-leases``: ``claim_lease`` of every key in ``keys``, ``claims`` times each, all at
  once; the answer is ``[key, holder]`` for each lease this process got;
- ``bump-versions``: ``bump_session_version`` of ``user``, ``count`` times at once; the
  answer is the versions this process got;
- ``use-totp-steps``: ``use_totp_step`` of every user in ``users`` with ``step``,
  ``calls`` times each, all at once; the answer is the users whose step this process got;
- ``use-recovery-codes``: ``use_recovery_code`` of ``user`` with every code in ``codes``,
  ``calls`` times each, all at once; the answer is the codes this process got.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from authui.access_tokens import Refresher
from authui.adapters.base import AdapterCalls
from authui.adapters.from_url import ReadyOnFirstUse
from authui.adapters.redis import RedisAdapter
from authui.adapters.sqlalchemy import SQLAlchemyAdapter, SQLNaming
from authui.logger import StandardLogger
from authui.oauth.discovery import DiscoveryCache
from authui.providers.oauth import OIDC

_BARRIER_TIMEOUT = 120.0  # seconds: every racer starts within this time on a busy machine


def adapter_for(spec: dict[str, Any]) -> Any:
    """The adapter the spec names (a new one, with its own connections)."""
    if spec["url"].startswith("redis://"):
        return RedisAdapter(spec["url"], prefix=spec["prefix"])
    return SQLAlchemyAdapter(spec["url"], naming=SQLNaming(schema=spec.get("schema")))


def wait_for_everyone(barrier: Path, me: int, parties: int) -> None:
    (barrier / str(me)).touch()
    deadline = time.monotonic() + _BARRIER_TIMEOUT
    while (came := len(list(barrier.iterdir()))) < parties:
        if time.monotonic() > deadline:
            raise TimeoutError(f"only {came} of {parties} racers came")
        time.sleep(0.002)


async def run(adapter: Any, spec: dict[str, Any]) -> Any:
    task = spec["task"]
    store = ReadyOnFirstUse(adapter, create_tables=True) if task == "first-use" else adapter
    try:
        if task == "refresh":
            return await refresh(store, spec)
        if task == "use-challenges":
            found = await asyncio.gather(*(store.use_challenge(key) for key in spec["keys"]))
            return [challenge.key for challenge in found if challenge is not None]
        if task == "claim-leases":
            keys = [key for key in spec["keys"] for _ in range(spec["claims"])]
            holders = await asyncio.gather(*(store.claim_lease(key, 60) for key in keys))
            return [[key, holder] for key, holder in zip(keys, holders, strict=True) if holder]
        if task == "bump-versions":
            bumps = (store.bump_session_version(spec["user"]) for _ in range(spec["count"]))
            return list(await asyncio.gather(*bumps))
        if task == "use-totp-steps":
            users = [user for user in spec["users"] for _ in range(spec["calls"])]
            used = await asyncio.gather(*(store.use_totp_step(u, spec["step"]) for u in users))
            return [user for user, won in zip(users, used, strict=True) if won]
        if task == "use-recovery-codes":
            codes = [code for code in spec["codes"] for _ in range(spec["calls"])]
            used = await asyncio.gather(*(store.use_recovery_code(spec["user"], c) for c in codes))
            return [code for code, won in zip(codes, used, strict=True) if won]
        if task == "create-all":
            await store.create_all()
        return await store.get_user("nobody")
    finally:
        await adapter.close()


async def refresh(adapter: Any, spec: dict[str, Any]) -> list[str | None]:
    provider = OIDC(
        id="op",
        issuer=spec["issuer"],
        client_id=spec["client_id"],
        client_secret=spec["client_secret"],
    )
    refresher = Refresher(AdapterCalls(adapter, StandardLogger()), DiscoveryCache())
    account = await adapter.get_account(spec["account"], "op")
    found = await asyncio.gather(
        *(refresher.fresh(provider, account) for _ in range(spec["count"]))
    )
    return [a.access_token for a in found]


def main(spec: dict[str, Any]) -> Any:
    adapter = adapter_for(spec)
    wait_for_everyone(Path(spec["barrier"]), spec["me"], spec["parties"])
    return asyncio.run(run(adapter, spec))


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))))
