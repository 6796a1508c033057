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
    """Mean µs per ``encode`` and ``decode`` call in authui (after a warm-up)."""
    token = jwt.encode(token=TOKEN, secret=SECRET, salt=SALT)

    def encode() -> None:
        jwt.encode(token=TOKEN, secret=SECRET, salt=SALT)

    def decode() -> None:
        jwt.decode(token=token, secret=SECRET, salt=SALT)

    result = {}
    for name, call in (("encode_us", encode), ("decode_us", decode)):
        timeit.timeit(call, number=min(200, calls))
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
