"""``SQLAlchemyAdapter`` on SQLite, PostgreSQL and MariaDB.

The conformance suite runs on each database in authui's schema (text ids) and, on
PostgreSQL and MariaDB, in Auth.js's own schema (``SERIAL`` ids, created here with raw
DDL, next to which ``create_all`` adds authui's own tables). PostgreSQL tables live in a
schema made for this test session, MariaDB tables under a table-name prefix made for it;
both are dropped at the end, and every table is emptied before each test. Servers come
from ``AUTHUI_TEST_POSTGRES_URL`` and ``AUTHUI_TEST_MARIADB_URL`` (see ``conftest.py``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, TypeVar

import pytest
from sqlalchemy import delete, event, func, inspect, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import AsyncAdaptedQueuePool

from authui.adapters.account import (
    SECURITY_EVENT_DAYS,
    PasskeyDetails,
    SecurityEvent,
    SessionDetails,
    UserSession,
)
from authui.adapters.base import (
    AdapterAccount,
    AdapterAuthenticator,
    AdapterSession,
    AdapterUser,
    Challenge,
    VerificationToken,
)
from authui.adapters.factors import MfaEnrolment, PasswordRecord, TrustedBrowser
from authui.adapters.sql.migrations import (
    DEFAULT_VERSION_TABLE,
    LATEST_VERSION,
    MIGRATIONS,
    SchemaMigrator,
)
from authui.adapters.sql.schema import to_utc
from authui.adapters.sqlalchemy import IdType, SQLAlchemyAdapter, SQLNaming
from authui.cli import main
from authui.testing import AdapterConformance
from tests.adapters.conftest import RateLimitClock
from tests.peers.authjs_schema import AUTHJS_MARIADB_DDL, AUTHJS_POSTGRES_DDL

_T = TypeVar("_T")


def run(make: Callable[[], Awaitable[_T]]) -> _T:
    """Run a coroutine to completion on a loop of its own, in a thread of its own, so that
    session fixtures never touch the tests' event loops."""

    async def main() -> _T:
        return await make()

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, main()).result()


def unique(prefix: str = "authui_") -> str:
    return f"{prefix}{uuid.uuid4().hex[:10]}"


@dataclass(frozen=True)
class Database:
    """Tables made for this test session: where, under which names, with which ids."""

    url: str
    naming: SQLNaming
    id_type: IdType = "text"
    engine_options: dict[str, Any] = field(default_factory=dict)

    def adapter(self) -> SQLAlchemyAdapter:
        return SQLAlchemyAdapter(
            self.url, naming=self.naming, id_type=self.id_type, engine_options=self.engine_options
        )

    async def empty_adapter(self) -> SQLAlchemyAdapter:
        """A new adapter (own engine) over the tables, emptied."""
        adapter = self.adapter()
        async with adapter.engine.begin() as conn:
            for table in adapter.tables.metadata.sorted_tables:
                await conn.execute(delete(table))
        return adapter


# Rows as an Auth.js app writes them: user 41 with an account, a session, a sign-in
# token and a passkey; user 42 without email (signed in through Twitter/X).
AUTHJS_INSERTS = (
    'INSERT INTO {users} (id, name, email, "emailVerified", image) '
    "VALUES (41, 'Fill Murray', 'fill@murray.com', :verified, 'https://x/f.png')",
    "INSERT INTO {users} (id, name) VALUES (42, 'Bill Murray')",
    'INSERT INTO {accounts} ("userId", type, provider, "providerAccountId", access_token, '
    "expires_at, token_type, scope, id_token, refresh_token, session_state) "
    "VALUES (41, 'oidc', 'google', '1170', 'ya29', 1900000000, 'bearer', 'openid', 'eyJ', "
    "NULL, NULL)",
    'INSERT INTO {sessions} ("userId", expires, "sessionToken") '
    "VALUES (41, :expires, 'session-41')",
    "INSERT INTO {verification_token} (identifier, expires, token) "
    "VALUES ('fill@murray.com', :expires, 'hashed')",
    'INSERT INTO {authenticators} ("credentialID", "userId", "providerAccountId", '
    '"credentialPublicKey", counter, "credentialDeviceType", "credentialBackedUp", '
    "transports) VALUES ('cred-41', 41, 'cred-41', 'pQEC', 5, 'singleDevice', false, "
    "'usb,nfc')",
)


async def create_authjs_tables(database: Database) -> None:
    adapter = database.adapter()
    preparer = adapter.engine.dialect.identifier_preparer
    ddl = AUTHJS_POSTGRES_DDL if adapter.engine.dialect.name == "postgresql" else AUTHJS_MARIADB_DDL
    names = {
        table: preparer.format_table(getattr(adapter.tables, attribute))
        for table, attribute in (
            ("users", "users"),
            ("accounts", "accounts"),
            ("sessions", "sessions"),
            ("verification_token", "verification_tokens"),
            ("authenticators", "authenticators"),
        )
    }
    async with adapter:
        async with adapter.engine.begin() as conn:
            for statement in ddl:
                await conn.execute(text(statement.format(**names)))
        await adapter.create_all()  # adds authui's tables, leaves Auth.js's as they are


async def drop_tables(database: Database) -> None:
    async with database.adapter() as adapter:
        await adapter.drop_all()


# Session fixtures: one schema (PostgreSQL) or prefix (MariaDB) per test session -------


@pytest.fixture(scope="session")
def pg_schema(postgres_url: str) -> Iterator[str]:
    """A PostgreSQL schema of this test session's own, dropped with its tables after it."""
    schema = unique("authui_test_")

    async def execute(statement: str) -> None:
        engine = create_async_engine(postgres_url)
        async with engine.begin() as conn:
            await conn.execute(text(statement))
        await engine.dispose()

    run(lambda: execute(f'CREATE SCHEMA "{schema}"'))
    yield schema
    run(lambda: execute(f'DROP SCHEMA "{schema}" CASCADE'))


@pytest.fixture(scope="session")
def pg_database(postgres_url: str, pg_schema: str) -> Database:
    database = Database(postgres_url, SQLNaming(schema=pg_schema))
    run(lambda: create_all(database))
    return database


@pytest.fixture(scope="session")
def pg_authjs_database(postgres_url: str, pg_schema: str) -> Database:
    database = Database(postgres_url, SQLNaming(schema=pg_schema).prefixed("authjs_"), "integer")
    run(lambda: create_authjs_tables(database))
    return database


@pytest.fixture(scope="session")
def mariadb_database(mariadb_url: str) -> Iterator[Database]:
    database = Database(mariadb_url, SQLNaming().prefixed(unique() + "_"))
    run(lambda: create_all(database))
    yield database
    run(lambda: drop_tables(database))


@pytest.fixture(scope="session")
def mariadb_authjs_database(mariadb_url: str) -> Iterator[Database]:
    database = Database(mariadb_url, SQLNaming().prefixed(unique() + "_authjs_"), "integer")
    run(lambda: create_authjs_tables(database))
    yield database
    run(lambda: drop_tables(database))


async def create_all(database: Database) -> None:
    async with database.adapter() as adapter:
        await adapter.create_all()


# The conformance suite --------------------------------------------------------------


class TestSQLiteAdapter(AdapterConformance):
    """authui's schema in a SQLite file: the pool of connections, ``DELETE … RETURNING``."""

    @pytest.fixture
    async def adapter(self, tmp_path: Path) -> AsyncIterator[SQLAlchemyAdapter]:
        async with SQLAlchemyAdapter(f"sqlite+aiosqlite:///{tmp_path / 'auth.db'}") as adapter:
            await adapter.create_all()
            yield adapter


class TestSQLiteMemoryAdapter(AdapterConformance):
    """SQLite in memory: one shared connection, so the adapter serialises its calls."""

    @pytest.fixture
    async def adapter(self) -> AsyncIterator[SQLAlchemyAdapter]:
        async with SQLAlchemyAdapter("sqlite+aiosqlite://") as adapter:
            await adapter.create_all()
            yield adapter


