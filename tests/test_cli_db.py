"""``authui db init|upgrade|status`` and ``authui.adapters.sql.migrations``.

Every scenario runs on a SQLite file, and on PostgreSQL (in a schema made for the test)
and MariaDB (under a table prefix made for the test) when they are reachable; see
``tests/adapters/conftest.py`` for where they are and the skip/fail rule. The CLI runs
in-process (it calls ``asyncio.run`` itself, so these tests are synchronous), and once as
a subprocess.
"""

from __future__ import annotations

import asyncio
import functools
import re
import subprocess
import sys
import uuid
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import pytest
from sqlalchemy import Engine, event, func, insert, inspect, select, text
from sqlalchemy.ext.asyncio import create_async_engine

from authui.adapters.base import (
    AdapterAccount,
    AdapterAuthenticator,
    AdapterSession,
    AdapterUser,
    VerificationToken,
)
from authui.adapters.sql.migrations import (
    DEFAULT_VERSION_TABLE,
    LATEST_VERSION,
    MIGRATIONS,
    Migration,
    MigrationError,
    MigrationResult,
    SchemaMigrator,
    SchemaStatus,
)
from authui.adapters.sql.migrations.versions import _index_name
from authui.adapters.sqlalchemy import IdType, SQLAlchemyAdapter, SQLNaming
from authui.cli import main
from tests.adapters.conftest import MARIADB, POSTGRES, require

_T = TypeVar("_T")


def run(make: Callable[[], Awaitable[_T]]) -> _T:
    """Run a coroutine on an event loop of its own (the tests themselves are sync)."""

    async def go() -> _T:
        return await make()

    return asyncio.run(go())


def unique(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:10]}"


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """The test PostgreSQL (``AUTHUI_TEST_POSTGRES_URL``), or skip/fail."""
    return require(POSTGRES)


@pytest.fixture(scope="session")
def mariadb_url() -> str:
    """The test MariaDB (``AUTHUI_TEST_MARIADB_URL``), or skip/fail."""
    return require(MARIADB)


# Where a test's tables go --------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """A database for one test: its URL and the schema or table prefix made for it."""

    kind: str
    url: str
    schema: str | None = None
    prefix: str = ""

    def cli_args(self) -> list[str]:
        args = ["--url", self.url]
        if self.schema:
            args += ["--schema", self.schema]
        if self.prefix:
            args += ["--table-prefix", self.prefix]
        return args

    @property
    def naming(self) -> SQLNaming:
        return SQLNaming(schema=self.schema).prefixed(self.prefix)

    @property
    def id_type(self) -> IdType:
        """The id type of this database's Auth.js-style tables (``AUTHJS_DDL``)."""
        return "text" if self.kind == "sqlite" else "integer"

    def adapter(self, id_type: IdType = "text") -> SQLAlchemyAdapter:
        return SQLAlchemyAdapter(self.url, naming=self.naming, id_type=id_type)

    def migrator(self, adapter: SQLAlchemyAdapter) -> SchemaMigrator:
        return SchemaMigrator(adapter, version_table=self.prefix + DEFAULT_VERSION_TABLE)


async def _execute(url: str, *statements: str) -> None:
    engine = create_async_engine(url)
    try:
        async with engine.begin() as conn:
            for statement in statements:
                await conn.execute(text(statement))
    finally:
        await engine.dispose()


async def _drop_prefixed(url: str, prefix: str) -> None:
    engine = create_async_engine(url)
    try:
        async with engine.begin() as conn:
            names = await conn.run_sync(lambda c: inspect(c).get_table_names())
            for name in names:
                if name.startswith(prefix):
                    await conn.execute(text(f"DROP TABLE `{name}`"))
    finally:
        await engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql", "mariadb"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Target]:
    """An empty place for tables: a SQLite file, a fresh PostgreSQL schema, or a fresh
    table prefix in MariaDB; dropped afterwards."""
    if request.param == "sqlite":
        yield Target("sqlite", f"sqlite+aiosqlite:///{tmp_path / 'auth.db'}")
    elif request.param == "postgresql":
        url: str = request.getfixturevalue("postgres_url")
        schema = unique("authui_cli_")
        run(lambda: _execute(url, f'CREATE SCHEMA "{schema}"'))
        yield Target("postgresql", url, schema=schema)
        run(lambda: _execute(url, f'DROP SCHEMA "{schema}" CASCADE'))
    else:
        url = request.getfixturevalue("mariadb_url")
        prefix = unique("cli") + "_"
        yield Target("mariadb", url, prefix=prefix)
        run(lambda: _drop_prefixed(url, prefix))


