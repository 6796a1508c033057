"""Races between real OS processes over one store, as when several workers of an app start
at once: each racer is ``python -m tests.adapters.racer`` (see its docstring), and all of
them start their task at the same moment.

- Schema creation: five processes on a NEW database (a SQLite file, a fresh PostgreSQL
  schema, a fresh MariaDB database) bring its schema up to date on first use, or run
  ``create_all``, and then read from it: every one of them succeeds, and every schema
  version is recorded once.
- Single-use challenges: two processes race ``use_challenge`` for the same keys (on
  PostgreSQL, MariaDB, a SQLite file and Redis): each key goes to exactly one of them.
- Token refresh: two processes refresh one expired account 20 times at once against a real
  OpenID provider (npm ``oidc-provider``) whose refresh tokens rotate: one refresh reaches
  the provider, and every caller gets its token.
- Leases: two processes make 20 concurrent ``claim_lease`` calls for each of a few keys
  (10 each), on new keys and again once their leases have run out: each lease goes to
  exactly one call.
- Session versions: two processes bump one user's session version 10 times each, all at
  once: the 20 calls get the versions 1 to 20, each once.
- TOTP steps and recovery codes: two processes make 20 concurrent ``use_totp_step`` calls
  with one step for each of a few users, and 20 concurrent ``use_recovery_code`` calls for
  each of a few codes of one user (10 each): each step, and each code, goes to exactly one
  call.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import secrets
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import httpx
import pytest
from redis.asyncio import Redis
from sqlalchemy import inspect, select, update
from sqlalchemy.engine import make_url

from authui.adapters.base import AdapterAccount, AdapterUser, Challenge
from authui.adapters.factors import MfaEnrolment
from authui.adapters.redis import RedisAdapter
from authui.adapters.sql.migrations import LATEST_VERSION, SchemaMigrator
from authui.adapters.sqlalchemy import SQLAlchemyAdapter, SQLNaming
from tests.peers.oidc_provider import OIDCProvider, client, log_in, oidc_provider
from tests.peers.pgadapter_node import execute, fresh_schema, run_isolated

ROOT = Path(__file__).resolve().parents[2]
RACERS = 5
CHALLENGES = 30
_RACE_TIMEOUT = 300  # seconds, for all racers of one race on a busy machine


@dataclass(frozen=True)
class Store:
    """Where the racers meet: a database URL with the SQL naming's schema, or a Redis URL
    with a key prefix."""

    url: str
    schema: str | None = None
    prefix: str = ""

    def sql_adapter(self) -> SQLAlchemyAdapter:
        return SQLAlchemyAdapter(self.url, naming=SQLNaming(schema=self.schema))


@contextlib.contextmanager
def fresh_mariadb_database(url: str) -> Iterator[str]:
    """A new MariaDB database, dropped afterwards; yields its URL."""
    name = f"authui_race_{uuid.uuid4().hex[:10]}"
    run_isolated(lambda: execute(url, [f"CREATE DATABASE `{name}`"]))
    try:
        yield make_url(url).set(database=name).render_as_string(hide_password=False)
    finally:
        run_isolated(lambda: execute(url, [f"DROP DATABASE `{name}`"]))


@contextlib.contextmanager
def fresh_store(request: pytest.FixtureRequest, kind: str, tmp_path: Path) -> Iterator[Store]:
    """A store of ``kind`` with nothing in it: a new SQLite file, PostgreSQL schema, MariaDB
    database, or an unused Redis key prefix (its keys are deleted afterwards)."""
    if kind == "sqlite":
        yield Store(f"sqlite+aiosqlite:///{tmp_path / 'new.db'}")
    elif kind == "postgresql":
        url = request.getfixturevalue("postgres_url")
        with fresh_schema(url, "authui_race_") as schema:
            yield Store(url, schema)
    elif kind == "mariadb":
        with fresh_mariadb_database(request.getfixturevalue("mariadb_url")) as url:
            yield Store(url)
    else:
        store = Store(request.getfixturevalue("redis_url"), prefix=f"authui-race:{uuid.uuid4()}:")
        try:
            yield store
        finally:
            run_isolated(lambda: delete_prefixed(store))


async def delete_prefixed(store: Store) -> None:
    async with Redis.from_url(store.url) as client:
        keys = [key async for key in client.scan_iter(match=f"{store.prefix}*")]
        if keys:
            await client.delete(*keys)


@pytest.fixture(params=["sqlite", "postgresql", "mariadb"])
def new_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """A database with nothing in it yet."""
    with fresh_store(request, request.param, tmp_path) as store:
        yield store


def race(store: Store, task: str, parties: int, tmp_path: Path, **more: Any) -> list[Any]:
    """Start ``parties`` racers on ``store`` and wait for them; their answers, in order.
    Fails naming every racer that failed, with the last line of its traceback."""
    barrier = tmp_path / f"barrier-{uuid.uuid4().hex}"
    barrier.mkdir()
    spec = asdict(store) | more | {"task": task, "barrier": str(barrier), "parties": parties}
    racers = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.adapters.racer", json.dumps(spec | {"me": me})],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for me in range(parties)
    ]
    answers: list[Any] = []
    failures: list[str] = []
    try:
        for me, racer in enumerate(racers):
            out, err = racer.communicate(timeout=_RACE_TIMEOUT)
            if racer.returncode == 0:
                answers.append(json.loads(out))
            else:
                lines = [line for line in err.splitlines() if not line.startswith("(Background")]
                failures.append(f"racer {me} exited with {racer.returncode}: {lines[-1:]}")
    finally:
        for racer in racers:
            if racer.poll() is None:
                racer.kill()
                racer.wait()
    assert not failures, f"{len(failures)} of {parties} racers failed:\n" + "\n".join(failures)
    return answers


# Schema creation ------------------------------------------------------------------------


async def recorded_versions(store: Store) -> list[int]:
    async with store.sql_adapter() as adapter:
        versions = SchemaMigrator(adapter).version_table
        async with adapter.engine.connect() as conn:
            rows = await conn.execute(select(versions.c.version).order_by(versions.c.version))
            return [version for (version,) in rows]


async def missing_tables(store: Store) -> list[str]:
    async with store.sql_adapter() as adapter:
        tables = adapter.tables.metadata.sorted_tables
        async with adapter.engine.connect() as conn:
            found = await conn.run_sync(
                lambda sync: [t.name for t in tables if inspect(sync).has_table(t.name, t.schema)]
            )
        return sorted({t.name for t in tables} - set(found))


def test_processes_starting_together_make_a_new_schema_once(
    new_database: Store, tmp_path: Path
) -> None:
    """Each process's first call brings the schema up to date, as an embedded database's
    adapter does on first use: all of them answer, and each version is recorded once."""
    assert race(new_database, "first-use", RACERS, tmp_path) == [None] * RACERS
    assert run_isolated(lambda: recorded_versions(new_database)) == list(
        range(1, LATEST_VERSION + 1)
    )
    assert run_isolated(lambda: missing_tables(new_database)) == []


def test_processes_running_create_all_together_all_succeed(
    new_database: Store, tmp_path: Path
) -> None:
    assert race(new_database, "create-all", RACERS, tmp_path) == [None] * RACERS
    assert run_isolated(lambda: missing_tables(new_database)) == []


# Single-use challenges ------------------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgresql", "mariadb", "redis"])
def challenge_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """A store with authui's tables in it (nothing to make in Redis)."""
    with fresh_store(request, request.param, tmp_path) as store:
        if not store.prefix:
            run_isolated(lambda: create_all(store))
        yield store


