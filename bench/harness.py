"""authui beside Auth.js, in one run on one machine: ``python -m bench.harness``.

See bench/README.md. Prints the tables and writes the figures as JSON (``--out``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench import micro, passwords, sessions
from bench.measure import (
    CREDENTIALS,
    Measure,
    SignIn,
    Target,
    round_trip_rounds,
    round_trips,
    wrk,
    wrk_rounds,
)
from bench.servers import ServerSpec, running

SECRET = micro.SECRET
QUART = "authui · Quart fast path (hypercorn)"
QUART_UVICORN = "authui · Quart fast path (uvicorn)"
"""Quart on uvicorn too, for the JWT table: hypercorn's own cost per request (its HTTP
parser is pure Python) is several times authui's, and its noise hides authui's figure."""
QUART_BLUEPRINT = "authui · Quart blueprint (uvicorn)"
"""Quart with its default path: authui's routes on the blueprint, through Quart's routing
and request context."""
STARLETTE = "authui · Starlette (uvicorn)"
AUTHJS = "Auth.js · Express (node)"
BASELINES = {
    QUART: ServerSpec("hypercorn", "bench.apps:quart_bare"),
    QUART_UVICORN: ServerSpec("uvicorn", "bench.apps:quart_bare"),
    QUART_BLUEPRINT: ServerSpec("uvicorn", "bench.apps:quart_bare"),
    STARLETTE: ServerSpec("uvicorn", "bench.apps:starlette_bare"),
    AUTHJS: ServerSpec("node", "server.mjs", {"BENCH_MODE": "bare"}),
}
SIGNED_IN = "Bench User"
"""What a signed-in session's answer shows."""
ENDPOINTS = {
    "session check (JWT)": ("/auth/session", True, SIGNED_IN),
    "protected view (JWT)": ("/protected", True, SIGNED_IN),
    "GET /auth/csrf": ("/auth/csrf", False, "csrfToken"),
    "hello beside authui": ("/hello", True, "hello"),
}
NEW_TOKENS = "session check (JWT), a new token each request"
"""The session check with a token the server has not seen: each request carries the next
of ``sessions.ROTATING_TOKENS`` tokens, more than authui keeps decrypted."""


@dataclass
class Row:
    """One measured endpoint of one stack."""

    table: str
    stack: str
    endpoint: str
    measure: Measure
    overhead_us: float | None = None
    """1/throughput minus 1/throughput of the stack's bare hello (measured beside it,
    run by run, in the JWT and database tables), in µs."""
    cpu_overhead_us: float | None = None
    """Server CPU time per request minus that of the stack's bare hello, in µs."""


@dataclass
class Options:
    duration: float
    runs: int
    smoke: bool


def auth_spec(
    stack: str,
    strategy: str = "jwt",
    database: str | None = None,
    schema: str = sessions.PG_SCHEMA,
) -> ServerSpec:
    env = {"BENCH_SECRET": SECRET, "BENCH_STRATEGY": strategy}
    if database:
        env["BENCH_DATABASE"] = database
    if database and database.startswith("postgresql"):
        env["BENCH_PG_SCHEMA"] = schema
    if stack == QUART:
        return ServerSpec("hypercorn", "bench.apps:quart_fast", env)
    if stack == QUART_UVICORN:
        return ServerSpec("uvicorn", "bench.apps:quart_fast", env)
    if stack == QUART_BLUEPRINT:
        return ServerSpec("uvicorn", "bench.apps:quart_auth", env)
    if stack == STARLETTE:
        return ServerSpec("uvicorn", "bench.apps:starlette_auth", env)
    env["BENCH_MODE"] = "auth"
    if strategy == "database":
        env["BENCH_PG"] = json.dumps(
            {
                "host": "127.0.0.1",
                "port": 5432,
                "user": "postgres",
                "database": "test",
                "searchPath": schema,
            }
        )
    return ServerSpec("node", "server.mjs", env)


def baselines(options: Options) -> dict[str, Measure]:
    return {
        stack: wrk(spec, "/hello", None, *_times(options), "hello")
        for stack, spec in BASELINES.items()
    }


def signed_in_cookie(spec: ServerSpec) -> str:
    """Sign in once on a server started from ``spec``: its JWT session cookie stays valid
    on every later start (the same secret)."""
    with running(spec) as server:
        return sessions.sign_in(server.url)


