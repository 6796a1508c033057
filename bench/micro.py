"""JWE micro-benchmark: authui's session token encode/decode against ``@auth/core/jwt``."""

from __future__ import annotations

import json
import os
import subprocess
import timeit

from authui import jwt
from bench.servers import AUTHJS

SECRET = "bench-secret-bench-secret-bench-secret-0123"
SALT = "authjs.session-token"
TOKEN = {"name": "Bench User", "email": "bench@example.com", "sub": "1"}


def python(calls: int) -> dict[str, float]:
    """Mean µs per call in authui (after a warm-up), through a resolved configuration's
    ``KeyRing`` as the session check uses it (its keys derived once): ``encode``; ``decode``
    of a token it has not seen (decrypted); ``decode`` of the same token again (kept
    decrypted)."""
    ring = jwt.KeyRing([SECRET], cache_size=jwt.DECRYPTED_CACHE_SIZE)
    token = ring.encode(TOKEN, SALT, jwt.DEFAULT_MAX_AGE)
    unseen = iter([ring.encode(TOKEN, SALT, jwt.DEFAULT_MAX_AGE) for _ in range(4 * calls)])

    def encode() -> None:
        ring.encode(TOKEN, SALT, jwt.DEFAULT_MAX_AGE)

    def decode() -> None:
        ring.decode(next(unseen), SALT)

    def decode_again() -> None:
        ring.decode(token, SALT)

    result = {}
    calls_of = (("encode_us", encode), ("decode_us", decode), ("decode_again_us", decode_again))
    for name, call in calls_of:
        timeit.timeit(call, number=calls // 2)
        result[name] = 1e6 * min(timeit.repeat(call, number=calls, repeat=3)) / calls
    return result


def node(calls: int) -> dict[str, float]:
    """The same in ``@auth/core/jwt`` (``bench/authjs/jwt.mjs``)."""
    env = {**os.environ, "BENCH_SECRET": SECRET, "BENCH_CALLS": str(calls)}
    output = subprocess.run(
        ["node", str(AUTHJS / "jwt.mjs")], check=True, capture_output=True, text=True, env=env
    ).stdout
    answer: dict[str, float] = json.loads(output)
    return answer