@pytest.fixture
def sqlite_target(tmp_path: Path) -> Target:
    return Target("sqlite", f"sqlite+aiosqlite:///{tmp_path / 'auth.db'}")


# Running the command -------------------------------------------------------------------


@dataclass(frozen=True)
class Done:
    code: int
    out: str
    err: str


Cli = Callable[..., Done]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Cli:
    """``cli("init", target, "--adopt")``: run ``authui db init`` on ``target``."""

    def call(command: str, target: Target | None, *extra: str) -> Done:
        capsys.readouterr()
        args = ["db", command, *(target.cli_args() if target else []), *extra]
        code = main(args)
        out = capsys.readouterr()
        return Done(code, out.out, out.err)

    return call


@pytest.fixture
def statements() -> Iterator[list[str]]:
    """Every SQL statement any engine sends while the test runs."""
    sent: list[str] = []

    def record(*args: Any) -> None:
        sent.append(args[2])

    event.listen(Engine, "before_cursor_execute", record)
    yield sent
    event.remove(Engine, "before_cursor_execute", record)


_DESTRUCTIVE = re.compile(r"\b(DROP|DELETE|TRUNCATE|RENAME)\b", re.IGNORECASE)


def destructive(sent: list[str]) -> list[str]:
    return [statement for statement in sent if _DESTRUCTIVE.search(statement)]


# Looking at the database ---------------------------------------------------------------


async def _versions(target: Target) -> list[tuple[int, str]]:
    async with target.adapter() as adapter:
        table = target.migrator(adapter).version_table
        async with adapter.engine.connect() as conn:
            query = select(table.c.version, table.c.description).order_by(table.c.version)
            return [(int(v), str(d)) for v, d in (await conn.execute(query)).all()]


async def _counts(target: Target) -> dict[str, int]:
    async with target.adapter() as adapter, adapter.engine.connect() as conn:
        return {
            table.name: int(
                (await conn.execute(select(func.count()).select_from(table))).scalar_one()
            )
            for table in adapter.tables.authjs
        }


async def _indexed(target: Target, authjs_table: str) -> list[list[str | None]]:
    name = target.naming.table(authjs_table)
    async with target.adapter() as adapter, adapter.engine.connect() as conn:
        indexes = await conn.run_sync(lambda c: inspect(c).get_indexes(name, target.schema))
    return [list(index["column_names"]) for index in indexes]


async def _has_table(target: Target, name: str) -> bool:
    async with target.adapter() as adapter, adapter.engine.connect() as conn:
        return await conn.run_sync(lambda c: inspect(c).has_table(name, schema=target.schema))


def versions(target: Target) -> list[int]:
    return [version for version, _ in run(lambda: _versions(target))]


def indexed(target: Target, authjs_table: str) -> list[list[str | None]]:
    """The column lists of the table's indexes."""
    return run(functools.partial(_indexed, target, authjs_table))


def assert_at_latest(target: Target) -> None:
    assert versions(target) == list(range(1, LATEST_VERSION + 1))
    for table in ("sessions", "verification_token"):
        assert ["expires"] in indexed(target, table)
    assert_authui_tables(target)


def assert_authui_tables(target: Target) -> None:
    naming = target.naming
    for name in (
        naming.rate_limits,
        naming.challenges,
        naming.leases,
        naming.session_details,
        naming.passkeys,
        naming.security_events,
        naming.session_versions,
        naming.passwords,
        naming.mfa,
        naming.recovery_codes,
        naming.trusted_browsers,
    ):
        assert run(functools.partial(_has_table, target, name)), name


# Rows -------------------------------------------------------------------------------


def in_days(days: float) -> datetime:
    return (datetime.now(UTC) + timedelta(days=days)).replace(microsecond=0)