def jwt_rows(options: Options, base: dict[str, Measure]) -> Iterator[Row]:
    """Each stack's endpoints on one server, measured in interleaved rounds (a server
    start each), each run paired with one of the bare hello."""
    with tempfile.TemporaryDirectory() as folder:
        script = sessions.rotating_tokens_script(Path(folder), SECRET)
        for stack in (QUART, QUART_UVICORN, QUART_BLUEPRINT, STARLETTE, AUTHJS):
            spec = auth_spec(stack)
            cookie = signed_in_cookie(spec)
            targets = [
                Target(spec, path, cookie if signed_in else None, expect)
                for path, signed_in, expect in ENDPOINTS.values()
            ]
            targets.append(Target(spec, "/auth/session", cookie, SIGNED_IN, script))
            measures = wrk_rounds(targets, *_times(options), BASELINES[stack])
            for endpoint, measure in zip([*ENDPOINTS, NEW_TOKENS], measures, strict=True):
                yield _row("JWT sessions", stack, endpoint, measure, base)


def _row(table: str, stack: str, endpoint: str, measure: Measure, base: dict[str, Measure]) -> Row:
    """A row with its overheads: over the hellos measured beside it when there were, else
    over the stack's bare hello of the baseline table."""
    if measure.overhead_us is not None and measure.cpu_overhead_us is not None:
        return Row(table, stack, endpoint, measure, measure.overhead_us, measure.cpu_overhead_us)
    hello = base[stack]
    cpu = measure.cpu_us - hello.cpu_us
    return Row(table, stack, endpoint, measure, overhead(measure, hello), cpu)


DATABASES = {
    "SQLite": None,
    "PostgreSQL": sessions.PG_URL,
    "MariaDB": sessions.MARIADB_URL,
    "Redis": sessions.REDIS_URL,
}
"""The database sessions' stores; Auth.js is measured on PostgreSQL, whose figure every
authui store is compared with."""
AUTHJS_DATABASE = "session check (PostgreSQL)"


def database_rows(options: Options, base: dict[str, Measure]) -> Iterator[Row]:
    """Every store's session check on each stack: the stack's four servers (one per
    store) measured in interleaved rounds, each run paired with one of the bare hello, so
    that the stores are compared with each other within the same minutes; then Auth.js on
    PostgreSQL, each run paired with its own bare hello."""
    stored = _stored(options)
    with tempfile.TemporaryDirectory() as folder:
        for stack in (QUART, STARLETTE):
            prepared = {
                name: asyncio.run(_prepare(name, url, stored)) for name, url in DATABASES.items()
            }
            targets = [
                _session_target(auth_spec(stack, "database", database), tokens, Path(folder))
                for database, tokens in prepared.values()
            ]
            measures = wrk_rounds(targets, *_times(options), BASELINES[stack])
            for name, measure in zip(prepared, measures, strict=True):
                yield _row("database sessions", stack, f"session check ({name})", measure, base)
        database, tokens = asyncio.run(_prepare("PostgreSQL", sessions.PG_URL, stored))
        target = _session_target(auth_spec(AUTHJS, "database", database), tokens, Path(folder))
        (measure,) = wrk_rounds([target], *_times(options), BASELINES[AUTHJS])
        yield _row("database sessions", AUTHJS, AUTHJS_DATABASE, measure, base)


def _session_target(spec: ServerSpec, tokens: list[str], folder: Path) -> Target:
    """The session check on a server of ``spec``, each request with the next of the
    stored sessions' ``tokens`` (a wrk script written in a folder of its own in
    ``folder``)."""
    script = sessions.cookies_script(Path(tempfile.mkdtemp(dir=folder)), tokens)
    cookie = f"{sessions.SESSION_COOKIE}={tokens[0]}"
    return Target(spec, "/auth/session", cookie, SIGNED_IN, script)


def _stored(options: Options) -> int:
    """Sessions to send in turn: a few in smoke mode, where only the harness is checked."""
    return 20 if options.smoke else sessions.STORED_SESSIONS


