"""Where the SQL adapter keeps its records: table names, column names, schema.

The defaults are the Auth.js SQL adapters' names (``users``, ``accounts``, ``sessions``,
``verification_token``, ``authenticators``; camelCase columns except OAuth's snake_case
token fields), so one database serves an Auth.js app and an authui app side by side.
authui adds tables Auth.js does not have, whose names are configurable too:
``rate_limits`` (the counts of ``increment_rate_limit``), ``authui_challenges`` (the
WebAuthn challenges of ``create_challenge``), ``authui_leases`` (the leases of
``claim_lease``), the account center's ``authui_session_details``,
``authui_passkeys``, ``authui_security_events`` and ``authui_session_versions``, and those
of password accounts and multi-factor authentication: ``authui_passwords``,
``authui_mfa``, ``authui_recovery_codes`` and ``authui_trusted_browsers``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field

#: Every table the adapter knows, by its Auth.js name, with its Auth.js column names.
AUTHJS_COLUMNS: Mapping[str, tuple[str, ...]] = {
    "users": ("id", "name", "email", "emailVerified", "image"),
    "accounts": (
        "id",
        "userId",
        "type",
        "provider",
        "providerAccountId",
        "refresh_token",
        "access_token",
        "expires_at",
        "id_token",
        "scope",
        "session_state",
        "token_type",
    ),
    "sessions": ("id", "userId", "expires", "sessionToken"),
    "verification_token": ("identifier", "expires", "token"),
    "authenticators": (
        "credentialID",
        "userId",
        "providerAccountId",
        "credentialPublicKey",
        "counter",
        "credentialDeviceType",
        "credentialBackedUp",
        "transports",
    ),
}

_KNOWN_COLUMNS = frozenset(name for names in AUTHJS_COLUMNS.values() for name in names)

_SNAKE_CASE = {
    "emailVerified": "email_verified",
    "userId": "user_id",
    "providerAccountId": "provider_account_id",
    "sessionToken": "session_token",
    "credentialID": "credential_id",
    "credentialPublicKey": "credential_public_key",
    "credentialDeviceType": "credential_device_type",
    "credentialBackedUp": "credential_backed_up",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class SQLNaming:
    """Table names, column names and schema of the SQL adapter; Auth.js's by default.

    Args:
        users: The users table.
        accounts: The accounts table.
        sessions: The database sessions table.
        verification_tokens: The email sign-in tokens table.
        authenticators: The passkeys table.
        rate_limits: authui's table of rate-limit counts (not an Auth.js table; its
            columns keep their names).
        challenges: authui's table of single-use WebAuthn challenges (not an Auth.js
            table; its columns keep their names).
        leases: authui's table of leases, one process at a time (not an Auth.js table;
            its columns keep their names).
        session_details: authui's table of what the account center shows of database
            sessions (browser, address, sign-in time and methods), beside ``sessions``.
        passkeys: authui's table of passkey names, beside ``authenticators``.
        security_events: authui's table of what happened to each account.
        session_versions: authui's table of each user's session version ("sign out
            everywhere" with JWT sessions). These four keep their columns' names too.
        passwords: authui's table of password hashes, one per user.
        mfa: authui's table of enrolments in multi-factor authentication.
        recovery_codes: authui's table of the hashes of MFA recovery codes.
        trusted_browsers: authui's table of browsers where the second factor is not
            asked again for a while. These four keep their columns' names too.
        columns: Column renames, from the Auth.js column name to yours. A bare name
            (``"userId"``) renames it in every table; one qualified by the Auth.js table
            name (``"accounts.userId"``) only there, and wins over a bare one.
        schema: The schema (PostgreSQL) or database (MariaDB/MySQL) holding the tables;
            ``None`` for the connection's default.

    Example:
        ``SQLNaming(users="auth_users", columns={"emailVerified": "email_verified"})``
    """

    users: str = "users"
    accounts: str = "accounts"
    sessions: str = "sessions"
    verification_tokens: str = "verification_token"
    authenticators: str = "authenticators"
    rate_limits: str = "rate_limits"
    challenges: str = "authui_challenges"
    leases: str = "authui_leases"
    session_details: str = "authui_session_details"
    passkeys: str = "authui_passkeys"
    security_events: str = "authui_security_events"
    session_versions: str = "authui_session_versions"
    passwords: str = "authui_passwords"
    mfa: str = "authui_mfa"
    recovery_codes: str = "authui_recovery_codes"
    trusted_browsers: str = "authui_trusted_browsers"
    columns: Mapping[str, str] = field(default_factory=dict, hash=False)
    schema: str | None = None

    def __post_init__(self) -> None:
        for key in self.columns:
            table, _, column = key.rpartition(".")
            if (table and column not in AUTHJS_COLUMNS.get(table, ())) or (
                not table and column not in _KNOWN_COLUMNS
            ):
                raise ValueError(f"SQLNaming.columns: {key!r} is not an Auth.js column")

    @classmethod
    def snake_case(cls, **names: str) -> SQLNaming:
        """Auth.js's tables with snake_case columns: ``email_verified``, ``user_id``, …

        Keyword arguments name the tables, as for the constructor.
        """
        return cls(columns=dict(_SNAKE_CASE), **names)

    def prefixed(self, prefix: str) -> SQLNaming:
        """The same naming with ``prefix`` in front of every table name."""
        return dataclasses.replace(
            self,
            users=prefix + self.users,
            accounts=prefix + self.accounts,
            sessions=prefix + self.sessions,
            verification_tokens=prefix + self.verification_tokens,
            authenticators=prefix + self.authenticators,
            rate_limits=prefix + self.rate_limits,
            challenges=prefix + self.challenges,
            leases=prefix + self.leases,
            session_details=prefix + self.session_details,
            passkeys=prefix + self.passkeys,
            security_events=prefix + self.security_events,
            session_versions=prefix + self.session_versions,
            passwords=prefix + self.passwords,
            mfa=prefix + self.mfa,
            recovery_codes=prefix + self.recovery_codes,
            trusted_browsers=prefix + self.trusted_browsers,
        )

    def table(self, authjs_table: str) -> str:
        """The name of the table Auth.js calls ``authjs_table``."""
        return {
            "users": self.users,
            "accounts": self.accounts,
            "sessions": self.sessions,
            "verification_token": self.verification_tokens,
            "authenticators": self.authenticators,
        }[authjs_table]

    def column(self, authjs_table: str, authjs_column: str) -> str:
        """The name of the column Auth.js calls ``authjs_column`` in ``authjs_table``."""
        qualified = self.columns.get(f"{authjs_table}.{authjs_column}")
        return qualified or self.columns.get(authjs_column, authjs_column)