class TestPostgresAdapter(AdapterConformance):
    """authui's schema (text ids) in PostgreSQL."""

    @pytest.fixture
    async def adapter(self, pg_database: Database) -> AsyncIterator[SQLAlchemyAdapter]:
        async with await pg_database.empty_adapter() as adapter:
            yield adapter


class TestPostgresAuthJSSchema(AdapterConformance):
    """Auth.js's PostgreSQL schema, made with its own DDL: ``SERIAL`` ids, no constraints."""

    @pytest.fixture
    async def adapter(self, pg_authjs_database: Database) -> AsyncIterator[SQLAlchemyAdapter]:
        async with await pg_authjs_database.empty_adapter() as adapter:
            yield adapter


class TestMariaDBAdapter(AdapterConformance):
    """authui's schema (text ids, binary collation) in MariaDB."""

    @pytest.fixture
    async def adapter(self, mariadb_database: Database) -> AsyncIterator[SQLAlchemyAdapter]:
        async with await mariadb_database.empty_adapter() as adapter:
            yield adapter


class TestMariaDBAuthJSSchema(AdapterConformance):
    """Auth.js's schema in MariaDB: integer ids, ``DATETIME(3)``, no ``UPDATE … RETURNING``."""

    @pytest.fixture
    async def adapter(self, mariadb_authjs_database: Database) -> AsyncIterator[SQLAlchemyAdapter]:
        async with await mariadb_authjs_database.empty_adapter() as adapter:
            yield adapter


# Fixtures for the focused tests ------------------------------------------------------

SERVERS = ["sqlite", "postgresql", "mariadb"]


@pytest.fixture(params=SERVERS)
def server(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str | None]:
    """``(url, schema)`` of each database, for tests that make tables of their own."""
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'auth.db'}", None
    if request.param == "postgresql":
        return request.getfixturevalue("postgres_url"), request.getfixturevalue("pg_schema")
    return request.getfixturevalue("mariadb_url"), None


@pytest.fixture
async def own_tables(
    server: tuple[str, str | None],
) -> AsyncIterator[Callable[..., Awaitable[SQLAlchemyAdapter]]]:
    """``await make(naming=…, id_type=…, engine_options=…)``: an adapter over tables
    created for this test under a fresh prefix; they are dropped afterwards."""
    url, schema = server
    made: list[SQLAlchemyAdapter] = []

    async def make(
        naming: SQLNaming | None = None,
        id_type: IdType = "text",
        engine_options: dict[str, Any] | None = None,
    ) -> SQLAlchemyAdapter:
        naming = dataclasses.replace(naming or SQLNaming(), schema=schema)
        naming = naming.prefixed(unique("t") + "_")
        adapter = SQLAlchemyAdapter(
            url, naming=naming, id_type=id_type, engine_options=engine_options
        )
        made.append(adapter)
        await adapter.create_all()
        return adapter

    yield make
    for adapter in made:
        await adapter.drop_all()
        await adapter.close()


@pytest.fixture(params=["postgresql", "mariadb"])
async def authjs_adapter(request: pytest.FixtureRequest) -> AsyncIterator[SQLAlchemyAdapter]:
    """An empty adapter over Auth.js's schema (raw DDL, integer ids) on each server."""
    name = "pg_authjs_database" if request.param == "postgresql" else "mariadb_authjs_database"
    database: Database = request.getfixturevalue(name)
    async with await database.empty_adapter() as adapter:
        yield adapter


def make_user(**fields: Any) -> AdapterUser:
    key = uuid.uuid4().hex[:12]
    values: dict[str, Any] = {
        "id": str(uuid.uuid4()),
        "email": f"ada.{key}@example.com",
        "email_verified": datetime(2024, 5, 1, 12, 0, 0, 123_456, tzinfo=UTC),
        "name": "Ada",
        "image": None,
    }
    return AdapterUser(**values | fields)


def make_account(user_id: str, **fields: Any) -> AdapterAccount:
    values: dict[str, Any] = {
        "user_id": user_id,
        "type": "oauth",
        "provider": "github",
        "provider_account_id": uuid.uuid4().hex,
        "access_token": "gho_access",
        "expires_at": 1_900_000_000,
        "token_type": "bearer",
        "scope": "read:user",
    }
    return AdapterAccount(**values | fields)


def make_authenticator(user_id: str, credential_id: str | None = None) -> AdapterAuthenticator:
    credential_id = credential_id or uuid.uuid4().hex
    return AdapterAuthenticator(
        credential_id=credential_id,
        user_id=user_id,
        provider_account_id=credential_id,
        counter=3,
        credential_backed_up=True,
        credential_public_key="pQECAyYgASFYIA==",
        credential_device_type="multiDevice",
        transports="internal",
    )


def in_days(days: float) -> datetime:
    return datetime.now(UTC) + timedelta(days=days)


# Auth.js schema compatibility ---------------------------------------------------------


async def test_rows_written_by_authjs_are_read(authjs_adapter: SQLAlchemyAdapter) -> None:
    adapter = authjs_adapter
    t = adapter.tables
    preparer = adapter.engine.dialect.identifier_preparer
    on_postgres = adapter.engine.dialect.name == "postgresql"
    verified = datetime(2024, 5, 1, 12, 0, 0, 123_000, tzinfo=UTC)
    expires = datetime(2031, 1, 2, 3, 4, 5, 678_000, tzinfo=UTC)

    def stored(value: datetime) -> datetime:  # what the Auth.js app's driver writes
        return value if on_postgres else value.replace(tzinfo=None)

    names = {
        "users": preparer.format_table(t.users),
        "accounts": preparer.format_table(t.accounts),
        "sessions": preparer.format_table(t.sessions),
        "verification_token": preparer.format_table(t.verification_tokens),
        "authenticators": preparer.format_table(t.authenticators),
    }
    async with adapter.engine.begin() as conn:
        for template in AUTHJS_INSERTS:
            statement = template.format(**names)
            if not on_postgres:
                statement = statement.replace('"', "`")
            await conn.execute(
                text(statement), {"verified": stored(verified), "expires": stored(expires)}
            )

    user = AdapterUser(
        id="41",
        email="fill@murray.com",
        email_verified=verified,
        name="Fill Murray",
        image="https://x/f.png",
    )
    account = AdapterAccount(
        user_id="41",
        type="oidc",
        provider="google",
        provider_account_id="1170",
        access_token="ya29",
        expires_at=1_900_000_000,
        token_type="bearer",
        scope="openid",
        id_token="eyJ",
    )
    session = AdapterSession(session_token="session-41", user_id="41", expires=expires)
    authenticator = AdapterAuthenticator(
        credential_id="cred-41",
        user_id="41",
        provider_account_id="cred-41",
        counter=5,
        credential_backed_up=False,
        credential_public_key="pQEC",
        credential_device_type="singleDevice",
        transports="usb,nfc",
    )
    assert await adapter.get_user("41") == user
    assert await adapter.get_user("42") == AdapterUser(id="42", name="Bill Murray")
    assert await adapter.get_user_by_email("fill@murray.com") == user
    assert await adapter.get_user_by_account("google", "1170") == user
    assert await adapter.get_account("1170", "google") == account
    assert await adapter.get_session_and_user("session-41") == (session, user)
    assert await adapter.get_authenticator("cred-41") == authenticator
    assert await adapter.list_authenticators_by_user_id("41") == [authenticator]
    assert await adapter.use_verification_token("fill@murray.com", "hashed") == VerificationToken(
        identifier="fill@murray.com", token="hashed", expires=expires
    )
    assert await adapter.update_user("41", {"name": "Bill"}) == AdapterUser(
        id="41", email=user.email, email_verified=verified, name="Bill", image=user.image
    )
    # The account center reads Auth.js's rows, which have no details of authui's.
    assert await adapter.list_user_sessions("41") == [UserSession(session=session, details=None)]
    assert await adapter.get_session_details("session-41") is None
    assert await adapter.list_authenticator_details("41") == []
    assert await adapter.delete_authenticator("cred-41") == authenticator
    assert await adapter.list_authenticators_by_user_id("41") == []
    assert await adapter.delete_user("41") is not None
    assert await adapter.get_session_and_user("session-41") is None
    assert await adapter.get_authenticator("cred-41") is None