async def _fill(target: Target, users: int = 3) -> list[str]:
    """``users`` users, each with an account, a session, a sign-in token and a passkey."""
    tokens: list[str] = []
    async with target.adapter() as adapter:
        for n in range(users):
            user = AdapterUser(
                id=str(uuid.uuid4()), email=f"user{n}@example.com", email_verified=None, name=None
            )
            await adapter.create_user(user)
            await adapter.link_account(
                AdapterAccount(
                    user_id=user.id,
                    type="oauth",
                    provider="github",
                    provider_account_id=f"gh{n}",
                    access_token="gho",
                )
            )
            token = f"session-{n}-{uuid.uuid4().hex}"
            await adapter.create_session(
                AdapterSession(session_token=token, user_id=user.id, expires=in_days(n + 1))
            )
            await adapter.create_verification_token(
                VerificationToken(
                    identifier=f"user{n}@example.com", token=f"t{n}", expires=in_days(1)
                )
            )
            await adapter.create_authenticator(
                AdapterAuthenticator(
                    credential_id=f"cred{n}",
                    user_id=user.id,
                    provider_account_id=f"cred{n}",
                    credential_public_key="pQEC",
                    counter=n,
                    credential_device_type="singleDevice",
                    credential_backed_up=False,
                    transports="usb",
                )
            )
            tokens.append(token)
    return tokens


async def _sessions_readable(target: Target, tokens: list[str], id_type: IdType) -> list[str]:
    async with target.adapter(id_type) as adapter:
        found = [await adapter.get_session_and_user(token) for token in tokens]
    return [user.email or "" for _, user in filter(None, found)]


# Auth.js's tables made with raw DDL, in each database's words (``{users}`` etc. are table
# names; PostgreSQL and MariaDB number users as @auth/pg-adapter does, SQLite keeps text
# ids as the Kysely and Drizzle adapters do).

AUTHJS_DDL = (
    """CREATE TABLE {verification_token} (
        identifier {key} NOT NULL,
        expires {timestamp} NOT NULL,
        token {key} NOT NULL,
        PRIMARY KEY (identifier, token))""",
    """CREATE TABLE {accounts} (
        id {serial},
        "userId" {user_ref} NOT NULL,
        type VARCHAR(255) NOT NULL,
        provider VARCHAR(255) NOT NULL,
        "providerAccountId" VARCHAR(255) NOT NULL,
        refresh_token TEXT,
        access_token TEXT,
        expires_at BIGINT,
        id_token TEXT,
        scope TEXT,
        session_state TEXT,
        token_type TEXT{serial_key})""",
    """CREATE TABLE {sessions} (
        id {serial},
        "userId" {user_ref} NOT NULL,
        expires {timestamp} NOT NULL,
        "sessionToken" VARCHAR(255) NOT NULL{serial_key})""",
    """CREATE TABLE {users} (
        id {user_id},
        name VARCHAR(255),
        email VARCHAR(255),
        "emailVerified" {timestamp},
        image TEXT,
        PRIMARY KEY (id))""",
    """CREATE TABLE {authenticators} (
        "credentialID" {key} NOT NULL,
        "userId" {user_ref} NOT NULL,
        "providerAccountId" TEXT NOT NULL,
        "credentialPublicKey" TEXT NOT NULL,
        counter INTEGER NOT NULL,
        "credentialDeviceType" TEXT NOT NULL,
        "credentialBackedUp" BOOLEAN NOT NULL,
        transports TEXT,
        PRIMARY KEY ("credentialID"))""",
)

_DDL_WORDS = {
    "postgresql": {
        "key": "TEXT",
        "timestamp": "TIMESTAMPTZ",
        "serial": "SERIAL",
        "serial_key": ",\n        PRIMARY KEY (id)",
        "user_id": "SERIAL",
        "user_ref": "INTEGER",
    },
    "mariadb": {
        "key": "VARCHAR(255)",
        "timestamp": "DATETIME(3)",
        "serial": "INT AUTO_INCREMENT",
        "serial_key": ",\n        PRIMARY KEY (id)",
        "user_id": "INT AUTO_INCREMENT",
        "user_ref": "INT",
    },
    "sqlite": {
        "key": "TEXT",
        "timestamp": "DATETIME",
        "serial": "INTEGER PRIMARY KEY AUTOINCREMENT",
        "serial_key": "",
        "user_id": "TEXT NOT NULL",
        "user_ref": "TEXT",
    },
}

