"""The benchmark harness still runs (``bench/run``'s ``--smoke`` mode, end to end: the
servers, wrk, the Auth.js peer, the tables). Benchmarks are not timed here: nothing below
asserts a speed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from bench.harness import NEW_TOKENS
from tests.peers.availability import peer_missing

ROOT = Path(__file__).resolve().parent.parent
AUTHJS = ROOT / "bench" / "authjs" / "node_modules" / "@auth" / "express"


def test_the_harness_runs_every_section_in_smoke_mode(tmp_path: Path) -> None:
    if shutil.which("wrk") is None:
        peer_missing("the benchmarks load with wrk: apt-get install wrk")
    if shutil.which("node") is None or not AUTHJS.is_dir():
        peer_missing("the benchmarks' Auth.js peer: run scripts/test (npm ci in bench/authjs)")
    out = tmp_path / "results.json"
    run = subprocess.run(
        [sys.executable, "-m", "bench.harness", "--smoke", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    results = json.loads(out.read_text())
    tables = {row["table"] for row in results["rows"]}
    assert tables == {
        "JWT sessions",
        "database sessions",
        "sign-in round trip",
        "scale",
        "workers",
    }
    assert set(results["baselines"]) == {
        "authui · Quart fast path (hypercorn)",
        "authui · Quart fast path (uvicorn)",
        "authui · Quart blueprint (uvicorn)",
        "authui · Starlette (uvicorn)",
        "Auth.js · Express (node)",
    }
    assert all(row["measure"]["rps"] > 0 for row in results["rows"])
    assert all(row["measure"]["cpu_us"] > 0 for row in results["rows"])  # server CPU read
    rotating = {r["stack"] for r in results["rows"] if r["endpoint"] == NEW_TOKENS}
    assert rotating == set(results["baselines"])
    compared = {(endpoint, stack) for endpoint, stack, *_ in results["ratios"]}
    assert ("session check (JWT)", "authui · Starlette (uvicorn)") in compared
    assert ("session check (JWT)", "authui · Quart fast path (uvicorn)") in compared
    assert ("session check (JWT)", "authui · Quart blueprint (uvicorn)") in compared
    assert ("session check (PostgreSQL)", "authui · Quart fast path (hypercorn)") in compared
    assert set(results["micro"]) == {"authui (Python, joserfc)", "@auth/core/jwt (node)"}
    assert results["micro"]["authui (Python, joserfc)"]["decode_again_us"] > 0
    assert "| session check (JWT) |" in run.stdout  # the printed table