async def _prepare(name: str, url: str | None, stored: int) -> tuple[str, list[str]]:
    """A fresh database with the bench user's sessions: (adapter URL, session tokens)."""
    if name == "PostgreSQL":
        await sessions.reset_pg()
        adapter = sessions.pg_adapter()
        database = sessions.PG_URL
    elif name == "MariaDB":
        adapter = await sessions.fresh_mariadb()
        database = sessions.MARIADB_URL
    elif name == "Redis":
        from redis.asyncio import Redis

        from authui.adapters.redis import RedisAdapter

        client = Redis.from_url(sessions.REDIS_URL, decode_responses=True)
        await client.flushdb()
        await client.aclose()
        adapter = RedisAdapter(sessions.REDIS_URL)
        database = sessions.REDIS_URL
    else:
        import tempfile

        from authui.adapters.sqlalchemy import SQLAlchemyAdapter

        folder = tempfile.mkdtemp(prefix="authui-bench-")
        database = f"sqlite+aiosqlite:///{folder}/bench.db"
        adapter = SQLAlchemyAdapter(database)
        await adapter.create_all()
    try:
        tokens = await sessions.stored_sessions(adapter, stored)
    finally:
        await adapter.close()
    return database, tokens


def _times(options: Options) -> tuple[float, int]:
    return options.duration, options.runs


def overhead(measure: Measure, baseline: Measure) -> float:
    return measure.us_per_request - baseline.us_per_request


def sign_in_rows(options: Options) -> Iterator[Row]:
    for stack in (QUART, QUART_UVICORN, STARLETTE, AUTHJS):
        measure = round_trips(auth_spec(stack), options.duration, options.runs)
        yield Row("sign-in round trip", stack, "csrf → callback → session", measure)


PASSWORDS = "password sign-in"
"""The table of the password sign-in round trips."""
PASSWORD_SIGN_IN = "csrf → password callback → session"
CREDENTIALS_SIGN_IN = "csrf → callback → session"
"""The credentials round trip, on the sign-in table's servers (no adapter)."""
CREDENTIALS_BESIDE = "csrf → callback → session, on the password server"
"""The credentials round trip on the password server: its adapter keeps the throttle's
counts, as it does for the password sign-in."""
PASSWORD_STACKS = (STARLETTE, QUART_UVICORN)


def password_spec(stack: str) -> ServerSpec:
    """The bench app of ``stack`` with password accounts, JWT sessions and the adapter on
    PostgreSQL's ``passwords.PG_SCHEMA``."""
    spec = auth_spec(stack, "jwt", sessions.PG_URL, passwords.PG_SCHEMA)
    return ServerSpec(spec.kind, spec.target, {**spec.env, "BENCH_PASSWORD": "1"})


def password_rows(options: Options) -> Iterator[Row]:
    """The password sign-in round trip (argon2id, default parameters) on Starlette and
    Quart on uvicorn, beside the credentials round trip of the sign-in table's server of
    the same stack, the credentials round trip on the password server itself, and
    Auth.js's credentials round trip: all in interleaved rounds
    (``measure.round_trip_rounds``), each run on a server started for it. The users are
    in PostgreSQL (``passwords.seed``), whose schema is dropped at the end."""
    targets: list[tuple[str, str, ServerSpec, SignIn]] = []
    for stack in PASSWORD_STACKS:
        spec = password_spec(stack)
        targets += [
            (stack, PASSWORD_SIGN_IN, spec, passwords.SIGN_IN),
            (stack, CREDENTIALS_SIGN_IN, auth_spec(stack), CREDENTIALS),
            (stack, CREDENTIALS_BESIDE, spec, passwords.CREDENTIALS_APART),
        ]
    targets.append((AUTHJS, CREDENTIALS_SIGN_IN, auth_spec(AUTHJS), CREDENTIALS))
    try:
        asyncio.run(passwords.seed())
        measures = round_trip_rounds(
            [(spec, sign_in) for _, _, spec, sign_in in targets], *_times(options)
        )
    finally:
        asyncio.run(sessions.drop_pg_schema(passwords.PG_SCHEMA))
    for (stack, endpoint, _, _), measure in zip(targets, measures, strict=True):
        yield Row(PASSWORDS, stack, endpoint, measure)


def password_hashing(options: Options) -> dict[str, Any]:
    """The hash and verify times of authui and of Better Auth's default (``bench.passwords``)."""
    if options.smoke:
        return passwords.hashing(calls=2, rounds=1)
    return passwords.hashing(calls=30)