# Rows as an Auth.js app writes them: user 41 with an account, a session and a token.
AUTHJS_INSERTS = (
    "INSERT INTO {users} (id, name, email, \"emailVerified\", image) VALUES ({uid}, 'Fill', "
    "'fill@murray.com', '2024-05-01 12:00:00', NULL)",
    'INSERT INTO {accounts} ("userId", type, provider, "providerAccountId") '
    "VALUES ({uid}, 'oidc', 'google', '1170')",
    'INSERT INTO {sessions} ("userId", expires, "sessionToken") '
    "VALUES ({uid}, '2030-01-01 00:00:00', 'session-41')",
    "INSERT INTO {verification_token} (identifier, expires, token) "
    "VALUES ('fill@murray.com', '2030-01-01 00:00:00', 'hashed')",
)


async def _create_authjs_tables(
    target: Target, *, skip: tuple[str, ...] = (), without: tuple[tuple[str, str], ...] = ()
) -> None:
    """Auth.js's tables and a few rows, with raw DDL; ``skip`` leaves out whole tables,
    ``without`` drops columns afterwards (``("sessions", "sessionToken")``)."""
    async with target.adapter() as adapter:
        preparer = adapter.engine.dialect.identifier_preparer
        names = {
            authjs: preparer.format_table(table)
            for authjs, table in (
                ("users", adapter.tables.users),
                ("accounts", adapter.tables.accounts),
                ("sessions", adapter.tables.sessions),
                ("verification_token", adapter.tables.verification_tokens),
                ("authenticators", adapter.tables.authenticators),
            )
        }
        words = _DDL_WORDS[target.kind]
        uid = "'41'" if target.kind == "sqlite" else "41"
        async with adapter.engine.begin() as conn:
            for ddl in AUTHJS_DDL:
                table = ddl.split("{", 1)[1].split("}", 1)[0]
                if table in skip:
                    continue
                statement = ddl.format(**names, **words)
                if target.kind == "mariadb":
                    statement = statement.replace('"', "`")
                await conn.execute(text(statement))
            for row in AUTHJS_INSERTS:
                statement = row.format(**names, uid=uid)
                if target.kind == "mariadb":
                    statement = statement.replace('"', "`")
                await conn.execute(text(statement))
            for table, column in without:
                quoted = preparer.quote_identifier(column)
                await conn.execute(text(f"ALTER TABLE {names[table]} DROP COLUMN {quoted}"))


# init ------------------------------------------------------------------------------------


def test_init_on_an_empty_database_creates_the_latest_version(
    target: Target, cli: Cli, statements: list[str]
) -> None:
    done = cli("init", target)
    assert done.code == 0, done.err
    assert f"initialised the authui schema at version {LATEST_VERSION}" in done.out
    assert done.out.count("\n") == 1
    assert_at_latest(target)
    assert any("CREATE INDEX" in statement.upper() for statement in statements)
    assert not destructive(statements)

    status = cli("status", target)
    assert status.code == 0
    assert f"up to date at version {LATEST_VERSION}" in status.out

    # The tables work.
    tokens = run(lambda: _fill(target, users=1))
    assert run(lambda: _sessions_readable(target, tokens, "text")) == ["user0@example.com"]


def test_init_twice_changes_nothing(target: Target, cli: Cli, statements: list[str]) -> None:
    assert cli("init", target).code == 0
    run(lambda: _fill(target, users=2))
    before = run(lambda: _versions(target)), run(lambda: _counts(target))
    statements.clear()

    again = cli("init", target)
    assert again.code == 0, again.err
    assert "already initialised" in again.out
    assert "nothing changed" in again.out
    assert not [s for s in statements if re.match(r"\s*(CREATE|INSERT|ALTER)", s, re.I)]
    assert (run(lambda: _versions(target)), run(lambda: _counts(target))) == before


def test_init_refuses_unversioned_tables_without_adopt(target: Target, cli: Cli) -> None:
    run(lambda: _create_authjs_tables(target))
    done = cli("init", target)
    assert done.code == 1
    assert "--adopt" in done.err
    assert "Traceback" not in done.err
    assert not run(lambda: _has_table(target, target.prefix + DEFAULT_VERSION_TABLE))

    status = cli("status", target)
    assert status.code == 0
    assert "unversioned" in status.out
    assert "--adopt" in status.out