async def create_all(store: Store) -> None:
    async with store.sql_adapter() as adapter:
        await adapter.create_all()


async def create_challenges(store: Store, keys: list[str]) -> None:
    expires = datetime.now(UTC) + timedelta(minutes=5)
    adapter = RedisAdapter(store.url, prefix=store.prefix) if store.prefix else store.sql_adapter()
    async with adapter:
        for key in keys:
            await adapter.create_challenge(Challenge(key, expires))


def test_two_processes_racing_for_challenges_get_each_one_once(
    challenge_store: Store, tmp_path: Path
) -> None:
    """Both processes ask for the same 30 challenges at once: every challenge goes to
    exactly one of them."""
    keys = [hashlib.sha256(secrets.token_bytes(32)).hexdigest() for _ in range(CHALLENGES)]
    run_isolated(lambda: create_challenges(challenge_store, keys))
    first, second = race(challenge_store, "use-challenges", 2, tmp_path, keys=keys)
    assert set(first) & set(second) == set(), "a challenge was used twice"
    assert sorted(first + second) == sorted(keys), "a challenge was used by neither process"


# Leases -------------------------------------------------------------------------------

CLAIMS_PER_PROCESS = 10


def lease_adapter(store: Store) -> RedisAdapter | SQLAlchemyAdapter:
    return RedisAdapter(store.url, prefix=store.prefix) if store.prefix else store.sql_adapter()