PasswordRatio = tuple[str, float, float, float, float, float, float, float]


def password_ratios(rows: list[dict[str, Any]]) -> list[PasswordRatio]:
    """Per stack of the password table: (stack, password round trips/s, their ratio to the
    credentials round trips/s of the sign-in table's server of the same stack, of the
    password server, and of Auth.js; the server CPU ms per password round trip, its ratio
    to the CPU per credentials round trip of the sign-in table's server, and of Auth.js).
    On a machine shared with other work the CPU figures move less than the rates."""
    measures = {
        (row["stack"], row["endpoint"]): row["measure"] for row in rows if row["table"] == PASSWORDS
    }
    peer = measures.get((AUTHJS, CREDENTIALS_SIGN_IN))
    found = []
    for stack in PASSWORD_STACKS:
        password = measures.get((stack, PASSWORD_SIGN_IN))
        credentials = measures.get((stack, CREDENTIALS_SIGN_IN))
        beside = measures.get((stack, CREDENTIALS_BESIDE))
        if password is None or credentials is None or beside is None or peer is None:
            continue
        rate, cpu = password["rps"], password["cpu_us"]
        found.append(
            (
                stack,
                rate,
                rate / credentials["rps"],
                rate / beside["rps"],
                rate / peer["rps"],
                cpu / 1000,
                cpu / credentials["cpu_us"],
                cpu / peer["cpu_us"],
            )
        )
    return found


SCALE_COUNTS = (1_000, 100_000, 1_000_000)
"""Stored sessions of the scale table's three databases."""


def scale_rows(options: Options) -> Iterator[Row]:
    """The PostgreSQL session check with 1,000, 100,000 and 1,000,000 stored sessions:
    three schemas, seeded first, each served by its own server, measured in interleaved
    rounds (``measure.wrk_rounds``), so that the spread between the counts is theirs, not
    the machine's drift over the minutes between them nor one server start's."""
    counts = (1_000, 10_000) if options.smoke else SCALE_COUNTS
    schemas = [f"{sessions.PG_SCHEMA}_{count}" for count in counts]
    try:
        tokens = [
            asyncio.run(_many_sessions(count, _stored(options), schema))
            for count, schema in zip(counts, schemas, strict=True)
        ]
        with tempfile.TemporaryDirectory() as folder:
            targets = [
                _session_target(
                    auth_spec(STARLETTE, "database", sessions.PG_URL, schema), stored, Path(folder)
                )
                for schema, stored in zip(schemas, tokens, strict=True)
            ]
            measures = wrk_rounds(targets, *_times(options))
    finally:
        for schema in schemas:
            asyncio.run(sessions.drop_pg_schema(schema))
    for count, measure in zip(counts, measures, strict=True):
        endpoint = f"session check, {count:,} sessions (PostgreSQL)"
        yield Row("scale", STARLETTE, endpoint, measure)


async def _many_sessions(count: int, stored: int, schema: str) -> list[str]:
    """``count`` stored sessions in a fresh ``schema``; the tokens of ``stored`` of them."""
    await sessions.reset_pg(schema)
    adapter = sessions.pg_adapter(schema, seeding=True)
    try:
        return await sessions.stored_sessions(adapter, stored, count - stored)
    finally:
        await adapter.close()


def worker_rows(options: Options) -> Iterator[Row]:
    """The JWT session check, a new token each request, on one and on two worker
    processes. wrk shares the machine's cores with the workers: the dearer check keeps its
    share of them small, so that what two workers add can show."""
    with tempfile.TemporaryDirectory() as folder:
        script = sessions.rotating_tokens_script(Path(folder), SECRET)
        for workers in (1, 2):
            spec = auth_spec(STARLETTE)
            spec = ServerSpec(spec.kind, spec.target, spec.env, workers=workers)
            cookie = signed_in_cookie(spec)
            measure = wrk(spec, "/auth/session", cookie, *_times(options), SIGNED_IN, script)
            endpoint = f"{NEW_TOKENS}, {workers} worker(s)"
            yield Row("workers", STARLETTE, endpoint, measure)


def micro_rows(calls: int) -> dict[str, dict[str, float]]:
    return {
        "authui (Python, joserfc)": micro.python(calls),
        "@auth/core/jwt (node)": micro.node(calls),
    }