async def test_rows_written_by_the_adapter_are_authjs_rows(
    authjs_adapter: SQLAlchemyAdapter,
) -> None:
    adapter = authjs_adapter
    t = adapter.tables
    on_postgres = adapter.engine.dialect.name == "postgresql"
    quote = adapter.engine.dialect.identifier_preparer.quote

    def as_stored(value: datetime) -> datetime:
        return value if on_postgres else value.replace(tzinfo=None)

    verified = datetime(2024, 5, 1, 12, 0, 0, 123_000, tzinfo=UTC)  # DATETIME(3) keeps ms
    user = await adapter.create_user(make_user(id="ignored", email_verified=verified))
    assert user.id.isdigit()
    account = await adapter.link_account(make_account(user.id))
    session = await adapter.create_session(
        AdapterSession(session_token="s-1", user_id=user.id, expires=in_days(30))
    )
    token = await adapter.create_verification_token(
        VerificationToken(identifier="ada@example.com", token="hashed", expires=in_days(1))
    )
    await adapter.create_authenticator(make_authenticator(user.id, "cred-1"))

    async def rows(table: Any, *columns: str) -> list[tuple[Any, ...]]:
        """The rows' values in the columns named as Auth.js names them."""
        async with adapter.engine.connect() as conn:
            query = select(text(", ".join(map(quote, columns)))).select_from(table)
            return [tuple(row) for row in await conn.execute(query)]

    assert await rows(t.users, "id", "name", "email", "emailVerified", "image") == [
        (int(user.id), "Ada", user.email, as_stored(verified), None)
    ]
    assert await rows(
        t.accounts, "userId", "type", "provider", "providerAccountId", "expires_at"
    ) == [(int(user.id), "oauth", "github", account.provider_account_id, 1_900_000_000)]
    [(session_user, session_token, session_expires)] = await rows(
        t.sessions, "userId", "sessionToken", "expires"
    )
    assert (session_user, session_token) == (int(user.id), "s-1")
    assert isinstance(session_expires, datetime)
    assert (session_expires.tzinfo is not None) == on_postgres  # MariaDB: UTC, zoneless
    assert abs(as_stored(session.expires) - session_expires) < timedelta(milliseconds=1)
    [(identifier, hashed, token_expires)] = await rows(
        t.verification_tokens, "identifier", "token", "expires"
    )
    assert (identifier, hashed) == (token.identifier, "hashed")
    assert abs(as_stored(token.expires) - token_expires) < timedelta(milliseconds=1)
    assert await rows(
        t.authenticators, "credentialID", "userId", "counter", "credentialBackedUp"
    ) == [("cred-1", int(user.id), 3, True)]


async def test_integer_ids(authjs_adapter: SQLAlchemyAdapter) -> None:
    adapter = authjs_adapter
    first = await adapter.create_user(make_user(id="7"))
    second = await adapter.create_user(make_user())
    assert first.id.isdigit()
    assert second.id.isdigit()
    assert int(second.id) > int(first.id)
    for unknown in ("abc", str(uuid.uuid4()), "-1", "1.5", "", "٣", str(2**40)):
        assert await adapter.get_user(unknown) is None
        assert await adapter.delete_user(unknown) is None
        assert await adapter.list_authenticators_by_user_id(unknown) == []
    with pytest.raises(ValueError, match="not an integer"):
        await adapter.link_account(make_account("abc"))
    with pytest.raises(KeyError):
        await adapter.update_user("abc", {"name": "x"})


async def test_token_updates_and_logout_in_authjs_tables(authjs_adapter: SQLAlchemyAdapter) -> None:
    """``update_account`` writes Auth.js's own ``accounts`` columns, and
    ``delete_user_sessions`` finds sessions by integer user ids (a non-number finds none)."""
    adapter = authjs_adapter
    user = await adapter.create_user(make_user(id="ignored"))
    other = await adapter.create_user(make_user(id="ignored"))
    account = await adapter.link_account(make_account(user.id, refresh_token="rt-1"))
    changes: dict[str, Any] = {
        "access_token": "at-2",
        "refresh_token": "rt-2",
        "expires_at": 1_900_003_600,
    }
    updated = await adapter.update_account("github", account.provider_account_id, changes)
    assert updated == dataclasses.replace(account, **changes)
    quote = adapter.engine.dialect.identifier_preparer.quote
    async with adapter.engine.connect() as conn:
        columns = ", ".join(map(quote, ("access_token", "refresh_token", "expires_at")))
        query = select(text(columns)).select_from(adapter.tables.accounts)
        assert [tuple(row) for row in await conn.execute(query)] == [
            ("at-2", "rt-2", 1_900_003_600)
        ]
    for n, owner in enumerate((user, user, other)):
        await adapter.create_session(
            AdapterSession(session_token=f"s-{n}", user_id=owner.id, expires=in_days(1))
        )
    assert await adapter.delete_user_sessions("abc") == 0
    assert await adapter.delete_user_sessions(user.id) == 2
    assert await adapter.get_session_and_user("s-2") is not None


# Users without an email --------------------------------------------------------------


async def test_email_is_nullable_and_unique_among_addresses(
    own_tables: Callable[..., Awaitable[SQLAlchemyAdapter]],
) -> None:
    """``users.email`` is NULL for users without email, any number of them (the schema
    ``create_all`` has always made); an address is still unique."""
    adapter = await own_tables()
    users = adapter.tables.users

    def email_nullable(sync_conn: Any) -> bool:
        columns = inspect(sync_conn).get_columns(users.name, schema=users.schema)
        return bool(next(c for c in columns if c["name"] == "email")["nullable"])

    async with adapter.engine.connect() as conn:
        assert await conn.run_sync(email_nullable)
    for _ in range(2):
        await adapter.create_user(make_user(email=None, email_verified=None))
    async with adapter.engine.connect() as conn:
        query = select(func.count()).select_from(users).where(users.c.email.is_(None))
        assert (await conn.execute(query)).scalar_one() == 2
    await adapter.create_user(make_user(email="ada@example.com"))
    with pytest.raises(IntegrityError):
        await adapter.create_user(make_user(email="ada@example.com"))


# A new user with its first account ---------------------------------------------------


async def test_a_new_user_and_its_account_are_one_transaction(
    own_tables: Callable[..., Awaitable[SQLAlchemyAdapter]],
) -> None:
    """``create_user_and_account`` with integer ids: the account gets the id the database
    gave the user; an account that is linked already refuses both rows."""
    adapter = await own_tables(id_type="integer")
    stored, linked = await adapter.create_user_and_account(
        make_user(id="ignored"), make_account("ignored", provider_account_id="gh-1")
    )
    assert stored.id.isdigit()
    assert linked.user_id == stored.id
    assert await adapter.get_user_by_account("github", "gh-1") == stored

    newcomer = make_user(id="ignored")
    with pytest.raises(IntegrityError):
        await adapter.create_user_and_account(
            newcomer, make_account("ignored", provider_account_id="gh-1")
        )
    assert newcomer.email is not None
    assert await adapter.get_user_by_email(newcomer.email) is None
    async with adapter.engine.connect() as conn:
        users = await conn.scalar(select(func.count()).select_from(adapter.tables.users))
    assert users == 1, "a user without its account"


# Naming -----------------------------------------------------------------------------