async def leases_that_ran_out(store: Store, keys: list[str]) -> list[str]:
    """Claim the leases of ``keys``, then make them run out, as if their time had passed;
    their old holders."""
    async with lease_adapter(store) as adapter:
        holders = [await adapter.claim_lease(key, 60) for key in keys]
        if isinstance(adapter, RedisAdapter):
            for key in keys:
                assert await adapter.redis.pexpire(adapter.lease_key(key), 1)
        else:
            leases = adapter.tables.leases
            past = datetime.now(UTC) - timedelta(seconds=1)
            async with adapter.engine.begin() as conn:
                ran_out = update(leases).where(leases.c.key.in_(keys)).values(expires=past)
                await conn.execute(ran_out)
    assert all(holders)
    return [holder for holder in holders if holder]


def test_two_processes_claiming_a_lease_at_once_give_it_to_one(
    challenge_store: Store, tmp_path: Path
) -> None:
    """20 concurrent claims of each key, 10 from each of two processes: one holder per
    key, for new keys and for keys whose lease has run out."""
    new = [f"refresh:github:new-{secrets.token_hex(8)}" for _ in range(2)]
    old = [f"refresh:github:old-{secrets.token_hex(8)}" for _ in range(2)]
    old_holders = run_isolated(lambda: leases_that_ran_out(challenge_store, old))
    spec = {"keys": new + old, "claims": CLAIMS_PER_PROCESS}
    first, second = race(challenge_store, "claim-leases", 2, tmp_path, **spec)
    claimed = first + second
    assert sorted(key for key, _ in claimed) == sorted(new + old), "not one holder per key"
    holders = {holder for _, holder in claimed}
    assert len(holders) == len(new + old)
    assert not holders & set(old_holders)


# Session versions -----------------------------------------------------------------------


async def new_user_id(store: Store) -> str:
    async with lease_adapter(store) as adapter:
        user = await adapter.create_user(AdapterUser(id=str(uuid.uuid4())))
        return user.id


def test_two_processes_bumping_a_session_version_each_get_their_own(
    challenge_store: Store, tmp_path: Path
) -> None:
    """20 concurrent ``bump_session_version`` calls for one user, 10 from each of two
    processes: the versions 1 to 20, each once."""
    user = run_isolated(lambda: new_user_id(challenge_store))
    spec = {"user": user, "count": CLAIMS_PER_PROCESS}
    first, second = race(challenge_store, "bump-versions", 2, tmp_path, **spec)
    assert sorted(first + second) == list(range(1, 2 * CLAIMS_PER_PROCESS + 1))


# TOTP steps and recovery codes ----------------------------------------------------------


async def enrolled_users(store: Store, count: int) -> list[str]:
    """``count`` users, each with a TOTP secret whose last step is 1000."""
    async with lease_adapter(store) as adapter:
        users = [await adapter.create_user(AdapterUser(id=str(uuid.uuid4()))) for _ in range(count)]
        for user in users:
            await adapter.save_mfa(
                MfaEnrolment(
                    user_id=user.id,
                    created=datetime.now(UTC),
                    totp_secret="v1.secret",
                    totp_last_step=1000,
                )
            )
        return [user.id for user in users]


async def last_steps(store: Store, users: list[str]) -> list[int | None]:
    async with lease_adapter(store) as adapter:
        found = [await adapter.get_mfa(user) for user in users]
        return [None if enrolment is None else enrolment.totp_last_step for enrolment in found]


def test_two_processes_using_one_totp_step_accept_it_once(
    challenge_store: Store, tmp_path: Path
) -> None:
    """For each of 4 users, 20 concurrent ``use_totp_step`` calls with one step, 10 from
    each of two processes: one call per user is accepted."""
    users = run_isolated(lambda: enrolled_users(challenge_store, 4))
    spec = {"users": users, "step": 1001, "calls": CLAIMS_PER_PROCESS}
    first, second = race(challenge_store, "use-totp-steps", 2, tmp_path, **spec)
    assert sorted(first + second) == sorted(users), "not one accepted call per user"
    assert run_isolated(lambda: last_steps(challenge_store, users)) == [1001] * len(users)


async def user_with_codes(store: Store, codes: list[str]) -> str:
    async with lease_adapter(store) as adapter:
        user = await adapter.create_user(AdapterUser(id=str(uuid.uuid4())))
        await adapter.replace_recovery_codes(user.id, codes)
        return user.id


async def codes_left(store: Store, user: str) -> int:
    async with lease_adapter(store) as adapter:
        return int(await adapter.count_recovery_codes(user))


def test_two_processes_using_recovery_codes_get_each_one_once(
    challenge_store: Store, tmp_path: Path
) -> None:
    """For each of 5 codes of one user, 20 concurrent ``use_recovery_code`` calls, 10 from
    each of two processes: each code is used by exactly one call, and none is left."""
    codes = [hashlib.sha256(secrets.token_bytes(16)).hexdigest() for _ in range(5)]
    user = run_isolated(lambda: user_with_codes(challenge_store, codes))
    spec = {"user": user, "codes": codes, "calls": CLAIMS_PER_PROCESS}
    first, second = race(challenge_store, "use-recovery-codes", 2, tmp_path, **spec)
    assert sorted(first + second) == sorted(codes), "not one use per code"
    assert run_isolated(lambda: codes_left(challenge_store, user)) == 0