# upgrade ----------------------------------------------------------------------------


def test_upgrade_from_version_1_keeps_every_row(
    target: Target, cli: Cli, statements: list[str]
) -> None:
    async def version_1() -> None:
        async with target.adapter() as adapter:
            result = await target.migrator(adapter).init(target=1)
        assert (result.before, result.after) == (0, 1)

    run(version_1)
    tokens = run(lambda: _fill(target, users=3))
    counts = run(lambda: _counts(target))
    assert set(counts.values()) == {3}
    assert ["expires"] not in indexed(target, "sessions")

    status = cli("status", target)
    assert f"at version 1 of {LATEST_VERSION}: {LATEST_VERSION - 1} migrations pending" in (
        status.out
    )

    statements.clear()
    done = cli("upgrade", target)
    assert done.code == 0, done.err
    assert f"upgraded from version 1 to {LATEST_VERSION}" in done.out
    assert MIGRATIONS[1].description in done.out
    assert any("CREATE INDEX" in statement.upper() for statement in statements)
    assert not destructive(statements), destructive(statements)

    assert run(lambda: _counts(target)) == counts
    emails = run(lambda: _sessions_readable(target, tokens, "text"))
    assert emails == [f"user{n}@example.com" for n in range(3)]
    assert_at_latest(target)

    again = cli("upgrade", target)
    assert again.code == 0
    assert "already up to date" in again.out


@pytest.mark.parametrize("target", ["postgresql", "mariadb"], indirect=True)
def test_concurrent_runs_apply_each_step_once(target: Target) -> None:
    async def race(step: str) -> list[MigrationResult]:
        adapters = [target.adapter() for _ in range(3)]
        try:
            migrators = [target.migrator(adapter) for adapter in adapters]
            if step == "init":
                runs = [migrator.init(target=1) for migrator in migrators]
            else:
                runs = [migrator.upgrade() for migrator in migrators]
            return await asyncio.gather(*runs)
        finally:
            for adapter in adapters:
                await adapter.close()

    inits = run(lambda: race("init"))
    assert sum(len(result.applied) for result in inits) == 1
    assert versions(target) == [1]
    upgrades = run(lambda: race("upgrade"))
    assert sum(len(result.applied) for result in upgrades) == LATEST_VERSION - 1
    assert_at_latest(target)


def test_upgrade_before_init_says_to_init(sqlite_target: Target, cli: Cli) -> None:
    done = cli("upgrade", sqlite_target)
    assert done.code == 1
    assert "authui db init" in done.err
    assert not run(lambda: _has_table(sqlite_target, DEFAULT_VERSION_TABLE))


def test_a_database_newer_than_authui_is_not_touched(sqlite_target: Target, cli: Cli) -> None:
    assert cli("init", sqlite_target).code == 0

    async def from_the_future() -> None:
        async with sqlite_target.adapter() as adapter, adapter.engine.begin() as conn:
            table = sqlite_target.migrator(adapter).version_table
            await conn.execute(
                insert(table).values(version=99, description="x", applied_at=datetime.now(UTC))
            )

    run(from_the_future)
    status = cli("status", sqlite_target)
    assert "newer than this authui" in status.out
    done = cli("upgrade", sqlite_target)
    assert done.code == 1
    assert "upgrade authui" in done.err


# adopt ------------------------------------------------------------------------------