async def test_table_and_column_names_are_configurable(
    own_tables: Callable[..., Awaitable[SQLAlchemyAdapter]],
) -> None:
    naming = SQLNaming.snake_case(users="people", verification_tokens="magic_links")
    naming = SQLNaming(
        users=naming.users,
        verification_tokens=naming.verification_tokens,
        challenges="passkey_challenges",
        leases="refresh_leases",
        passkeys="passkey_names",
        security_events="account_activity",
        passwords="password_hashes",
        trusted_browsers="remembered_browsers",
        columns={**naming.columns, "sessions.expires": "expires_at_utc"},
    )
    adapter = await own_tables(naming)
    t = adapter.tables
    assert t.users.name.endswith("_people")
    assert t.verification_tokens.name.endswith("_magic_links")

    def describe(sync_conn: Any) -> dict[str, set[str]]:
        inspector = inspect(sync_conn)
        return {
            table.name: {c["name"] for c in inspector.get_columns(table.name, schema=table.schema)}
            for table in t.metadata.sorted_tables
        }

    async with adapter.engine.connect() as conn:
        columns = await conn.run_sync(describe)
    assert columns[t.users.name] == {"id", "name", "email", "email_verified", "image"}
    assert columns[t.sessions.name] == {"id", "user_id", "expires_at_utc", "session_token"}
    assert {"user_id", "provider_account_id", "refresh_token"} <= columns[t.accounts.name]
    assert {"credential_id", "credential_public_key"} <= columns[t.authenticators.name]
    assert columns[t.verification_tokens.name] == {"identifier", "token", "expires"}
    assert t.rate_limits.name.endswith("_rate_limits")
    assert columns[t.rate_limits.name] == {"key", "window_seconds", "window", "count", "expires"}
    assert t.challenges.name.endswith("_passkey_challenges")
    assert columns[t.challenges.name] == {"key", "expires"}
    assert t.leases.name.endswith("_refresh_leases")
    assert columns[t.leases.name] == {"key", "holder", "expires"}
    assert t.session_details.name.endswith("_authui_session_details")
    assert columns[t.session_details.name] == {
        "session_token",
        "user_id",
        "expires",
        "created",
        "last_seen",
        "auth_time",
        "amr",
        "user_agent",
        "client",
    }
    assert t.passkeys.name.endswith("_passkey_names")
    assert columns[t.passkeys.name] == {"credential_id", "user_id", "name", "created", "last_used"}
    assert t.security_events.name.endswith("_account_activity")
    assert columns[t.security_events.name] == {
        "id",
        "user_id",
        "kind",
        "at",
        "provider",
        "client",
        "user_agent",
        "detail",
    }
    assert t.session_versions.name.endswith("_authui_session_versions")
    assert columns[t.session_versions.name] == {"user_id", "version"}
    assert t.passwords.name.endswith("_password_hashes")
    assert columns[t.passwords.name] == {"user_id", "hash", "updated"}
    assert t.mfa.name.endswith("_authui_mfa")
    assert columns[t.mfa.name] == {
        "user_id",
        "created",
        "totp_secret",
        "totp_last_step",
        "passkey",
    }
    assert t.recovery_codes.name.endswith("_authui_recovery_codes")
    assert columns[t.recovery_codes.name] == {"user_id", "code_hash"}
    assert t.trusted_browsers.name.endswith("_remembered_browsers")
    assert columns[t.trusted_browsers.name] == {
        "browser_id",
        "user_id",
        "created",
        "expires",
        "user_agent",
        "client",
    }

    user = await adapter.create_user(make_user())
    await adapter.link_account(make_account(user.id))
    session = AdapterSession(session_token="s", user_id=user.id, expires=in_days(1))
    await adapter.create_session(session)
    authenticator = await adapter.create_authenticator(make_authenticator(user.id))
    now = datetime.now(UTC)
    details = SessionDetails(
        session_token="s",
        user_id=user.id,
        expires=session.expires,
        created=now,
        last_seen=now,
        auth_time=now,
        amr=("pwd",),
    )
    await adapter.save_session_details(details)
    await adapter.save_authenticator_details(
        PasskeyDetails(credential_id=authenticator.credential_id, user_id=user.id, name="key")
    )
    await adapter.record_security_event(SecurityEvent(user_id=user.id, kind="sign-in", at=now))
    await adapter.bump_session_version(user.id)
    await adapter.set_password(PasswordRecord(user_id=user.id, hash="$argon2id$h", updated=now))
    await adapter.save_mfa(MfaEnrolment(user_id=user.id, created=now, totp_secret="s"))
    await adapter.replace_recovery_codes(user.id, ["c" * 64])
    browser = TrustedBrowser(browser_id="b", user_id=user.id, created=now, expires=in_days(1))
    await adapter.save_trusted_browser(browser)
    assert await adapter.list_trusted_browsers(user.id) == [browser]
    assert await adapter.list_user_sessions(user.id) == [
        UserSession(session=session, details=details)
    ]
    assert await adapter.get_session_and_user("s") == (session, user)
    async with adapter.engine.connect() as conn:
        stored = (await conn.execute(select(t.sessions.c.expires))).scalar_one()
    assert to_utc(stored) == session.expires
    assert await adapter.delete_user(user.id) == user
    async with adapter.engine.connect() as conn:
        for table in t.metadata.sorted_tables:
            # the session version stays, to end the user's JWT sessions once bumped
            expected = [(user.id, 1)] if table is t.session_versions else []
            assert [tuple(row) for row in (await conn.execute(select(table))).all()] == expected


def test_naming_rejects_unknown_columns() -> None:
    with pytest.raises(ValueError, match="emailverified"):
        SQLNaming(columns={"emailverified": "email_verified"})
    with pytest.raises(ValueError, match=r"users\.userId"):
        SQLNaming(columns={"users.userId": "user_id"})
    naming = SQLNaming(columns={"userId": "uid", "accounts.userId": "owner"})
    assert naming.column("accounts", "userId") == "owner"
    assert naming.column("sessions", "userId") == "uid"
    assert naming.column("users", "email") == "email"


# Verification tokens under concurrency ----------------------------------------------


@pytest.mark.parametrize("returning", [True, False], ids=["delete-returning", "select-delete"])
@pytest.mark.parametrize("server", ["postgresql", "mariadb", "sqlite"], indirect=True)
async def test_use_verification_token_races(
    own_tables: Callable[..., Awaitable[SQLAlchemyAdapter]],
    monkeypatch: pytest.MonkeyPatch,
    returning: bool,
) -> None:
    """20 tokens, 50 racers each, from two adapters (two pools): one winner per token."""
    first = await own_tables()
    second = SQLAlchemyAdapter(first.engine.url, naming=first.naming)
    async with second:
        await second.get_user("warm-up")  # the dialect learns the server's features now
        for adapter in (first, second):
            monkeypatch.setattr(adapter.engine.dialect, "delete_returning", returning)
        tokens = [
            VerificationToken(
                identifier="a@example.com", token=uuid.uuid4().hex, expires=in_days(1)
            )
            for _ in range(20)
        ]
        for token in tokens:
            await first.create_verification_token(token)
        racers = [
            (first if i % 2 else second).use_verification_token(token.identifier, token.token)
            for i in range(50)
            for token in tokens
        ]
        results = await asyncio.gather(*racers)
    winners = [result for result in results if result is not None]
    assert sorted(w.token for w in winners) == sorted(t.token for t in tokens)
    assert all(w == next(t for t in tokens if t.token == w.token) for w in winners)


# Challenges -------------------------------------------------------------------------