# Token refresh against a real OpenID provider ---------------------------------------------

APP_CALLBACK = "http://127.0.0.1:9/callback"
"""The redirect URI the provider's client names (never opened: the code is read off it)."""
CLIENT_ID, CLIENT_SECRET = "racer-app", "racer-secret-0123456789"


@pytest.fixture(scope="module")
def rotating_provider() -> Iterator[OIDCProvider]:
    """``oidc-provider`` issuing refresh tokens that rotate: each works once."""
    registered = client(CLIENT_ID, APP_CALLBACK, "client_secret_basic", CLIENT_SECRET, refresh=True)
    with oidc_provider([registered], refresh_tokens={"rotate": True}) as provider:
        yield provider


def tokens_of_a_sign_in(provider: OIDCProvider, login: str) -> dict[str, Any]:
    """A sign-in at the provider as a browser and an app would do it: its token answer."""
    verifier = secrets.token_urlsafe(32)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    discovery = httpx.get(f"{provider.issuer}/.well-known/openid-configuration").json()
    query = {
        "client_id": CLIENT_ID,
        "response_type": "code",
        "redirect_uri": APP_CALLBACK,
        "scope": "openid email",
        "state": secrets.token_urlsafe(8),
        "code_challenge": challenge.rstrip(b"=").decode(),
        "code_challenge_method": "S256",
    }
    back = log_in(f"{discovery['authorization_endpoint']}?{urlencode(query)}", APP_CALLBACK, login)
    code = dict(parse_qsl(urlsplit(back).query))["code"]
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": APP_CALLBACK,
        "code_verifier": verifier,
    }
    answer = httpx.post(discovery["token_endpoint"], data=form, auth=(CLIENT_ID, CLIENT_SECRET))
    answer.raise_for_status()
    tokens: dict[str, Any] = answer.json()
    return tokens


async def store_expired_account(store: Store, login: str, tokens: dict[str, Any]) -> None:
    """The user and the account a sign-in stored, its access token expired since."""
    async with lease_adapter(store) as adapter:
        user = await adapter.create_user(AdapterUser(id=str(uuid.uuid4()), email=f"{login}@x.io"))
        account = AdapterAccount(
            user_id=user.id,
            type="oidc",
            provider="op",
            provider_account_id=login,
            access_token=tokens["access_token"],
            refresh_token=tokens["refresh_token"],
            expires_at=int(time.time()) - 10,
            token_type="bearer",
        )
        await adapter.link_account(account)


async def stored_account(store: Store, login: str) -> AdapterAccount | None:
    async with lease_adapter(store) as adapter:
        found: AdapterAccount | None = await adapter.get_account(login, "op")
        return found


def test_two_processes_refreshing_one_account_call_the_provider_once(
    challenge_store: Store, rotating_provider: OIDCProvider, tmp_path: Path
) -> None:
    """20 concurrent refreshes of one expired account, 10 from each of two processes,
    against a provider whose refresh tokens work once (a spent one is refused, and makes
    it revoke the grant): one refresh at the provider, every caller gets its access token,
    and the stored refresh token is the new one, which still works."""
    login = f"racer{secrets.token_hex(4)}"
    tokens = tokens_of_a_sign_in(rotating_provider, login)
    run_isolated(lambda: store_expired_account(challenge_store, login, tokens))
    before = rotating_provider.grants("refresh_token")

    spec = {
        "issuer": rotating_provider.issuer,
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "account": login,
        "count": CLAIMS_PER_PROCESS,
    }
    first, second = race(challenge_store, "refresh", 2, tmp_path, **spec)

    assert rotating_provider.grants("refresh_token") - before == 1
    stored = run_isolated(lambda: stored_account(challenge_store, login))
    assert stored is not None
    assert stored.access_token != tokens["access_token"]
    assert set(first + second) == {stored.access_token}
    assert stored.refresh_token != tokens["refresh_token"]
    assert stored.expires_at is not None
    assert stored.expires_at > time.time()
    again = httpx.post(
        f"{rotating_provider.issuer}/token",
        data={"grant_type": "refresh_token", "refresh_token": stored.refresh_token},
        auth=(CLIENT_ID, CLIENT_SECRET),
    )
    assert again.status_code == 200, again.text  # the grant was never revoked
    assert rotating_provider.errors() == []
