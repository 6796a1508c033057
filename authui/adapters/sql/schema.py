"""The adapter's tables, built from a naming and an id type, and the UTC date column.

Column keys are the records' Python names (``email_verified``, ``user_id``, …) whatever
the database names are, so the queries never see the naming.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.dialects import mysql, sqlite
from sqlalchemy.engine import Dialect
from sqlalchemy.schema import SchemaItem
from sqlalchemy.types import TypeDecorator, TypeEngine

from authui.adapters.account import (
    MAX_AMR,
    MAX_CLIENT,
    MAX_EVENT_KIND,
    MAX_PROVIDER,
    MAX_USER_AGENT,
)
from authui.adapters.factors import (
    MAX_BROWSER_ID,
    MAX_PASSWORD_HASH,
    MAX_RECOVERY_CODE_HASH,
    MAX_TOTP_SECRET,
)
from authui.adapters.sql.naming import SQLNaming

IdType = Literal["text", "integer"]
"""How ``users.id`` (and every ``userId``) is stored: ``"text"`` keeps the ids authui
makes (uuids) as given; ``"integer"`` is Auth.js's ``SERIAL``, numbered by the database."""

_MYSQL = ("mysql", "mariadb")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")

# MariaDB/MySQL compare with the table's collation: binary, so that tokens, ids and base64
# credential ids are case-sensitive as they are on PostgreSQL and SQLite.
_MYSQL_TABLE_OPTIONS: dict[str, Any] = {
    "mysql_engine": "InnoDB",
    "mysql_charset": "utf8mb4",
    "mysql_collate": "utf8mb4_bin",
}


class _SQLiteDateTime(sqlite.DATETIME):
    """SQLite's ``DATETIME`` written as SQLAlchemy writes it, read back as stored, so that
    ``UTCDateTime`` can also read what other tools wrote (ISO 8601 text, epoch ms)."""

    def result_processor(self, dialect: Dialect, coltype: object) -> None:
        return None


