"""Load generation (wrk) and round-trip timing, with medians of several runs."""

from __future__ import annotations

import asyncio
import contextlib
import re
import statistics
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from bench.servers import Server, ServerSpec, running

WRK_CONNECTIONS = 32
"""Concurrent connections of wrk (one wrk thread: the server gets the other core)."""


@dataclass(frozen=True)
class Measure:
    """Throughput and latency of one endpoint (medians over the runs)."""

    rps: float
    p50_ms: float
    p99_ms: float
    cpu_us: float
    """CPU time the server's processes spent per request, in µs (wrk's own excluded)."""
    overhead_us: float | None = None
    """With a bare server beside: the median over the runs of ``1/rps`` minus ``1/rps`` of
    the bare server's hello measured just before that run, in µs."""
    cpu_overhead_us: float | None = None
    """The same for the server CPU per request."""

    @property
    def us_per_request(self) -> float:
        return 1e6 / self.rps


_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def _latency(text: str, percentile: str) -> float:
    match = re.search(rf"^\s+{percentile}%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
    if match is None:
        raise RuntimeError(f"wrk printed no {percentile}% latency:\n{text}")
    return float(match.group(1)) * _UNITS[match.group(2)]


WARM_UP = 2
"""The warm-up run lasts this many measured runs. A server just started (Python and node
alike) answered up to 1.5 times slower for its first ten seconds under load on these
machines; with a one-second warm-up that slowness went to whichever endpoint came first."""


def wrk_once(
    server: Server, path: str, cookie: str | None, duration: float, script: Path | None = None
) -> Measure:
    """One wrk run against ``path``; fails when any response was not 2xx. ``script`` is a
    wrk Lua script making the requests (its own ``Cookie`` headers)."""
    seconds = max(1, round(duration))  # wrk takes whole seconds
    command = [
        "wrk",
        "-t1",
        f"-c{WRK_CONNECTIONS}",
        f"-d{seconds}s",
        "--timeout",
        "10s",
        "--latency",
    ]
    if script:
        command += ["-s", str(script)]
    elif cookie:
        command += ["-H", f"Cookie: {cookie}"]
    cpu_before = server.cpu_seconds()
    text = subprocess.run(
        [*command, server.url + path], check=True, capture_output=True, text=True
    ).stdout
    cpu = server.cpu_seconds() - cpu_before
    if "Non-2xx or 3xx responses" in text or "Socket errors" in text:
        raise RuntimeError(f"wrk saw failed requests at {path}:\n{text}")
    rps = re.search(r"^Requests/sec:\s+([\d.]+)", text, re.M)
    done = re.search(r"^\s*(\d+) requests in", text, re.M)
    if rps is None or done is None:
        raise RuntimeError(f"wrk printed no throughput:\n{text}")
    cpu_us = 1e6 * cpu / max(1, int(done.group(1)))
    return Measure(float(rps.group(1)), _latency(text, "50"), _latency(text, "99"), cpu_us)


def median_of(runs: list[Measure], hellos: list[Measure] | None = None) -> Measure:
    """The medians of ``runs``; with the bare ``hellos`` measured just before each run,
    the medians of the runs' differences from them too."""
    overhead = cpu_overhead = None
    if hellos:
        pairs = list(zip(runs, hellos, strict=True))
        overhead = statistics.median(m.us_per_request - h.us_per_request for m, h in pairs)
        cpu_overhead = statistics.median(m.cpu_us - h.cpu_us for m, h in pairs)
    return Measure(
        statistics.median(m.rps for m in runs),
        statistics.median(m.p50_ms for m in runs),
        statistics.median(m.p99_ms for m in runs),
        statistics.median(m.cpu_us for m in runs),
        overhead,
        cpu_overhead,
    )


def answer_of(url: str, cookie: str | None) -> str:
    """The body of one GET of ``url``."""
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    with urllib.request.urlopen(request, timeout=10) as answer:
        text: str = answer.read().decode()
        return text


@dataclass(frozen=True)
class Target:
    """An endpoint to load: ``path`` on a server started from ``spec``, checked to answer
    with ``expect``; the requests are ``script``'s when there is one, else ``GET path``
    with ``cookie``. Targets with equal specs share one server."""

    spec: ServerSpec
    path: str
    cookie: str | None
    expect: str
    script: Path | None = None


def _check_and_warm(server: Server, target: Target, duration: float) -> None:
    """Check that ``target`` answers with what it should (``answer_of``), then warm its
    server up under load."""
    body = answer_of(server.url + target.path, target.cookie)
    if target.expect not in body:
        raise RuntimeError(f"{target.path} answered {body[:200]!r}, without {target.expect!r}")
    wrk_once(server, target.path, target.cookie, WARM_UP * duration, target.script)


def wrk(
    spec: ServerSpec,
    path: str,
    cookie: str | None,
    duration: float,
    runs: int,
    expect: str,
    script: Path | None = None,
    bare: ServerSpec | None = None,
) -> Measure:
    """``wrk_rounds`` of one target: the median of ``runs`` wrk runs of ``path``, each on
    a server started for it, after a check that the endpoint answers with ``expect`` in
    its body (a signed-in session, say) and a warm-up run. With a ``script`` the requests
    are the script's, and ``cookie`` is only the check's."""
    (measure,) = wrk_rounds([Target(spec, path, cookie, expect, script)], duration, runs, bare)
    return measure


def wrk_rounds(
    targets: list[Target], duration: float, runs: int, bare: ServerSpec | None = None
) -> list[Measure]:
    """The medians of ``runs`` rounds. Each round starts the targets' servers (and the
    ``bare`` one: the same server without authui), checks and warms every target, runs
    wrk once against each of them in turn (the order turning by one from round to round)
    and stops the servers.

    - Targets meant to be compared with each other are measured within the same minutes:
      the machine's drift, which measuring them one after the other puts between them,
      meets each of them alike.
    - With a ``bare`` server, each target's run follows a run of its ``/hello``, and the
      overheads are the medians of the runs' differences from it.
    - Each round starts its servers anew: how fast a server is depends on its start too
      (the same app, started twice, served up to a fifth slower on hypercorn; run Y of
      ``docs/performance.md``), and the median over starts leaves out a slow start where
      runs of one start would carry it into the figure.
    """
    runs_of: list[list[Measure]] = [[] for _ in targets]
    hellos_of: list[list[Measure]] = [[] for _ in targets]
    for round_number in range(runs):
        with contextlib.ExitStack() as started:
            servers = _started(started, [t.spec for t in targets])
            hello = None
            if bare is not None:
                (hello,) = _started(started, [bare])
                wrk_once(hello, "/hello", None, WARM_UP * duration)
            for target, server in zip(targets, servers, strict=True):
                _check_and_warm(server, target, duration)
            for step in range(len(targets)):
                index = (round_number + step) % len(targets)
                t, server = targets[index], servers[index]
                if hello is not None:
                    hellos_of[index].append(wrk_once(hello, "/hello", None, duration))
                runs_of[index].append(wrk_once(server, t.path, t.cookie, duration, t.script))
    return [median_of(m, h) for m, h in zip(runs_of, hellos_of, strict=True)]


def _started(started: contextlib.ExitStack, specs: list[ServerSpec]) -> list[Server]:
    """A server for each of ``specs``, one per distinct spec, stopped when ``started``
    closes."""
    servers: list[tuple[ServerSpec, Server]] = []
    for spec in specs:
        if not any(known == spec for known, _ in servers):
            servers.append((spec, started.enter_context(running(spec))))
    return [next(server for known, server in servers if known == spec) for spec in specs]


@dataclass(frozen=True)
class SignIn:
    """How the browsers of the round-trip client sign in: they post ``login`` (the
    account's field), ``password`` and the CSRF token to ``path``; the session then has
    to show the user's ``name``. Browser ``i`` signs in as ``accounts[i % len(accounts)]``
    ((login, password) pairs)."""

    path: str
    login: str
    accounts: tuple[tuple[str, str], ...]
    name: str

    def form(self, browser: int) -> dict[str, str]:
        login, password = self.accounts[browser % len(self.accounts)]
        return {self.login: login, "password": password}


CREDENTIALS = SignIn("/auth/callback/credentials", "username", (("bench", "bench"),), "Bench User")
"""The bench apps' credentials sign-in (authui's and Auth.js's alike): one account for every
browser."""


async def _round_trips(
    url: str, duration: float, workers: int, sign_in: SignIn
) -> tuple[float, list[float]]:
    """Sign in again and again (csrf, ``sign_in``'s callback, session check) from
    ``workers`` concurrent browsers for ``duration`` seconds: (the seconds until the last
    browser's last round trip ended, the round trips' times). A round trip started before
    the deadline is finished and counted; with round trips of a second (a password
    sign-in), the time they took past the deadline counts too.

    Each browser is an aiohttp session with its own cookie jar and one kept connection.
    The client shares the machine's cores with the server, so it has to be a light one:
    with httpx, the client spent more CPU per round trip than authui's server did, and
    its own cost capped both figures."""
    began = time.monotonic()
    deadline = began + duration
    timings: list[float] = []

    async def browser(number: int) -> None:
        form = sign_in.form(number)
        jar = aiohttp.CookieJar(unsafe=True)  # the server is an IP address: 127.0.0.1
        connector = aiohttp.TCPConnector(limit=1)
        async with aiohttp.ClientSession(url, cookie_jar=jar, connector=connector) as client:
            while time.monotonic() < deadline:
                jar.clear()
                start = time.perf_counter()
                async with client.get("/auth/csrf") as answer:
                    csrf = (await answer.json())["csrfToken"]
                async with client.post(
                    sign_in.path, data={"csrfToken": csrf, **form}, allow_redirects=False
                ) as signed:
                    if signed.status != 302:
                        raise RuntimeError(f"sign-in answered {signed.status}")
                    where = signed.headers.get("Location", "")
                    if "error=" in where:
                        raise RuntimeError(f"sign-in refused: {where}")
                async with client.get("/auth/session") as answer:
                    session = await answer.json()
                if not session or session["user"]["name"] != sign_in.name:
                    raise RuntimeError(f"no session after signing in: {session!r}")
                timings.append(time.perf_counter() - start)

    await asyncio.gather(*(browser(number) for number in range(workers)))
    return time.monotonic() - began, timings


def round_trips(
    spec: ServerSpec,
    duration: float,
    runs: int,
    workers: int = 4,
    sign_in: SignIn = CREDENTIALS,
) -> Measure:
    """``round_trip_rounds`` of one server: sign-in round trips per second, their latency
    and the server's CPU time per round trip (medians of ``runs``, each on a server
    started for it and warmed up, as in ``wrk_rounds``)."""
    (measure,) = round_trip_rounds([(spec, sign_in)], duration, runs, workers)
    return measure


def round_trip_rounds(
    targets: list[tuple[ServerSpec, SignIn]], duration: float, runs: int, workers: int = 4
) -> list[Measure]:
    """The medians of ``runs`` rounds of round trips: each round measures every target
    once (the order turning by one from round to round), each on a server started for
    it, warmed up by round trips of its own, and stopped after; so that targets meant to
    be compared meet the machine's drift alike, as in ``wrk_rounds``."""
    runs_of: list[list[Measure]] = [[] for _ in targets]
    for round_number in range(runs):
        for step in range(len(targets)):
            index = (round_number + step) % len(targets)
            spec, sign_in = targets[index]
            runs_of[index].append(_round_trip_run(spec, duration, workers, sign_in))
    return [median_of(measures) for measures in runs_of]


def _round_trip_run(spec: ServerSpec, duration: float, workers: int, sign_in: SignIn) -> Measure:
    with running(spec) as server:
        asyncio.run(_round_trips(server.url, WARM_UP * duration, workers, sign_in))
        cpu_before = server.cpu_seconds()
        elapsed, timings = asyncio.run(_round_trips(server.url, duration, workers, sign_in))
        cpu = server.cpu_seconds() - cpu_before
    timings.sort()
    count = len(timings)
    return Measure(
        count / elapsed,
        1000 * timings[len(timings) // 2],
        1000 * timings[min(len(timings) - 1, int(len(timings) * 0.99))],
        1e6 * cpu / max(1, count),
    )