def test_adopt_an_authjs_database_in_one_command(
    target: Target, cli: Cli, statements: list[str]
) -> None:
    """``init --adopt`` on Auth.js's tables: one command adds authui's own tables, takes
    the id type the users table has, and changes nothing in Auth.js's tables (no column,
    no index, no row: their own migration tool finds no change it did not make)."""
    run(lambda: _create_authjs_tables(target))
    counts = run(lambda: _counts(target))
    authjs = ("users", "accounts", "sessions", "verification_token", "authenticators")
    indexes = {table: indexed(target, table) for table in authjs}
    if target.id_type == "integer":  # an id type given must be the one that is there
        wrong = cli("init", target, "--adopt", "--id-type", "text")
        assert wrong.code == 1
        assert "holds integer ids" in wrong.err
    statements.clear()

    adopted = cli("init", target, "--adopt")
    assert adopted.code == 0, adopted.err
    assert "adopted the existing Auth.js tables, leaving them as they are" in adopted.out
    assert f"brought the schema to version {LATEST_VERSION}" in adopted.out
    assert versions(target) == list(range(1, LATEST_VERSION + 1))
    assert f"up to date at version {LATEST_VERSION}" in cli("status", target).out
    assert_authui_tables(target)
    assert {table: indexed(target, table) for table in authjs} == indexes
    names = [target.naming.table(table) for table in authjs]
    touched = [s for s in statements if re.search(r"\b(ALTER|CREATE INDEX)\b", s, re.I)]
    assert not [s for s in touched if any(name in s for name in names)], touched
    assert not destructive(statements), destructive(statements)
    assert run(lambda: _counts(target)) == counts
    emails = run(lambda: _sessions_readable(target, ["session-41"], target.id_type))
    assert emails == ["fill@murray.com"]


def test_adopt_refuses_tables_that_lack_columns(target: Target, cli: Cli) -> None:
    run(lambda: _create_authjs_tables(target, without=(("sessions", "sessionToken"),)))
    done = cli("init", target, "--adopt", "--id-type", target.id_type)
    assert done.code == 1
    assert "cannot adopt" in done.err
    assert f"{target.naming.sessions} lacks sessionToken" in done.err
    assert not run(lambda: _has_table(target, target.prefix + DEFAULT_VERSION_TABLE))


def test_adopt_creates_a_missing_authenticators_table(sqlite_target: Target, cli: Cli) -> None:
    run(lambda: _create_authjs_tables(sqlite_target, skip=("authenticators",)))
    done = cli("init", sqlite_target, "--adopt")
    assert done.code == 0, done.err
    assert "created authenticators" in done.out
    assert run(lambda: _has_table(sqlite_target, "authenticators"))
    assert versions(sqlite_target) == list(range(1, LATEST_VERSION + 1))
    assert_authui_tables(sqlite_target)


def test_adopt_tables_made_by_create_all(sqlite_target: Target, cli: Cli) -> None:
    async def create_all() -> None:
        async with sqlite_target.adapter() as adapter:
            await adapter.create_all()

    run(create_all)
    assert "unversioned" in cli("status", sqlite_target).out
    assert cli("init", sqlite_target, "--adopt").code == 0
    assert "already up to date" in cli("upgrade", sqlite_target).out
    assert versions(sqlite_target) == list(range(1, LATEST_VERSION + 1))
    assert_authui_tables(sqlite_target)


def test_adopt_on_an_empty_database_simply_initialises(sqlite_target: Target, cli: Cli) -> None:
    done = cli("init", sqlite_target, "--adopt")
    assert done.code == 0
    assert "initialised the authui schema" in done.out
    assert_at_latest(sqlite_target)


# options, environment, errors -------------------------------------------------------


def test_integer_ids_and_a_table_prefix(tmp_path: Path, cli: Cli) -> None:
    target = Target("sqlite", f"sqlite+aiosqlite:///{tmp_path / 'auth.db'}", prefix="app_")
    done = cli("init", target, "--id-type", "integer")
    assert done.code == 0, done.err
    assert "table prefix app_" in done.out
    assert run(lambda: _has_table(target, "app_authui_schema"))
    assert run(lambda: _has_table(target, "app_users"))
    assert not run(lambda: _has_table(target, "users"))

    async def create_user() -> str:
        async with target.adapter("integer") as adapter:
            user = await adapter.create_user(
                AdapterUser(id="", email="a@example.com", email_verified=None)
            )
        return user.id

    assert run(create_user) == "1"