# --- report -----------------------------------------------------------------------------------


Ratio = tuple[str, str, float, float | None, float | None, float | None, float | None]


def ratio_rows(rows: list[Row]) -> list[Ratio]:
    """(endpoint, stack, authui rps / Auth.js rps, authui overhead µs, Auth.js overhead µs,
    authui CPU overhead µs, Auth.js CPU overhead µs) for every endpoint Auth.js was
    measured on too."""
    authjs = {(r.table, r.endpoint): r for r in rows if r.stack == AUTHJS}
    found = []
    for row in rows:
        peer = authjs.get((row.table, row.endpoint))
        endpoint = row.endpoint
        if peer is None and row.table == "database sessions":
            peer = authjs.get((row.table, AUTHJS_DATABASE))
            endpoint = f"{row.endpoint} ÷ Auth.js on PostgreSQL"
        if row.stack == AUTHJS or peer is None:
            continue
        found.append(
            (
                endpoint,
                row.stack,
                row.measure.rps / peer.measure.rps,
                row.overhead_us,
                peer.overhead_us,
                row.cpu_overhead_us,
                peer.cpu_overhead_us,
            )
        )
    return found


def scale_spread(rows: list[dict[str, Any]]) -> float | None:
    """How far apart the scale table's throughputs are: (highest - lowest) / lowest."""
    rates = [row["measure"]["rps"] for row in rows if row["table"] == "scale"]
    return (max(rates) - min(rates)) / min(rates) if len(rates) > 1 else None


def _share(ours: float | None, theirs: float | None) -> str:
    return "-" if ours is None or not theirs else f"{ours / theirs:.2f}"