@pytest.mark.parametrize("returning", [True, False], ids=["delete-returning", "select-delete"])
@pytest.mark.parametrize("server", ["postgresql", "mariadb", "sqlite"], indirect=True)
async def test_use_challenge_races(
    own_tables: Callable[..., Awaitable[SQLAlchemyAdapter]],
    monkeypatch: pytest.MonkeyPatch,
    returning: bool,
) -> None:
    """10 challenges, 20 racers each, from two adapters (two pools): one winner each."""
    first = await own_tables()
    keys = [uuid.uuid4().hex * 2 for _ in range(10)]
    async with SQLAlchemyAdapter(first.engine.url, naming=first.naming) as second:
        await second.get_user("warm-up")  # the dialect learns the server's features now
        for adapter in (first, second):
            monkeypatch.setattr(adapter.engine.dialect, "delete_returning", returning)
        for key in keys:
            await first.create_challenge(Challenge(key, in_days(1)))
        found = await asyncio.gather(
            *((first if i % 2 else second).use_challenge(key) for i in range(20) for key in keys)
        )
    assert sorted(challenge.key for challenge in found if challenge is not None) == sorted(keys)


async def test_expired_challenges_are_deleted_once_a_minute(
    own_tables: Callable[..., Awaitable[SQLAlchemyAdapter]],
) -> None:
    """Creating a challenge deletes the rows that have expired, at most once a minute per
    adapter."""
    first = await own_tables()
    table = first.tables.challenges

    async def stored() -> list[str]:
        async with first.engine.connect() as conn:
            return sorted((await conn.execute(select(table.c.key))).scalars())

    expired, current = in_days(-1 / 86400), in_days(1)
    await first.create_challenge(Challenge("a" * 64, expired))  # swept with the first create
    assert await stored() == []
    await first.create_challenge(Challenge("b" * 64, expired))  # swept less than a minute ago
    await first.create_challenge(Challenge("c" * 64, current))
    assert await stored() == ["b" * 64, "c" * 64]
    async with SQLAlchemyAdapter(first.engine.url, naming=first.naming) as second:
        await second.create_challenge(Challenge("d" * 64, current))
    assert await stored() == ["c" * 64, "d" * 64]


async def test_challenge_keys_have_at_most_128_characters(
    own_tables: Callable[..., Awaitable[SQLAlchemyAdapter]],
) -> None:
    adapter = await own_tables()
    longest = Challenge("f" * 128, in_days(1))
    await adapter.create_challenge(longest)
    assert await adapter.use_challenge(longest.key) == longest
    with pytest.raises(ValueError, match="at most 128 characters"):
        await adapter.create_challenge(Challenge("f" * 129, in_days(1)))


# Leases -----------------------------------------------------------------------------


async def test_leases_that_ran_out_are_deleted_once_a_minute(
    own_tables: Callable[..., Awaitable[SQLAlchemyAdapter]],
) -> None:
    """Claiming a lease first deletes the rows of leases that have run out, at most once
    a minute per adapter; a lease released is deleted at once."""
    first = await own_tables()
    table = first.tables.leases

    async def stored() -> list[str]:
        async with first.engine.connect() as conn:
            return sorted((await conn.execute(select(table.c.key))).scalars())

    async def run_out(*keys: str) -> None:
        past = datetime.now(UTC) - timedelta(seconds=1)
        async with first.engine.begin() as conn:
            await conn.execute(update(table).where(table.c.key.in_(keys)).values(expires=past))

    assert await first.claim_lease("a", 60) is not None  # its claim swept (nothing)
    held = await first.claim_lease("b", 60)
    assert held is not None
    await run_out("a")
    assert await first.claim_lease("c", 60) is not None  # swept less than a minute ago
    assert await stored() == ["a", "b", "c"]
    async with SQLAlchemyAdapter(first.engine.url, naming=first.naming) as second:
        assert await second.claim_lease("d", 60) is not None  # its first claim sweeps
    assert await stored() == ["b", "c", "d"]
    await first.release_lease("b", held)
    assert await stored() == ["c", "d"]


async def test_lease_keys_have_at_most_255_characters(
    own_tables: Callable[..., Awaitable[SQLAlchemyAdapter]],
) -> None:
    """Keys are case-sensitive (on MariaDB too) and hold up to 255 characters."""
    adapter = await own_tables()
    longest = "é" * 254 + "E"
    assert await adapter.claim_lease(longest, 60) is not None
    assert await adapter.claim_lease(longest, 60) is None
    assert await adapter.claim_lease(longest[:-1] + "e", 60) is not None
    with pytest.raises(ValueError, match="at most 255 characters"):
        await adapter.claim_lease(longest + "x", 60)


# The account center -----------------------------------------------------------------


def details_of(token: str, expires: datetime) -> SessionDetails:
    now = datetime.now(UTC)
    return SessionDetails(
        session_token=token,
        user_id="u",
        expires=expires,
        created=now,
        last_seen=now,
        auth_time=now,
        amr=("pwd",),
    )


async def test_expired_session_details_are_deleted_once_a_minute(
    own_tables: Callable[..., Awaitable[SQLAlchemyAdapter]],
) -> None:
    """Saving or touching details deletes the rows past their ``expires`` (those of
    sessions that Auth.js deleted too), at most once a minute per adapter."""
    first = await own_tables()
    table = first.tables.session_details

    async def stored() -> list[str]:
        async with first.engine.connect() as conn:
            return sorted((await conn.execute(select(table.c.session_token))).scalars())

    expired, current = in_days(-1 / 86400), in_days(1)
    await first.save_session_details(details_of("a", expired))  # swept with the first save
    assert await stored() == []
    await first.save_session_details(details_of("b", expired))  # swept less than a minute ago
    await first.save_session_details(details_of("c", current))
    await first.touch_session_details("c", datetime.now(UTC), in_days(2))
    assert await stored() == ["b", "c"]
    async with SQLAlchemyAdapter(first.engine.url, naming=first.naming) as second:
        await second.touch_session_details("d", datetime.now(UTC), in_days(2))
    assert await stored() == ["c"]


async def test_old_security_events_are_deleted_once_a_minute(
    own_tables: Callable[..., Awaitable[SQLAlchemyAdapter]],
) -> None:
    first = await own_tables()
    table = first.tables.security_events

    async def stored() -> list[str]:
        async with first.engine.connect() as conn:
            return sorted((await conn.execute(select(table.c.kind))).scalars())

    old = in_days(-SECURITY_EVENT_DAYS - 1)
    await first.record_security_event(SecurityEvent(user_id="u", kind="a", at=old))
    assert await stored() == []
    await first.record_security_event(SecurityEvent(user_id="u", kind="b", at=old))
    await first.record_security_event(SecurityEvent(user_id="v", kind="c", at=in_days(0)))
    assert await stored() == ["b", "c"]
    assert [e.kind for e in await first.list_security_events("u")] == []
    async with SQLAlchemyAdapter(first.engine.url, naming=first.naming) as second:
        await second.record_security_event(SecurityEvent(user_id="v", kind="d", at=in_days(0)))
    assert await stored() == ["c", "d"]


async def test_expired_trusted_browsers_are_deleted_once_a_minute(
    own_tables: Callable[..., Awaitable[SQLAlchemyAdapter]],
) -> None:
    """Saving a trusted browser deletes the rows past their ``expires``, at most once a
    minute per adapter; an expired row left until then is neither found nor listed."""
    first = await own_tables()
    table = first.tables.trusted_browsers
    user = await first.create_user(make_user())

    async def stored() -> list[str]:
        async with first.engine.connect() as conn:
            return sorted((await conn.execute(select(table.c.browser_id))).scalars())

    def browser(browser_id: str, expires: datetime) -> TrustedBrowser:
        return TrustedBrowser(
            browser_id=browser_id, user_id=user.id, created=in_days(-1), expires=expires
        )

    expired, current = in_days(-1 / 86400), in_days(1)
    await first.save_trusted_browser(browser("a", expired))  # swept with the first save
    assert await stored() == []
    await first.save_trusted_browser(browser("b", expired))  # swept less than a minute ago
    await first.save_trusted_browser(browser("c", current))
    assert await stored() == ["b", "c"]
    assert await first.get_trusted_browser("b") is None
    assert [b.browser_id for b in await first.list_trusted_browsers(user.id)] == ["c"]
    async with SQLAlchemyAdapter(first.engine.url, naming=first.naming) as second:
        await second.save_trusted_browser(browser("d", current))
    assert await stored() == ["c", "d"]