def test_the_url_can_come_from_the_environment(
    sqlite_target: Target, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AUTH_DATABASE_URL", sqlite_target.url.replace("+aiosqlite", ""))
    assert cli("init", None).code == 0
    done = cli("status", None)
    assert done.code == 0
    assert "up to date" in done.out
    assert "sqlite+aiosqlite://" in done.out  # the async driver was filled in


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql+asyncpg://postgres:secret@127.0.0.1:1/test", "cannot reach"),
        ("postgresql://postgres@127.0.0.1:1/test", "cannot reach"),
        ("mysql+asyncmy://root@127.0.0.1:1/test", "Can't connect"),
        ("not a url", "not a database URL"),
        ("postgresql+asyncpg://postgres@127.0.0.1:port/test", "not a database URL"),
        ("nosuchdb+driver://x/y", "unknown database driver"),
        ("postgresql+nosuchdriver://x/y", "unknown database driver"),
        ("sqlite+aiosqlite:////nonexistent-dir/auth.db", "/nonexistent-dir does not exist"),
    ],
)
@pytest.mark.parametrize("command", ["init", "upgrade", "status"])
def test_errors_are_one_line_on_stderr(
    command: str, url: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["db", command, "--url", url])
    out = capsys.readouterr()
    assert code == 1
    assert out.out == ""
    assert out.err.startswith(f"authui db {command}: error: ")
    assert message in out.err
    assert out.err.count("\n") == 1
    assert "Traceback" not in out.err
    assert "secret" not in out.err  # passwords are hidden


def test_no_url_at_all(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AUTH_DATABASE_URL", raising=False)
    done = cli("status", None)
    assert done.code == 1
    assert "pass --url or set AUTH_DATABASE_URL" in done.err


def test_a_missing_schema_is_reported(postgres_url: str, cli: Cli) -> None:
    target = Target("postgresql", postgres_url, schema=unique("missing_"))
    done = cli("init", target)
    assert done.code == 1
    assert "does not exist" in done.err


def test_status_as_a_subprocess(sqlite_target: Target, cli: Cli) -> None:
    assert cli("init", sqlite_target).code == 0
    done = subprocess.run(
        [sys.executable, "-m", "authui.cli", "db", "status", "--url", sqlite_target.url],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"up to date at version {LATEST_VERSION}")
    assert done.stderr == ""


def test_secret_still_works(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["secret", "--raw"]) == 0
    assert len(capsys.readouterr().out.strip()) == 43


# The migration list ----------------------------------------------------------------


def test_migrations_are_numbered_in_order_and_only_add() -> None:
    assert [m.version for m in MIGRATIONS] == list(range(1, LATEST_VERSION + 1))
    assert LATEST_VERSION >= 2
    assert all(m.description for m in MIGRATIONS)


def test_a_migration_list_must_start_at_1_without_gaps(sqlite_target: Target) -> None:
    adapter = sqlite_target.adapter()
    step = MIGRATIONS[0].apply
    with pytest.raises(ValueError, match="versions 1, 2"):
        SchemaMigrator(adapter, migrations=[Migration(1, "a", step), Migration(3, "b", step)])
    with pytest.raises(ValueError, match="versions 1, 2"):
        SchemaMigrator(adapter, migrations=[])
    run(adapter.close)


def test_targets_outside_the_versions_are_refused(sqlite_target: Target) -> None:
    async def go() -> None:
        async with sqlite_target.adapter() as adapter:
            migrator = sqlite_target.migrator(adapter)
            beyond = LATEST_VERSION + 1
            with pytest.raises(MigrationError, match=f"no version {beyond}"):
                await migrator.init(target=beyond)
            await migrator.init()
            with pytest.raises(MigrationError, match="downgrading"):
                await migrator.upgrade(target=1)

    run(go)


def test_index_names_fit_every_database() -> None:
    assert _index_name("sessions", "expires") == "ix_sessions_expires"
    long = _index_name("a" * 80, "expires")
    assert len(long) <= 60
    assert long != _index_name("a" * 81, "expires")


def test_status_lines() -> None:
    pending = MIGRATIONS[1:2]
    assert "not initialised" in SchemaStatus(0, 2, (), MIGRATIONS).describe()
    assert "unversioned" in SchemaStatus(0, 2, ("users",), MIGRATIONS).describe()
    two = (MIGRATIONS[1], MIGRATIONS[1])
    assert "2 migrations pending" in SchemaStatus(1, 3, ("users",), two).describe()
    assert "1 migration pending" in SchemaStatus(1, 2, ("users",), pending).describe()
    assert SchemaStatus(2, 2, ("users",), ()).describe() == "up to date at version 2"
