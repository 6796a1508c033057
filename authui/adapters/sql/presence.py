"""What a database holds of the adapter's tables: ``survey`` finds which exist and the
type of ``users.id``, and ``TABLES_OF`` says which tables each method needs, so that an
adapter on a database an Auth.js app made (Auth.js's tables alone) serves every method that
needs nothing more and lacks the others, as an adapter without them would.

authui falls back where it can (the limits on sign-in emails count in each process, say)
and names the features that cannot work at start-up (``authui.options.ready``), with the
one command that adds the tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy import Connection, Integer, inspect
from sqlalchemy.engine import Inspector

from authui.adapters.sql.schema import IdType, Tables

#: The tables (``Tables`` fields) each method needs beyond Auth.js's four required ones;
#: a method not named here needs only those. ``authenticators`` is Auth.js's too, but
#: schemas made before passkeys lack it.
TABLES_OF: Mapping[str, tuple[str, ...]] = {
    **dict.fromkeys(
        (
            "create_authenticator",
            "get_authenticator",
            "list_authenticators_by_user_id",
            "update_authenticator_counter",
            "delete_authenticator",
        ),
        ("authenticators",),
    ),
    **dict.fromkeys(("increment_rate_limit", "reset_rate_limit"), ("rate_limits",)),
    **dict.fromkeys(("create_challenge", "use_challenge"), ("challenges",)),
    **dict.fromkeys(("claim_lease", "release_lease"), ("leases",)),
    **dict.fromkeys(
        (
            "save_session_details",
            "touch_session_details",
            "get_session_details",
            "list_user_sessions",
        ),
        ("session_details",),
    ),
    **dict.fromkeys(("get_session_version", "bump_session_version"), ("session_versions",)),
    **dict.fromkeys(
        (
            "save_authenticator_details",
            "update_authenticator_details",
            "list_authenticator_details",
        ),
        ("authenticators", "passkeys"),
    ),
    **dict.fromkeys(("record_security_event", "list_security_events"), ("security_events",)),
    **dict.fromkeys(("get_password", "set_password", "delete_password"), ("passwords",)),
    **dict.fromkeys(("get_mfa", "save_mfa", "delete_mfa", "use_totp_step"), ("mfa",)),
    **dict.fromkeys(
        ("replace_recovery_codes", "use_recovery_code", "count_recovery_codes"),
        ("recovery_codes",),
    ),
    **dict.fromkeys(
        (
            "save_trusted_browser",
            "get_trusted_browser",
            "list_trusted_browsers",
            "delete_trusted_browsers",
        ),
        ("trusted_browsers",),
    ),
}


@dataclass(frozen=True, slots=True)
class Survey:
    """What ``survey`` found.

    Attributes:
        id_type: How ``users.id`` holds ids; ``None`` when there is no ``users`` table.
        absent: The adapter's tables (``Tables`` fields) the database lacks.
    """

    id_type: IdType | None
    absent: frozenset[str]

    def lacks(self, method: str) -> tuple[str, ...]:
        """The tables (``Tables`` fields) ``method`` needs and the database lacks."""
        return tuple(name for name in TABLES_OF.get(method, ()) if name in self.absent)


def survey(conn: Connection, tables: Tables) -> Survey:
    """Which of ``tables`` exist (in their schema) and the type of ``users.id``."""
    inspector = inspect(conn)
    existing = {name.lower() for name in inspector.get_table_names(schema=tables.metadata.schema)}
    absent = frozenset(
        field
        for field in Tables.__dataclass_fields__
        if field != "metadata" and getattr(tables, field).name.lower() not in existing
    )
    return Survey(None if "users" in absent else users_id_type(inspector, tables), absent)


def users_id_type(inspector: Inspector, tables: Tables) -> IdType | None:
    """Whether ``users.id`` holds integers or text; ``None`` if there is no such column."""
    users = tables.users
    if not inspector.has_table(users.name, schema=users.schema):
        return None
    for column in inspector.get_columns(users.name, schema=users.schema):
        if column["name"].lower() == users.c.id.name.lower():
            return "integer" if isinstance(column["type"], Integer) else "text"
    return None