async def test_a_users_sessions_are_listed_with_one_query(
    own_tables: Callable[..., Awaitable[SQLAlchemyAdapter]],
) -> None:
    adapter = await own_tables()
    user = await adapter.create_user(make_user())
    for n in range(3):
        session = AdapterSession(session_token=f"s{n}", user_id=user.id, expires=in_days(n + 1))
        await adapter.create_session(session)
        await adapter.save_session_details(
            dataclasses.replace(details_of(f"s{n}", session.expires), user_id=user.id)
        )
    sent: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        sent.append(statement)

    event.listen(adapter.engine.sync_engine, "before_cursor_execute", count)
    try:
        listed = await adapter.list_user_sessions(user.id)
    finally:
        event.remove(adapter.engine.sync_engine, "before_cursor_execute", count)
    assert [s.session.session_token for s in listed] == ["s2", "s1", "s0"]
    assert all(s.details is not None for s in listed)
    assert len(sent) == 1, sent
    assert "LEFT OUTER JOIN" in sent[0]


# Rate limits ------------------------------------------------------------------------


@pytest.mark.parametrize("server", ["postgresql", "mariadb", "sqlite"], indirect=True)
async def test_increment_rate_limit_races_across_two_pools(
    own_tables: Callable[..., Awaitable[SQLAlchemyAdapter]],
) -> None:
    """Three new keys, 20 racers each, from two adapters (two pools), while each adapter
    also deletes ended windows on its first count: every key counts 1 to 20, each once."""
    first = await own_tables()
    keys = [f"email:client:{uuid.uuid4().hex}" for _ in range(3)]
    async with SQLAlchemyAdapter(first.engine.url, naming=first.naming) as second:
        counts = await asyncio.gather(
            *(
                (first if i % 2 else second).increment_rate_limit(key, 86400)
                for i in range(20)
                for key in keys
            )
        )
    for n in range(len(keys)):
        assert sorted(counts[n :: len(keys)]) == list(range(1, 21))


async def test_rows_of_ended_windows_are_deleted_once_a_minute(
    own_tables: Callable[..., Awaitable[SQLAlchemyAdapter]], rate_limit_clock: RateLimitClock
) -> None:
    first = await own_tables()
    table = first.tables.rate_limits

    async def rows() -> list[tuple[Any, ...]]:
        c = table.c
        query = select(c.key, c.window_seconds, c.window, c["count"], c.expires)
        async with first.engine.connect() as conn:
            return sorted(tuple(row) for row in await conn.execute(query))

    def end_of(window: int) -> datetime:
        return datetime.fromtimestamp(window * 10, UTC)

    assert [await first.increment_rate_limit("old", 10) for _ in range(2)] == [1, 2]
    assert await rows() == [("old", 10, 100_000, 2, end_of(100_001))]
    rate_limit_clock.now += 10  # the old window has ended
    async with SQLAlchemyAdapter(first.engine.url, naming=first.naming) as second:
        assert await second.increment_rate_limit("new", 10) == 1  # its first count sweeps
    assert await rows() == [("new", 10, 100_001, 1, end_of(100_002))]
    rate_limit_clock.now += 10
    assert await first.increment_rate_limit("newer", 10) == 1  # swept less than a minute ago
    assert [row[0] for row in await rows()] == ["new", "newer"]


async def test_rate_limit_keys_have_at_most_255_characters(
    own_tables: Callable[..., Awaitable[SQLAlchemyAdapter]],
) -> None:
    adapter = await own_tables()
    longest = "é" * 254 + "E"
    assert await adapter.increment_rate_limit(longest, 60) == 1
    assert await adapter.increment_rate_limit(longest, 60) == 2
    assert await adapter.increment_rate_limit(longest[:-1] + "e", 60) == 1
    with pytest.raises(ValueError, match="at most 255 characters"):
        await adapter.increment_rate_limit(longest + "x", 60)
    with pytest.raises(ValueError, match="positive integer"):
        await adapter.increment_rate_limit("k", 0)


def own_indexes(naming: SQLNaming) -> dict[str, list[list[str]]]:
    """authui's own tables (under ``naming``'s names) and the columns of their indexes."""
    return {
        naming.rate_limits: [["expires"]],
        naming.challenges: [["expires"]],
        naming.leases: [["expires"]],
        naming.session_details: [["expires"], ["user_id"]],
        naming.passkeys: [["user_id"]],
        naming.security_events: [["at"], ["user_id"]],
        naming.session_versions: [],
        naming.passwords: [],
        naming.mfa: [],
        naming.recovery_codes: [],
        naming.trusted_browsers: [["expires"], ["user_id"]],
    }


def test_authui_db_upgrade_adds_authuis_own_tables(
    server: tuple[str, str | None], capsys: pytest.CaptureFixture[str]
) -> None:
    """A database at version 2 (before authui's own tables) gets ``rate_limits`` (version
    3), ``authui_challenges`` (version 4), ``authui_leases`` (version 5), each with its
    index on ``expires``, the account center's tables with their indexes (version 6) and
    those of password accounts and multi-factor authentication (version 7) from ``authui
    db upgrade``, and ``authui db status`` says so."""
    url, schema = server
    prefix = unique("v") + "_"
    naming = SQLNaming(schema=schema).prefixed(prefix)
    db = cli_for(url, schema, prefix, capsys)
    own = tuple(own_indexes(naming))

    async def at_version_2() -> dict[str, list[list[str]]]:
        async with SQLAlchemyAdapter(url, naming=naming) as adapter:
            migrator = SchemaMigrator(adapter, version_table=prefix + DEFAULT_VERSION_TABLE)
            await migrator.init(target=2)
            return await indexes_of(adapter, own)

    async def use_them() -> tuple[list[int], Challenge | None, str | None, Any]:
        challenge = Challenge(uuid.uuid4().hex * 2, in_days(1))
        async with SQLAlchemyAdapter(url, naming=naming) as adapter:
            counts = [await adapter.increment_rate_limit("k", 60) for _ in range(2)]
            await adapter.create_challenge(challenge)
            used = await adapter.use_challenge(challenge.key)
            return counts, used, await adapter.claim_lease("k", 60), await indexes_of(adapter, own)

    assert LATEST_VERSION == 7
    try:
        assert run(at_version_2) == {}
        assert "at version 2 of 7: 5 migrations pending" in db("status")
        upgraded = db("upgrade")
        steps = "; ".join(f"{m.version}: {m.description}" for m in MIGRATIONS[2:])
        assert f"upgraded from version 2 to 7 ({steps})" in upgraded
        assert "up to date at version 7" in db("status")
        counts, used, holder, found = run(use_them)
        assert counts == [1, 2]
        assert used is not None
        assert holder is not None
        assert {table: sorted(columns) for table, columns in found.items()} == own_indexes(naming)
    finally:
        run(lambda: drop_versioned(url, naming, prefix))


