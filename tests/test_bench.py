"""The benchmark harness still runs (``bench/run``'s ``--smoke`` mode, end to end: the
servers, wrk, the Auth.js peer, the tables). Benchmarks are not timed here: nothing below
asserts a speed."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench import measure
from bench.accounts import EMAILS
from bench.harness import NEW_TOKENS, PASSWORD_STACKS
from bench.measure import Measure
from bench.passwords import AUTHUI_DEFAULT, AUTHUI_LIGHT, PEER, SIGN_IN
from bench.servers import Server, ServerSpec
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
        "password sign-in",
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
    passwords = results["passwords"]
    assert set(passwords["hashing"]["figures"]) == {AUTHUI_DEFAULT, AUTHUI_LIGHT, PEER}
    for kinds in passwords["hashing"]["figures"].values():
        assert all(kinds[kind]["median_ms"] > 0 for kind in ("hash", "verify"))
    assert set(passwords["hashing"]["default_over_peer"]) == {"hash", "verify"}
    assert {stack for stack, *_ in passwords["ratios"]} == set(PASSWORD_STACKS)
    assert "| password hash |" in run.stdout


def test_round_trip_rounds_start_a_server_for_each_run_and_turn_the_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``round_trip_rounds``' order of events, with the servers and the client replaced
    by a log; each browser of a sign-in posts its own account's form."""
    events: list[str] = []
    pids = iter(range(1, 100))

    @contextlib.contextmanager
    def running(spec: ServerSpec) -> Iterator[Server]:
        server = Server(f"http://{spec.target}", next(pids))
        events.append(f"start {spec.target} {server.pid}")
        yield server
        events.append(f"stop {spec.target} {server.pid}")

    async def round_trips(
        url: str, duration: float, workers: int, sign_in: measure.SignIn
    ) -> tuple[float, list[float]]:
        events.append(f"sign in {url[7:]} {duration:g}s {sign_in.path}")
        return 2.0, [0.1] * 10

    monkeypatch.setattr(measure, "running", running)
    monkeypatch.setattr(measure, "_round_trips", round_trips)
    monkeypatch.setattr(Server, "cpu_seconds", lambda self: 0.0)
    a, b = ServerSpec("uvicorn", "a"), ServerSpec("uvicorn", "b")

    found = measure.round_trip_rounds([(a, SIGN_IN), (b, measure.CREDENTIALS)], 1.0, 2)

    assert events == [
        "start a 1",
        "sign in a 2s /auth/callback/password",  # the warm-up
        "sign in a 1s /auth/callback/password",
        "stop a 1",
        "start b 2",
        "sign in b 2s /auth/callback/credentials",
        "sign in b 1s /auth/callback/credentials",
        "stop b 2",
        "start b 3",  # the next round: the order turned by one
        "sign in b 2s /auth/callback/credentials",
        "sign in b 1s /auth/callback/credentials",
        "stop b 3",
        "start a 4",
        "sign in a 2s /auth/callback/password",
        "sign in a 1s /auth/callback/password",
        "stop a 4",
    ]
    assert [m.rps for m in found] == [5.0, 5.0]  # 10 round trips in 2 s
    forms = [SIGN_IN.form(browser)["email"] for browser in range(5)]
    assert forms == [*EMAILS, EMAILS[0]]
    assert measure.CREDENTIALS.form(3) == {"username": "bench", "password": "bench"}


def test_each_round_starts_its_servers_anew_and_pairs_every_run_with_a_bare_hello(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``wrk_rounds``'s order of events, with the servers and wrk replaced by a log (the
    smoke run above drives the real ones, one round only)."""
    events: list[str] = []
    pids = iter(range(1, 100))

    @contextlib.contextmanager
    def running(spec: ServerSpec) -> Iterator[Server]:
        server = Server(f"http://{spec.target}", next(pids))
        events.append(f"start {spec.target} {server.pid}")
        yield server
        events.append(f"stop {spec.target} {server.pid}")

    def wrk_once(server: Server, path: str, *args: object) -> Measure:
        events.append(f"wrk {server.url[7:]} {server.pid} {path}")
        return Measure(1000.0, 1.0, 2.0, 500.0 if path == "/hello" else 600.0)

    monkeypatch.setattr(measure, "running", running)
    monkeypatch.setattr(measure, "wrk_once", wrk_once)
    monkeypatch.setattr(measure, "answer_of", lambda url, cookie: "signed in")
    auth, bare = ServerSpec("uvicorn", "auth"), ServerSpec("uvicorn", "bare")
    targets = [measure.Target(auth, f"/{name}", None, "signed in") for name in "ab"]

    found = measure.wrk_rounds(targets, 1.0, 2, bare)

    assert events == [
        "start auth 1",  # one server for the two targets of one spec
        "start bare 2",
        "wrk bare 2 /hello",  # warm-ups
        "wrk auth 1 /a",
        "wrk auth 1 /b",
        "wrk bare 2 /hello",
        "wrk auth 1 /a",
        "wrk bare 2 /hello",
        "wrk auth 1 /b",
        "stop bare 2",
        "stop auth 1",
        "start auth 3",  # the next round: new servers, the order turned by one
        "start bare 4",
        "wrk bare 4 /hello",
        "wrk auth 3 /a",
        "wrk auth 3 /b",
        "wrk bare 4 /hello",
        "wrk auth 3 /b",
        "wrk bare 4 /hello",
        "wrk auth 3 /a",
        "stop bare 4",
        "stop auth 3",
    ]
    assert [m.cpu_overhead_us for m in found] == [100.0, 100.0]
