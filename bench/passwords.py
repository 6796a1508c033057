"""Password accounts: the cost of a password hash in authui (argon2id) beside Better Auth's
default (scrypt, ``bench/authjs/hash.mjs``), and the bench users of the password sign-in
round trip (``bench.harness.password_rows``), in PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import math
import os
import subprocess
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from authui import Argon2
from authui.passwords.hashing import check_password, hash_password
from bench import sessions
from bench.accounts import EMAILS, LOGINS, NAME, PASSWORD
from bench.measure import SignIn
from bench.servers import AUTHJS

SIGN_IN = SignIn(
    "/auth/callback/password", "email", tuple((email, PASSWORD) for email in EMAILS), NAME
)
"""The password sign-in, each browser with a user of its own (``bench.accounts``)."""
CREDENTIALS_APART = SignIn(
    "/auth/callback/credentials", "username", tuple((login, "bench") for login in LOGINS), NAME
)
"""The credentials sign-in on the password server, each browser with an account of its
own."""

DEFAULT = Argon2()
"""authui's default parameters: 64 MiB, 3 passes, 4 lanes (RFC 9106's second option)."""
LIGHT = Argon2(memory_cost=19 * 1024, time_cost=2, parallelism=1)
"""OWASP's minimum for argon2id (19 MiB, 2 passes, 1 lane): the reference row, to show what
the parameters cost."""
AUTHUI_DEFAULT = "authui argon2id, Argon2() (64 MiB, t=3, p=4)"
AUTHUI_LIGHT = "authui argon2id, OWASP minimum (19 MiB, t=2, p=1)"
PEER = "Better Auth's scrypt (N=16384, r=16, p=1), node:crypto"


KINDS = ("hash", "verify")
HASH_ROUNDS = 3
"""The calls of each figure are made in this many rounds; each round times every side in
turn (the order turning by one), so that the machine's drift meets them alike."""


@dataclass
class Samples:
    """Wall times of calls made one after the other, and their CPU time in all."""

    walls_ms: list[float] = field(default_factory=list)
    cpu_ms: float = 0.0

    def add(self, walls_ms: list[float], cpu_ms: float) -> None:
        self.walls_ms += walls_ms
        self.cpu_ms += cpu_ms

    def timing(self) -> dict[str, float]:
        """Median and p90 wall time, CPU time per call (the process's, every thread:
        argon2's lanes run in threads of their own, so it can pass the wall time)."""
        ordered = sorted(self.walls_ms)
        calls = len(ordered)
        return {
            "median_ms": nearest_rank(ordered, 0.5),
            "p90_ms": nearest_rank(ordered, 0.9),
            "cpu_ms": self.cpu_ms / calls,
            "calls": calls,
        }


def nearest_rank(ordered: list[float], share: float) -> float:
    """The ``share`` percentile of the sorted ``ordered``, by nearest rank."""
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


async def _timed(call: Callable[[], Awaitable[object]], calls: int) -> tuple[list[float], float]:
    """(wall times in ms, CPU ms in all) of ``calls`` calls, after one to warm up."""
    await call()
    walls = []
    cpu = time.process_time()
    for _ in range(calls):
        start = time.perf_counter()
        await call()
        walls.append(1000 * (time.perf_counter() - start))
    return walls, 1000 * (time.process_time() - cpu)


def python(params: Argon2, calls: int) -> dict[str, tuple[list[float], float]]:
    """authui's ``hash_password`` and ``check_password`` of the right password with
    ``params``, as a sign-up and a sign-in call them (each in a worker thread)."""

    async def both() -> dict[str, tuple[list[float], float]]:
        stored = await hash_password(params, PASSWORD)

        async def verify() -> None:
            checked = await check_password(params, stored, PASSWORD)
            if not checked.matches or checked.new_hash is not None:
                raise RuntimeError(f"the bench password did not verify: {checked!r}")

        return {
            "hash": await _timed(lambda: hash_password(params, PASSWORD), calls),
            "verify": await _timed(verify, calls),
        }

    return asyncio.run(both())


def node(calls: int) -> dict[str, tuple[list[float], float]]:
    """Better Auth's default hash and verify (``bench/authjs/hash.mjs``)."""
    env = {**os.environ, "BENCH_CALLS": str(calls)}
    output = subprocess.run(
        ["node", str(AUTHJS / "hash.mjs")], check=True, capture_output=True, text=True, env=env
    ).stdout
    answer: dict[str, dict[str, Any]] = json.loads(output)
    return {kind: (answer[kind]["walls_ms"], answer[kind]["cpu_ms"]) for kind in KINDS}


def hashing(calls: int, rounds: int = HASH_ROUNDS) -> dict[str, Any]:
    """Every hashing figure (``calls`` calls each, in ``rounds`` rounds), with the ratios
    authui ÷ Better Auth of the median times and of the CPU times (JSON-ready)."""
    sides: dict[str, Callable[[int], dict[str, tuple[list[float], float]]]] = {
        AUTHUI_DEFAULT: lambda n: python(DEFAULT, n),
        AUTHUI_LIGHT: lambda n: python(LIGHT, n),
        PEER: node,
    }
    samples = {name: {kind: Samples() for kind in KINDS} for name in sides}
    names = list(sides)
    for round_number in range(rounds):
        share = calls // rounds + (1 if round_number < calls % rounds else 0)
        for step in range(len(names)):
            name = names[(round_number + step) % len(names)]
            for kind, (walls, cpu) in sides[name](share).items():
                samples[name][kind].add(walls, cpu)
    figures = {name: {k: s.timing() for k, s in kinds.items()} for name, kinds in samples.items()}
    ours, theirs = figures[AUTHUI_DEFAULT], figures[PEER]

    def ratios(figure: str) -> dict[str, float]:
        return {kind: ours[kind][figure] / theirs[kind][figure] for kind in KINDS}

    return {
        "figures": figures,
        "default_over_peer": ratios("median_ms"),
        "default_over_peer_cpu": ratios("cpu_ms"),
    }


PG_SCHEMA = f"{sessions.PG_SCHEMA}_passwords_{os.getpid()}"
"""The PostgreSQL schema of the password server (database ``test``, beside the database
table's), made by ``seed`` and dropped at the end of the section. It is the run's own
(the harness's process id): the test suite's smoke run, started by another session while
a run was measuring, dropped a shared schema under the running servers."""


async def seed(schema: str = PG_SCHEMA) -> None:
    """A fresh ``schema`` holding the bench users (``EMAILS``, addresses confirmed), each
    with the bench password hashed with the default parameters."""
    from authui.adapters.base import AdapterUser
    from authui.adapters.factors import PasswordRecord

    await sessions.reset_pg(schema)
    adapter = sessions.pg_adapter(schema)
    now = datetime.now(UTC)
    try:
        for number, email in enumerate(EMAILS, 1):
            user = AdapterUser(id=f"bench-{number}", email=email, email_verified=now, name=NAME)
            user = await adapter.create_user(user)
            hashed = await hash_password(DEFAULT, PASSWORD)
            await adapter.set_password(PasswordRecord(user_id=user.id, hash=hashed, updated=now))
    finally:
        await adapter.close()