@pytest.mark.parametrize("made_by", ["init", "create_all"])
def test_a_database_of_the_previous_version_gets_the_account_center(
    server: tuple[str, str | None], capsys: pytest.CaptureFixture[str], made_by: str
) -> None:
    """Version 5 with rows in it (``init``), or an unversioned database made by the
    previous version's ``create_all`` (every table but the account center's): ``authui db
    upgrade`` (after ``init --adopt`` for the second) adds the account center's tables and
    keeps every row; a session of before has no details and is listed with ``None``."""
    url, schema = server
    prefix = unique("p") + "_"
    naming = SQLNaming(schema=schema).prefixed(prefix)
    db = cli_for(url, schema, prefix, capsys)

    async def previous_version() -> dict[str, Any]:
        async with SQLAlchemyAdapter(url, naming=naming) as adapter:
            if made_by == "init":
                migrator = SchemaMigrator(adapter, version_table=prefix + DEFAULT_VERSION_TABLE)
                await migrator.init(target=5)
            else:
                await adapter.create_all()
                async with adapter.engine.begin() as conn:
                    for table in adapter.tables.account_center:
                        await conn.run_sync(table.drop)
            user = await adapter.create_user(make_user())
            account = await adapter.link_account(make_account(user.id))
            session = AdapterSession(session_token="s", user_id=user.id, expires=in_days(1))
            await adapter.create_session(session)
            return {"user": user, "account": account, "session": (session, user)}

    async def after(rows: dict[str, Any]) -> dict[str, Any]:
        async with SQLAlchemyAdapter(url, naming=naming) as adapter:
            account_id = rows["account"].provider_account_id
            user, session = rows["user"], rows["session"][0]
            stored = {
                "user": await adapter.get_user(user.id),
                "account": await adapter.get_account(account_id, "github"),
                "session": await adapter.get_session_and_user("s"),
            }
            assert await adapter.list_user_sessions(user.id) == [
                UserSession(session=session, details=None)
            ]
            assert await adapter.bump_session_version(user.id) == 1
            return stored

    try:
        rows = run(previous_version)
        if made_by == "create_all":
            adopted = db("init", "--adopt")
            assert "adopted the existing Auth.js tables" in adopted
            assert "brought the schema to version 7" in adopted
        else:
            assert "at version 5 of 7: 2 migrations pending" in db("status")
            upgraded = db("upgrade")
            steps = "; ".join(f"{m.version}: {m.description}" for m in MIGRATIONS[5:])
            assert f"upgraded from version 5 to 7 ({steps})" in upgraded
        assert run(lambda: after(rows)) == rows
        assert "up to date at version 7" in db("status")
    finally:
        run(lambda: drop_versioned(url, naming, prefix))


@pytest.mark.parametrize("made_by", ["init", "create_all"])
def test_a_database_of_version_6_gets_passwords_and_second_factors(
    server: tuple[str, str | None], capsys: pytest.CaptureFixture[str], made_by: str
) -> None:
    """Version 6 with rows in it, the account center's among them (``init``), or an
    unversioned database made by version 6's ``create_all`` (every table but those of
    password accounts and multi-factor authentication): ``authui db upgrade`` (after
    ``init --adopt`` for the second) adds those four tables with their indexes and keeps
    every row; the users have no password and no second factor until they set them."""
    url, schema = server
    prefix = unique("f") + "_"
    naming = SQLNaming(schema=schema).prefixed(prefix)
    db = cli_for(url, schema, prefix, capsys)
    factors = (naming.passwords, naming.mfa, naming.recovery_codes, naming.trusted_browsers)

    async def version_6() -> dict[str, Any]:
        async with SQLAlchemyAdapter(url, naming=naming) as adapter:
            if made_by == "init":
                migrator = SchemaMigrator(adapter, version_table=prefix + DEFAULT_VERSION_TABLE)
                await migrator.init(target=6)
            else:
                await adapter.create_all()
                async with adapter.engine.begin() as conn:
                    for table in adapter.tables.factors:
                        await conn.run_sync(table.drop)
            assert await indexes_of(adapter, factors) == {}
            user = await adapter.create_user(make_user())
            account = await adapter.link_account(make_account(user.id))
            session = AdapterSession(session_token="s", user_id=user.id, expires=in_days(1))
            await adapter.create_session(session)
            details = dataclasses.replace(details_of("s", session.expires), user_id=user.id)
            await adapter.save_session_details(details)
            await adapter.bump_session_version(user.id)
            event = SecurityEvent(user_id=user.id, kind="sign-in", at=in_days(0))
            await adapter.record_security_event(event)
            return {
                "user": user,
                "account": account,
                "sessions": [UserSession(session=session, details=details)],
                "version": 1,
                "events": [event],
            }

    async def after(rows: dict[str, Any]) -> dict[str, Any]:
        async with SQLAlchemyAdapter(url, naming=naming) as adapter:
            user = rows["user"]
            stored = {
                "user": await adapter.get_user(user.id),
                "account": await adapter.get_account(rows["account"].provider_account_id, "github"),
                "sessions": await adapter.list_user_sessions(user.id),
                "version": await adapter.get_session_version(user.id),
                "events": await adapter.list_security_events(user.id),
            }
            assert await adapter.get_password(user.id) is None
            assert await adapter.get_mfa(user.id) is None
            assert await adapter.count_recovery_codes(user.id) == 0
            now = datetime.now(UTC)
            password = PasswordRecord(user_id=user.id, hash="$argon2id$h", updated=now)
            assert await adapter.set_password(password)
            assert await adapter.get_password(user.id) == password
            await adapter.save_trusted_browser(
                TrustedBrowser(browser_id="b", user_id=user.id, created=now, expires=in_days(1))
            )
            found = await indexes_of(adapter, factors)
            assert {table: sorted(columns) for table, columns in found.items()} == {
                table: columns for table, columns in own_indexes(naming).items() if table in factors
            }
            return stored

    try:
        rows = run(version_6)
        if made_by == "create_all":
            adopted = db("init", "--adopt")
            assert "adopted the existing Auth.js tables" in adopted
            assert "brought the schema to version 7" in adopted
        else:
            assert "at version 6 of 7: 1 migration pending" in db("status")
            upgraded = db("upgrade")
            assert f"upgraded from version 6 to 7 (7: {MIGRATIONS[6].description})" in upgraded
        assert run(lambda: after(rows)) == rows
        assert "up to date at version 7" in db("status")
    finally:
        run(lambda: drop_versioned(url, naming, prefix))


def cli_for(
    url: str, schema: str | None, prefix: str, capsys: pytest.CaptureFixture[str]
) -> Callable[..., str]:
    """``db(command, *more)``: the output of ``authui db <command>`` on the tables under
    ``prefix`` (it must succeed)."""
    args = ["--url", url, "--table-prefix", prefix, *(["--schema", schema] if schema else [])]

    def db(command: str, *more: str) -> str:
        capsys.readouterr()
        assert main(["db", command, *more, *args]) == 0
        return capsys.readouterr().out

    return db


async def indexes_of(adapter: SQLAlchemyAdapter, tables: tuple[str, ...]) -> dict[str, Any]:
    """The column lists of the indexes of those of ``tables`` that exist."""
    schema = adapter.naming.schema

    def look(conn: Any) -> dict[str, list[list[str]]]:
        inspector = inspect(conn)
        found: dict[str, list[list[str]]] = {}
        for table in tables:
            if inspector.has_table(table, schema=schema):
                listed = inspector.get_indexes(table, schema=schema)
                found[table] = [list(index["column_names"]) for index in listed]
        return found

    async with adapter.engine.connect() as conn:
        return await conn.run_sync(look)


async def drop_versioned(url: str, naming: SQLNaming, prefix: str) -> None:
    """Drop the tables under ``naming`` and their version table."""
    async with SQLAlchemyAdapter(url, naming=naming) as adapter:
        await adapter.drop_all()
        version_table = SchemaMigrator(adapter, version_table=prefix + DEFAULT_VERSION_TABLE)
        async with adapter.engine.begin() as conn:
            await conn.run_sync(version_table.version_table.drop, checkfirst=True)


# Dates ------------------------------------------------------------------------------