class UTCDateTime(TypeDecorator[datetime]):
    """A date that goes in and comes out timezone-aware in UTC.

    PostgreSQL keeps ``TIMESTAMPTZ``; MariaDB/MySQL (``DATETIME(6)``) and SQLite keep UTC
    without a zone, which is put back on reading. A naive ``datetime`` is refused.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "sqlite":
            return _SQLiteDateTime()  # type: ignore[no-untyped-call]
        if dialect.name in _MYSQL:
            return dialect.type_descriptor(mysql.DATETIME(fsp=6))
        return dialect.type_descriptor(DateTime(timezone=True))

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"authui stores timezone-aware datetimes, not {value!r}")
        utc = value.astimezone(UTC)
        return utc if dialect.name == "postgresql" else utc.replace(tzinfo=None)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        return to_utc(value)


def to_utc(value: object) -> datetime | None:
    """A stored date as an aware UTC ``datetime``: naive values are UTC, numbers are epoch
    milliseconds (as Prisma and Drizzle keep them in SQLite), text is ISO 8601."""
    if value is None:
        return None
    if isinstance(value, str):
        return _text_to_utc(value)
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value / 1000, UTC)
    if not isinstance(value, datetime):
        raise TypeError(f"not a date: {value!r}")
    return _aware_utc(value)


def _aware_utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


@functools.lru_cache(maxsize=1024)
def _text_to_utc(value: str) -> datetime:
    """``to_utc`` of a date stored as text (SQLite's): the session check reads the same
    expiry on every request of a session, so the last answers are kept."""
    text = value.strip()
    if _NUMBER.fullmatch(text):
        return datetime.fromtimestamp(float(text) / 1000, UTC)
    return _aware_utc(datetime.fromisoformat(text))


def _text(mysql_length: int, *, ascii_only: bool = False) -> TypeEngine[str]:
    """``TEXT``, but a ``VARCHAR`` on MariaDB/MySQL, which can't index ``TEXT``."""
    varchar = (
        mysql.VARCHAR(mysql_length, charset="ascii", collation="ascii_bin")
        if ascii_only
        else mysql.VARCHAR(mysql_length)
    )
    return Text().with_variant(varchar, *_MYSQL)


#: The longest ``rate_limits.key``, in characters (MariaDB/MySQL index a ``VARCHAR``).
MAX_RATE_LIMIT_KEY = 255
#: The longest ``authui_challenges.key``: a hash in hex (SHA-256's has 64 characters).
MAX_CHALLENGE_KEY = 128
#: The longest ``authui_leases.key``, in characters (MariaDB/MySQL index a ``VARCHAR``).
MAX_LEASE_KEY = 255
#: The longest ``authui_leases.holder``: ``new_lease_holder`` makes 32 characters.
MAX_LEASE_HOLDER = 64


@dataclass(frozen=True, slots=True)
class Tables:
    """The adapter's tables, in one ``MetaData`` (a migration tool's ``target_metadata``)."""

    metadata: MetaData
    users: Table
    accounts: Table
    sessions: Table
    verification_tokens: Table
    authenticators: Table
    rate_limits: Table
    challenges: Table
    leases: Table
    session_details: Table
    passkeys: Table
    security_events: Table
    session_versions: Table
    passwords: Table
    mfa: Table
    recovery_codes: Table
    trusted_browsers: Table

    @property
    def authjs(self) -> tuple[Table, ...]:
        """The five Auth.js tables (none of authui's own)."""
        return (
            self.users,
            self.accounts,
            self.sessions,
            self.verification_tokens,
            self.authenticators,
        )

    @property
    def account_center(self) -> tuple[Table, ...]:
        """authui's tables of the account center, each with a ``user_id`` column."""
        return (self.session_details, self.passkeys, self.security_events, self.session_versions)

    @property
    def factors(self) -> tuple[Table, ...]:
        """authui's tables of password accounts and multi-factor authentication, each with
        a ``user_id`` column."""
        return (self.passwords, self.mfa, self.recovery_codes, self.trusted_browsers)


def build_tables(naming: SQLNaming, id_type: IdType) -> Tables:
    """The five Auth.js tables under ``naming``, with ``users.id`` of ``id_type``, and
    authui's ``rate_limits``, ``challenges``, ``leases``, the account center's and those
    of password accounts and multi-factor authentication.

    Beyond Auth.js's PostgreSQL schema, which it matches column for column, it adds what
    lookups need: unique ``users.email``, ``(provider, providerAccountId)`` and
    ``sessionToken``; indexes on every ``userId``; a 64-bit passkey counter. There are no
    foreign keys (Auth.js's schema has none); ``delete_user`` deletes dependents itself.

    ``users.email`` is nullable, as in Auth.js: users of OAuth providers that give no
    address (Twitter/X, Bitbucket, Reddit) have none. Its ``UNIQUE`` applies to addresses
    only: PostgreSQL, MariaDB/MySQL and SQLite all let any number of rows hold ``NULL``.

    ``rate_limits`` holds ``increment_rate_limit``'s counts: one row per ``key``, window
    length (``window_seconds``) and window number (``window``, ``floor(now /
    window_seconds)``), with the ``count`` so far and when the window ends (``expires``,
    indexed, so that the rows of ended windows are cheap to find and delete).

    ``challenges`` (``authui_challenges`` by default) holds the WebAuthn challenges of
    ``create_challenge``, each once: its ``key`` (a hash, the primary key) and when it
    ``expires`` (indexed, for the deletion of expired rows).

    ``leases`` (``authui_leases`` by default) holds the leases of ``claim_lease``: one row
    per ``key`` (the primary key) with its ``holder``'s token and when the lease runs out
    (``expires``, indexed, for the deletion of leases that have run out).

    The account center's tables (``authui_…`` by default) leave Auth.js's as they are, and
    have a ``user_id`` of ``id_type``, indexed where rows are found by user:
    ``session_details`` holds ``SessionDetails`` by ``session_token`` (the primary key),
    ``amr`` as its methods joined by spaces, ``expires`` indexed for the deletion of
    expired rows; ``passkeys`` the ``PasskeyDetails`` by ``credential_id``;
    ``security_events`` one row per ``SecurityEvent``, numbered (``id``), ``at`` indexed
    for the deletion of old events, ``detail`` as JSON text (``NULL`` when empty);
    ``session_versions`` each user's ``version`` by ``user_id``.

    The tables of password accounts and multi-factor authentication (``authui_…`` by
    default, version 7) have a ``user_id`` of ``id_type`` too: ``passwords`` holds each
    user's ``PasswordRecord`` by ``user_id``; ``mfa`` each user's ``MfaEnrolment``
    (``totp_last_step`` a 64-bit integer); ``recovery_codes`` one row per code, its
    ``code_hash`` with its ``user_id`` the primary key (so that a user's are found by it);
    ``trusted_browsers`` the ``TrustedBrowser`` by ``browser_id``, ``user_id`` indexed,
    and ``expires`` indexed for the deletion of expired rows.
    """
    metadata = MetaData(schema=naming.schema)
    user_id: TypeEngine[Any] = Integer() if id_type == "integer" else String(255)

    def table(authjs: str, *items: SchemaItem) -> Table:
        return Table(naming.table(authjs), metadata, *items, **_MYSQL_TABLE_OPTIONS)

    def column(authjs: str, name: str, key: str, type_: TypeEngine[Any], **kw: Any) -> Column[Any]:
        return Column(naming.column(authjs, name), type_, key=key, **kw)

    u = functools.partial(column, "users")
    users = table(
        "users",
        u("id", "id", user_id, primary_key=True, autoincrement=id_type == "integer"),
        u("name", "name", String(255)),
        u("email", "email", String(255), nullable=True, unique=True),
        u("emailVerified", "email_verified", UTCDateTime()),
        u("image", "image", Text()),
    )
    a = functools.partial(column, "accounts")
    accounts = table(
        "accounts",
        a("id", "id", Integer(), primary_key=True, autoincrement=True),
        a("userId", "user_id", user_id, nullable=False, index=True),
        a("type", "type", String(255), nullable=False),
        a("provider", "provider", String(255), nullable=False),
        a("providerAccountId", "provider_account_id", String(255), nullable=False),
        a("refresh_token", "refresh_token", Text()),
        a("access_token", "access_token", Text()),
        a("expires_at", "expires_at", BigInteger()),
        a("id_token", "id_token", Text()),
        a("scope", "scope", Text()),
        a("session_state", "session_state", Text()),
        a("token_type", "token_type", Text()),
        UniqueConstraint("provider", "provider_account_id"),
    )
    s = functools.partial(column, "sessions")
    sessions = table(
        "sessions",
        s("id", "id", Integer(), primary_key=True, autoincrement=True),
        s("userId", "user_id", user_id, nullable=False, index=True),
        s("expires", "expires", UTCDateTime(), nullable=False),
        s("sessionToken", "session_token", String(255), nullable=False, unique=True),
    )
    v = functools.partial(column, "verification_token")
    verification_tokens = table(
        "verification_token",
        v("identifier", "identifier", _text(320), nullable=False),
        v("expires", "expires", UTCDateTime(), nullable=False),
        v("token", "token", _text(255), nullable=False),
        PrimaryKeyConstraint("identifier", "token"),
    )
    p = functools.partial(column, "authenticators")
    authenticators = table(
        "authenticators",
        p("credentialID", "credential_id", _text(1400, ascii_only=True), primary_key=True),
        p("userId", "user_id", user_id, nullable=False, index=True),
        p("providerAccountId", "provider_account_id", Text(), nullable=False),
        p("credentialPublicKey", "credential_public_key", Text(), nullable=False),
        p("counter", "counter", BigInteger(), nullable=False),
        p("credentialDeviceType", "credential_device_type", Text(), nullable=False),
        p("credentialBackedUp", "credential_backed_up", Boolean(), nullable=False),
        p("transports", "transports", Text()),
    )
    rate_limits = Table(
        naming.rate_limits,
        metadata,
        Column("key", _text(MAX_RATE_LIMIT_KEY), nullable=False),
        Column("window_seconds", Integer(), nullable=False),
        Column("window", BigInteger(), nullable=False),
        Column("count", Integer(), nullable=False),
        Column("expires", UTCDateTime(), nullable=False, index=True),
        PrimaryKeyConstraint("key", "window_seconds", "window"),
        **_MYSQL_TABLE_OPTIONS,
    )
    challenges = Table(
        naming.challenges,
        metadata,
        Column("key", String(MAX_CHALLENGE_KEY), primary_key=True),
        Column("expires", UTCDateTime(), nullable=False, index=True),
        **_MYSQL_TABLE_OPTIONS,
    )
    leases = Table(
        naming.leases,
        metadata,
        Column("key", _text(MAX_LEASE_KEY), primary_key=True),
        Column("holder", String(MAX_LEASE_HOLDER), nullable=False),
        Column("expires", UTCDateTime(), nullable=False, index=True),
        **_MYSQL_TABLE_OPTIONS,
    )
    session_details = Table(
        naming.session_details,
        metadata,
        Column("session_token", String(255), primary_key=True),
        Column("user_id", user_id, nullable=False, index=True),
        Column("expires", UTCDateTime(), nullable=False, index=True),
        Column("created", UTCDateTime(), nullable=False),
        Column("last_seen", UTCDateTime(), nullable=False),
        Column("auth_time", UTCDateTime(), nullable=False),
        Column("amr", String(MAX_AMR), nullable=False),
        Column("user_agent", String(MAX_USER_AGENT)),
        Column("client", String(MAX_CLIENT)),
        **_MYSQL_TABLE_OPTIONS,
    )
    passkeys = Table(
        naming.passkeys,
        metadata,
        Column("credential_id", _text(1400, ascii_only=True), primary_key=True),
        Column("user_id", user_id, nullable=False, index=True),
        Column("name", String(255), nullable=False),
        Column("created", UTCDateTime()),
        Column("last_used", UTCDateTime()),
        **_MYSQL_TABLE_OPTIONS,
    )
    security_events = Table(
        naming.security_events,
        metadata,
        Column("id", Integer(), primary_key=True, autoincrement=True),
        Column("user_id", user_id, nullable=False, index=True),
        Column("kind", String(MAX_EVENT_KIND), nullable=False),
        Column("at", UTCDateTime(), nullable=False, index=True),
        Column("provider", String(MAX_PROVIDER)),
        Column("client", String(MAX_CLIENT)),
        Column("user_agent", String(MAX_USER_AGENT)),
        Column("detail", Text()),
        **_MYSQL_TABLE_OPTIONS,
    )
    session_versions = Table(
        naming.session_versions,
        metadata,
        Column("user_id", user_id, primary_key=True, autoincrement=False),
        Column("version", Integer(), nullable=False),
        **_MYSQL_TABLE_OPTIONS,
    )
    passwords = Table(
        naming.passwords,
        metadata,
        Column("user_id", user_id, primary_key=True, autoincrement=False),
        Column("hash", String(MAX_PASSWORD_HASH), nullable=False),
        Column("updated", UTCDateTime(), nullable=False),
        **_MYSQL_TABLE_OPTIONS,
    )
    mfa = Table(
        naming.mfa,
        metadata,
        Column("user_id", user_id, primary_key=True, autoincrement=False),
        Column("created", UTCDateTime(), nullable=False),
        Column("totp_secret", String(MAX_TOTP_SECRET)),
        Column("totp_last_step", BigInteger()),
        Column("passkey", Boolean(), nullable=False),
        **_MYSQL_TABLE_OPTIONS,
    )
    recovery_codes = Table(
        naming.recovery_codes,
        metadata,
        Column("user_id", user_id, nullable=False),
        Column("code_hash", String(MAX_RECOVERY_CODE_HASH), nullable=False),
        PrimaryKeyConstraint("user_id", "code_hash"),
        **_MYSQL_TABLE_OPTIONS,
    )
    trusted_browsers = Table(
        naming.trusted_browsers,
        metadata,
        Column("browser_id", String(MAX_BROWSER_ID), primary_key=True),
        Column("user_id", user_id, nullable=False, index=True),
        Column("created", UTCDateTime(), nullable=False),
        Column("expires", UTCDateTime(), nullable=False, index=True),
        Column("user_agent", String(MAX_USER_AGENT)),
        Column("client", String(MAX_CLIENT)),
        **_MYSQL_TABLE_OPTIONS,
    )
    return Tables(
        metadata,
        users,
        accounts,
        sessions,
        verification_tokens,
        authenticators,
        rate_limits,
        challenges,
        leases,
        session_details,
        passkeys,
        security_events,
        session_versions,
        passwords,
        mfa,
        recovery_codes,
        trusted_browsers,
    )
