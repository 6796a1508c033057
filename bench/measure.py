"""Load generation (wrk) and round-trip timing, with medians of several runs."""

from __future__ import annotations

import asyncio
import re
import statistics
import subprocess
import time
import urllib.request
from dataclasses import dataclass

import httpx

WRK_CONNECTIONS = 32
"""Concurrent connections of wrk (one wrk thread: the server gets the other core)."""


@dataclass(frozen=True)
class Measure:
    """Throughput and latency of one endpoint (medians over the runs)."""

    rps: float
    p50_ms: float
    p99_ms: float

    @property
    def us_per_request(self) -> float:
        return 1e6 / self.rps


_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def _latency(text: str, percentile: str) -> float:
    match = re.search(rf"^\s+{percentile}%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
    if match is None:
        raise RuntimeError(f"wrk printed no {percentile}% latency:\n{text}")
    return float(match.group(1)) * _UNITS[match.group(2)]


def wrk_once(url: str, cookie: str | None, duration: float) -> Measure:
    """One wrk run against ``url``; fails when any response was not 2xx."""
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
    if cookie:
        command += ["-H", f"Cookie: {cookie}"]
    text = subprocess.run([*command, url], check=True, capture_output=True, text=True).stdout
    if "Non-2xx or 3xx responses" in text or "Socket errors" in text:
        raise RuntimeError(f"wrk saw failed requests at {url}:\n{text}")
    rps = re.search(r"^Requests/sec:\s+([\d.]+)", text, re.M)
    if rps is None:
        raise RuntimeError(f"wrk printed no throughput:\n{text}")
    return Measure(float(rps.group(1)), _latency(text, "50"), _latency(text, "99"))


def median_of(runs: list[Measure]) -> Measure:
    return Measure(
        statistics.median(m.rps for m in runs),
        statistics.median(m.p50_ms for m in runs),
        statistics.median(m.p99_ms for m in runs),
    )


def answer_of(url: str, cookie: str | None) -> str:
    """The body of one GET of ``url``."""
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    with urllib.request.urlopen(request, timeout=10) as answer:
        text: str = answer.read().decode()
        return text


def wrk(url: str, cookie: str | None, duration: float, runs: int, expect: str) -> Measure:
    """The median of ``runs`` wrk runs, after a check that the endpoint answers with
    ``expect`` in its body (a signed-in session, say) and a short warm-up run."""
    body = answer_of(url, cookie)
    if expect not in body:
        raise RuntimeError(f"{url} answered {body[:200]!r}, without {expect!r}")
    wrk_once(url, cookie, min(1.0, duration))
    return median_of([wrk_once(url, cookie, duration) for _ in range(runs)])


async def _round_trips(url: str, duration: float, workers: int) -> tuple[int, list[float]]:
    """Sign in again and again (csrf, credentials callback, session check) from
    ``workers`` concurrent browsers for ``duration`` seconds."""
    deadline = time.monotonic() + duration
    timings: list[float] = []
    limits = httpx.Limits(max_connections=workers)

    async def browser() -> None:
        async with httpx.AsyncClient(base_url=url, limits=limits) as client:
            while time.monotonic() < deadline:
                client.cookies.clear()
                start = time.perf_counter()
                csrf = (await client.get("/auth/csrf")).json()["csrfToken"]
                form = {"csrfToken": csrf, "username": "bench", "password": "bench"}
                signed = await client.post("/auth/callback/credentials", data=form)
                if signed.status_code != 302:
                    raise RuntimeError(f"sign-in answered {signed.status_code}")
                session = (await client.get("/auth/session")).json()
                if not session or session["user"]["name"] != "Bench User":
                    raise RuntimeError(f"no session after signing in: {session!r}")
                timings.append(time.perf_counter() - start)

    await asyncio.gather(*(browser() for _ in range(workers)))
    return len(timings), timings


def round_trips(url: str, duration: float, runs: int, workers: int = 4) -> Measure:
    """Sign-in round trips per second and their latency (medians of ``runs``)."""
    measures = []
    asyncio.run(_round_trips(url, min(1.0, duration), workers))  # warm-up
    for _ in range(runs):
        count, timings = asyncio.run(_round_trips(url, duration, workers))
        timings.sort()
        measures.append(
            Measure(
                count / duration,
                1000 * timings[len(timings) // 2],
                1000 * timings[min(len(timings) - 1, int(len(timings) * 0.99))],
            )
        )
    return median_of(measures)