async def test_dates_go_in_any_zone_and_come_out_utc(
    own_tables: Callable[..., Awaitable[SQLAlchemyAdapter]],
    server: tuple[str, str | None],
) -> None:
    """Microseconds survive, other zones become UTC, and the connection's own time zone
    changes nothing; a naive datetime is refused."""
    options: dict[str, Any] = {}
    if server[0].startswith("postgresql"):
        options = {"connect_args": {"server_settings": {"timezone": "Asia/Kolkata"}}}
    elif server[0].startswith("mysql"):
        options = {"connect_args": {"init_command": "SET time_zone = '+05:30'"}}
    adapter = await own_tables(engine_options=options)
    kolkata = timezone(timedelta(hours=5, minutes=30))
    verified = datetime(2024, 2, 29, 23, 59, 59, 999_999, tzinfo=kolkata)
    user = await adapter.create_user(make_user(email_verified=verified))
    found = await adapter.get_user(user.id)
    assert found is not None
    assert found.email_verified is not None
    assert found.email_verified == verified
    assert found.email_verified.utcoffset() == timedelta(0)
    assert found.email_verified.tzinfo is UTC
    assert found.email_verified.isoformat() == "2024-02-29T18:29:59.999999+00:00"

    expires = datetime(2030, 6, 1, 0, 0, 0, 1, tzinfo=UTC)
    await adapter.create_session(
        AdapterSession(session_token="t", user_id=user.id, expires=expires)
    )
    later = datetime(2030, 7, 1, 12, 0, tzinfo=timezone(timedelta(hours=-7)))
    updated = await adapter.update_session("t", later)
    assert updated is not None
    assert updated.expires == later
    assert updated.expires.tzinfo is UTC
    pair = await adapter.get_session_and_user("t")
    assert pair is not None
    assert pair[0].expires == later
    assert pair[0].expires.tzinfo is UTC

    with pytest.raises(Exception, match="timezone-aware"):
        await adapter.update_user(user.id, {"email_verified": datetime(2024, 1, 1)})


async def test_sqlite_reads_dates_other_tools_wrote(tmp_path: Path) -> None:
    """ISO 8601 text (Kysely, JavaScript's ``toISOString``) and epoch milliseconds (Prisma,
    Drizzle) in SQLite come back as aware UTC datetimes."""
    async with SQLAlchemyAdapter(f"sqlite+aiosqlite:///{tmp_path / 'auth.db'}") as adapter:
        await adapter.create_all()
        stored = [
            ("iso-z", "2024-05-01T12:00:00.123Z"),
            ("iso-offset", "2024-05-01T14:00:00.123+02:00"),
            ("sqlalchemy", "2024-05-01 12:00:00.123000"),
            ("epoch-ms", 1714564800123),
            ("epoch-ms-text", "1714564800123"),
        ]
        async with adapter.engine.begin() as conn:
            for token, expires in stored:
                await conn.execute(
                    text(
                        "INSERT INTO verification_token (identifier, token, expires) "
                        "VALUES ('a@example.com', :token, :expires)"
                    ),
                    {"token": token, "expires": expires},
                )
        expected = datetime(2024, 5, 1, 12, 0, 0, 123_000, tzinfo=UTC)
        for token, _ in stored:
            used = await adapter.use_verification_token("a@example.com", token)
            assert used is not None
            assert used.expires == expected
            assert used.expires.tzinfo is UTC


def test_to_utc() -> None:
    assert to_utc(None) is None
    assert to_utc(datetime(2024, 1, 1)) == datetime(2024, 1, 1, tzinfo=UTC)
    assert to_utc("2024-01-01T01:00:00+01:00") == datetime(2024, 1, 1, tzinfo=UTC)
    assert to_utc(0) == datetime(1970, 1, 1, tzinfo=UTC)
    with pytest.raises(TypeError):
        to_utc(object())


# Case, errors, engines, pools -------------------------------------------------------


async def test_keys_are_case_sensitive(
    own_tables: Callable[..., Awaitable[SQLAlchemyAdapter]],
) -> None:
    """Tokens and base64 credential ids that differ only in case are different keys (on
    MariaDB too, whose default collation would say otherwise)."""
    adapter = await own_tables()
    user = await adapter.create_user(make_user())
    for token in ("Token-abc", "token-ABC"):
        await adapter.create_session(
            AdapterSession(session_token=token, user_id=user.id, expires=in_days(1))
        )
    pair = await adapter.get_session_and_user("token-ABC")
    assert pair is not None
    assert pair[0].session_token == "token-ABC"
    assert await adapter.get_session_and_user("TOKEN-ABC") is None
    await adapter.create_authenticator(make_authenticator(user.id, "AbC+/="))
    await adapter.create_authenticator(make_authenticator(user.id, "aBc+/="))
    found = await adapter.get_authenticator("aBc+/=")
    assert found is not None
    assert found.credential_id == "aBc+/="
    await adapter.create_verification_token(
        VerificationToken(identifier="a@example.com", token="Abc", expires=in_days(1))
    )
    assert await adapter.use_verification_token("a@example.com", "abc") is None
    assert await adapter.use_verification_token("A@example.com", "Abc") is None


async def test_update_errors(own_tables: Callable[..., Awaitable[SQLAlchemyAdapter]]) -> None:
    adapter = await own_tables()
    with pytest.raises(KeyError, match="no user"):
        await adapter.update_user("nobody", {"name": "x"})
    with pytest.raises(KeyError, match="no user"):
        await adapter.update_user("nobody", {})
    user = await adapter.create_user(make_user())
    assert await adapter.update_user(user.id, {}) == user
    with pytest.raises(TypeError, match="'id'"):
        await adapter.update_user(user.id, {"id": "other"})  # type: ignore[typeddict-unknown-key]
    with pytest.raises(KeyError, match="no authenticator"):
        await adapter.update_authenticator_counter("nothing", 1)


async def test_an_application_engine_is_shared_not_disposed(tmp_path: Path) -> None:
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'auth.db'}")
    with pytest.raises(TypeError, match="engine_options"):
        SQLAlchemyAdapter(engine, engine_options={"echo": True})
    async with SQLAlchemyAdapter(engine) as adapter:
        assert adapter.engine is engine
        await adapter.create_all()
        await adapter.create_user(make_user(id="u1"))
    async with engine.connect() as conn:  # still usable: the adapter left it open
        assert (await conn.execute(text("SELECT id FROM users"))).scalar_one() == "u1"
    await engine.dispose()


@pytest.mark.parametrize("server", ["postgresql", "mariadb"], indirect=True)
async def test_server_pools_are_bounded(server: tuple[str, str | None]) -> None:
    async with SQLAlchemyAdapter(server[0]) as adapter:
        pool = adapter.engine.pool
        assert isinstance(pool, AsyncAdaptedQueuePool)
        assert (pool.size(), pool._max_overflow) == (15, 0)
    async with SQLAlchemyAdapter(server[0], engine_options={"pool_size": 2}) as adapter:
        pool = adapter.engine.pool
        assert isinstance(pool, AsyncAdaptedQueuePool)
        assert pool.size() == 2


@pytest.mark.parametrize("server", ["sqlite", "postgresql"], indirect=True)
async def test_a_refused_write_does_not_quote_the_values_it_was_given(
    own_tables: Callable[..., Awaitable[SQLAlchemyAdapter]],
) -> None:
    """A session token taken twice: the exception (which an app may log) names the
    statement, not the token (``hide_parameters``). MariaDB's own message quotes a
    duplicate; ``authui.adapters.outages`` leaves it out of what authui logs."""
    adapter = await own_tables()
    user = await adapter.create_user(make_user())
    session = AdapterSession(session_token=uuid.uuid4().hex, user_id=user.id, expires=in_days(1))
    await adapter.create_session(session)
    with pytest.raises(IntegrityError) as raised:
        await adapter.create_session(session)
    assert "INSERT INTO" in str(raised.value)
    assert session.session_token not in str(raised.value)


def test_id_type_is_checked() -> None:
    with pytest.raises(ValueError, match="id_type"):
        SQLAlchemyAdapter("sqlite+aiosqlite://", id_type="uuid")  # type: ignore[arg-type]