def _fmt(value: float | None, digits: int = 0) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def markdown(results: dict[str, Any]) -> str:
    """The results as Markdown tables, after a line naming the machine."""
    box = results["machine"]
    lines = [
        f"Machine: {box['cpu']}; Python {box['python']}, node {box['node']}, {box['wrk']};"
        f" {box['os']}.",
        "",
        "| table | stack | endpoint | req/s | p50 ms | p99 ms | overhead µs"
        " | server CPU µs | CPU overhead µs |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for stack, m in results["baselines"].items():
        lines.append(
            f"| baseline | {stack} | bare hello | {_fmt(m['rps'])} | "
            f"{m['p50_ms']:.2f} | {m['p99_ms']:.2f} | - | {_fmt(m['cpu_us'])} | - |"
        )
    for row in results["rows"]:
        m = row["measure"]
        lines.append(
            f"| {row['table']} | {row['stack']} | {row['endpoint']} | {_fmt(m['rps'])} | "
            f"{m['p50_ms']:.2f} | {m['p99_ms']:.2f} | {_fmt(row['overhead_us'])} | "
            f"{_fmt(m['cpu_us'])} | {_fmt(row['cpu_overhead_us'])} |"
        )
    lines += [
        "",
        "| endpoint | authui stack | authui / Auth.js (req/s) | authui overhead µs"
        " | Auth.js overhead µs | overhead ratio | CPU overhead ratio |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for endpoint, stack, ratio, ours, theirs, our_cpu, their_cpu in results["ratios"]:
        lines.append(
            f"| {endpoint} | {stack} | {ratio:.2f} | {_fmt(ours)} | {_fmt(theirs)} | "
            f"{_share(ours, theirs)} | {_share(our_cpu, their_cpu)} |"
        )
    spread = scale_spread(results["rows"])
    if spread is not None:
        lines += [
            "",
            f"Scale: the session check's throughput {spread:.1%} apart across the counts.",
        ]
    lines += _password_lines(results)
    lines += [
        "",
        "| JWE | encode µs | decode µs, a new token | decode µs, the same token again |",
        "|---|---:|---:|---:|",
    ]
    for name, m in results["micro"].items():
        again = _fmt(m.get("decode_again_us"), 1)
        lines.append(f"| {name} | {m['encode_us']:.1f} | {m['decode_us']:.1f} | {again} |")
    return "\n".join(lines)


def _password_lines(results: dict[str, Any]) -> list[str]:
    """The password tables, when the section ran."""
    found = results.get("passwords")
    if not found:
        return []
    lines = [
        "",
        "| password hash | hash ms (median) | hash ms (p90) | hash CPU ms"
        " | verify ms (median) | verify ms (p90) | verify CPU ms |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, kinds in found["hashing"]["figures"].items():
        cells = [
            f"{kinds[kind][figure]:.1f}"
            for kind in ("hash", "verify")
            for figure in ("median_ms", "p90_ms", "cpu_ms")
        ]
        lines.append(f"| {name} | {' | '.join(cells)} |")
    ratio = found["hashing"]["default_over_peer"]
    cpu = found["hashing"]["default_over_peer_cpu"]
    lines += [
        "",
        f"authui's default ÷ Better Auth's scrypt: hash {ratio['hash']:.2f} (CPU"
        f" {cpu['hash']:.2f}), verify {ratio['verify']:.2f} (CPU {cpu['verify']:.2f}).",
        "",
        "| authui stack | password round trips/s | ÷ credentials (sign-in server)"
        " | ÷ credentials (password server) | ÷ Auth.js credentials"
        " | server CPU ms per password round trip | CPU ÷ credentials (sign-in server)"
        " | CPU ÷ Auth.js credentials |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for stack, rate, same, beside, peer, cpu, cpu_same, cpu_peer in found["ratios"]:
        lines.append(
            f"| {stack} | {rate:,.1f} | {same:.3f} | {beside:.3f} | {peer:.3f} | {cpu:,.1f}"
            f" | {cpu_same:,.0f} | {cpu_peer:,.0f} |"
        )
    return lines


def machine() -> dict[str, str]:
    def first_line(command: list[str]) -> str:
        try:
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            return (done.stdout + done.stderr).splitlines()[0]
        except (OSError, IndexError):
            return "unknown"

    cpu = "unknown"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        lines = cpuinfo.read_text().splitlines()
        names = [line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")]
        cpu = f"{len(names)} x {names[0]}" if names else cpu
    return {
        "cpu": cpu,
        "python": platform.python_version(),
        "node": first_line(["node", "--version"]),
        "wrk": first_line(["wrk", "-v"]),
        "os": platform.platform(),
    }


SECTIONS: dict[str, Callable[[Options, dict[str, Measure]], Iterator[Row]]] = {
    "jwt": jwt_rows,
    "database": database_rows,
    "sign-in": lambda options, base: sign_in_rows(options),
    "scale": lambda options, base: scale_rows(options),
    "workers": lambda options, base: worker_rows(options),
    "passwords": lambda options, base: password_rows(options),
}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="bench", description=__doc__)
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per wrk run")
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (the median is kept)")
    parser.add_argument("--only", nargs="*", choices=sorted(SECTIONS), help="some sections only")
    parser.add_argument(
        "--smoke", action="store_true", help="a one-second check that the harness works"
    )
    parser.add_argument("--out", type=Path, help="write the results as JSON here")
    args = parser.parse_args(argv)
    options = Options(args.duration, args.runs, args.smoke)
    if args.smoke:
        options = Options(1.0, 1, True)
    base = baselines(options)
    rows: list[Row] = []
    hashing = None
    for name in args.only or SECTIONS:
        if name == "passwords":
            hashing = password_hashing(options)
            for stack, kinds in hashing["figures"].items():
                hash_ms, verify_ms = (kinds[k]["median_ms"] for k in ("hash", "verify"))
                print(
                    f"{'password hash':20} {stack:56} {hash_ms:>8.1f} ms {verify_ms:>8.1f} ms",
                    flush=True,
                )
        for row in SECTIONS[name](options, base):
            print(
                f"{row.table:20} {row.stack:30} {row.endpoint:45} {row.measure.rps:>10,.0f} req/s",
                flush=True,
            )
            rows.append(row)
    results: dict[str, Any] = {
        "machine": machine(),
        "settings": {"duration_s": options.duration, "runs": options.runs, "wrk_connections": 32},
        "baselines": {k: asdict(v) for k, v in base.items()},
        "rows": [asdict(r) for r in rows],
        "ratios": ratio_rows(rows),
        "micro": micro_rows(200 if args.smoke else 5000),
    }
    if hashing is not None:
        ratios = password_ratios(results["rows"])
        results["passwords"] = {"hashing": hashing, "ratios": ratios}
    print()
    print(markdown(results))
    if args.out:
        args.out.write_text(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
