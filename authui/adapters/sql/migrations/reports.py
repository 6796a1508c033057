"""What the migrator tells its caller: where a database stands (``SchemaStatus``), what a
run did (``MigrationResult``), and why it could not work on a database
(``MigrationError``)."""

from __future__ import annotations

from dataclasses import dataclass

from authui.adapters.sql.migrations.versions import Migration


class MigrationError(Exception):
    """The database is not in a state the command can work on; the message says why and
    what to do."""


@dataclass(frozen=True, slots=True)
class SchemaStatus:
    """Where a database stands.

    Attributes:
        version: The version recorded in the version table; ``0`` when none is.
        latest: The latest version this authui knows.
        tables: The adapter's tables that exist, by their names in the database.
        pending: The steps ``upgrade`` would apply.
    """

    version: int
    latest: int
    tables: tuple[str, ...]
    pending: tuple[Migration, ...]

    @property
    def initialised(self) -> bool:
        """A version is recorded."""
        return self.version > 0

    @property
    def unversioned(self) -> bool:
        """The tables exist but no version is recorded (made by Auth.js or ``create_all``)."""
        return self.version == 0 and bool(self.tables)

    @property
    def up_to_date(self) -> bool:
        """The database is at the latest version."""
        return self.version == self.latest

    def describe(self) -> str:
        """One line saying where the database stands and what to do next."""
        if self.version > self.latest:
            return (
                f"at version {self.version}, newer than this authui knows (latest "
                f"{self.latest}): upgrade authui"
            )
        if self.unversioned:
            return (
                f"unversioned: the tables {', '.join(self.tables)} exist but no version is "
                "recorded; run `authui db init --adopt` to adopt them"
            )
        if not self.initialised:
            return "not initialised: no authui tables; run `authui db init`"
        if self.up_to_date:
            return f"up to date at version {self.version}"
        count = len(self.pending)
        return (
            f"at version {self.version} of {self.latest}: {count} migration"
            f"{'' if count == 1 else 's'} pending; run `authui db upgrade`"
        )


@dataclass(frozen=True, slots=True)
class MigrationResult:
    """What ``init`` or ``upgrade`` did.

    Attributes:
        before: The version before (``0``: none recorded).
        after: The version after.
        applied: The steps applied, in order.
        adopted: Existing tables were recorded as version 1.
        created_tables: Tables adopting created because they were missing.
    """

    before: int
    after: int
    applied: tuple[Migration, ...] = ()
    adopted: bool = False
    created_tables: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        """Anything was written."""
        return self.adopted or bool(self.applied)
