"""The ``authui`` command line.

- ``authui secret``: a new random ``AUTH_SECRET``.
- ``authui db init|upgrade|status --url URL``: create, upgrade and inspect the SQL
  adapter's tables (``authui.adapters.sql.migrations``). The URL may also come from
  ``AUTH_DATABASE_URL``; a URL without an async driver gets the default one
  (``postgres://`` and ``postgresql://`` → asyncpg, ``mysql://`` and ``mariadb://`` →
  asyncmy, ``sqlite://`` → aiosqlite). Results are one line on stdout; errors are one
  line on stderr, with exit status 1.
- ``authui messages template|update``: the catalogue template of authui's messages, and
  (in a checkout) the shipped catalogues brought up to the code (``authui.messages``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from authui import messages
from authui.adapters.from_url import ASYNC_DRIVERS, shown_url

if TYPE_CHECKING:
    from sqlalchemy.engine import URL

    from authui.adapters.sql.migrations import SchemaMigrator

#: Where ``authui db`` finds the database URL when ``--url`` is not given.
DATABASE_URL_ENV = "AUTH_DATABASE_URL"

_EXTRAS = {"asyncpg": "postgresql", "asyncmy": "mysql", "aiosqlite": "sqlalchemy"}
_CONNECT_TIMEOUT = 10  # seconds; the drivers' own defaults are up to a minute
_TIMEOUT_ARGUMENT = {"asyncpg": "timeout", "asyncmy": "connect_timeout"}


class CommandError(Exception):
    """A failure to report as one line on stderr, with exit status 1."""


def new_secret() -> str:
    """A new random secret: 32 random bytes, base64url (43 characters)."""
    return secrets.token_urlsafe(32)


def provider_table() -> str:
    """One line per built-in provider: id, name, type, callback path, environment."""
    from authui.env_names import provider_env_prefix
    from authui.providers.oauth import OAuthProvider
    from authui.providers.registry import built_in, provider_ids
    from authui.providers.server import ServerProvider

    rows = [("id", "name", "type", "callback path", "environment")]
    for provider_id in provider_ids():
        provider = built_in(provider_id)
        prefix = provider_env_prefix(provider_id)
        needed = ["ID", "SECRET"]
        yours = provider.type == "oidc" or isinstance(provider, ServerProvider)
        if isinstance(provider, OAuthProvider) and yours and not provider.issuer:
            needed.append("ISSUER")
        if hasattr(provider, "api_key"):
            needed.append("KEY")
        env = " ".join(prefix + name for name in needed)
        rows.append(
            (provider_id, provider.name, provider.type, f"/auth/callback/{provider_id}", env)
        )
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    return "\n".join(
        "  ".join([*(cell.ljust(width) for cell, width in zip(row, widths, strict=False)), row[4]])
        for row in rows
    )


def build_parser() -> argparse.ArgumentParser:
    """The ``authui`` command's argument parser."""
    parser = argparse.ArgumentParser(prog="authui", description="authui command line tools")
    commands = parser.add_subparsers(dest="command", required=True)
    secret = commands.add_parser("secret", help="print a new random AUTH_SECRET")
    secret.add_argument(
        "--raw", action="store_true", help="print only the value, not AUTH_SECRET=…"
    )

    commands.add_parser(
        "providers",
        help="list the built-in providers, their callback paths and environment variables",
    )

    messages = commands.add_parser(
        "messages",
        help="authui's translatable messages: the catalogue template, or update the catalogues",
    )
    messages_commands = messages.add_subparsers(dest="messages_command", required=True)
    messages_commands.add_parser(
        "template",
        help="print the catalogue template (authui.pot), to start a locale authui lacks",
    )
    messages_commands.add_parser(
        "update",
        help="in a checkout of authui: rewrite authui.pot from the code and templates and "
        "bring every shipped .po file up to it",
    )

    db = commands.add_parser(
        "db",
        help="create, upgrade and inspect the SQL adapter's tables",
        description="Versioned schema management for the SQL adapter.",
    )
    db_commands = db.add_subparsers(dest="db_command", required=True)
    init = db_commands.add_parser(
        "init", help="create the tables at the latest version (or adopt Auth.js's tables)"
    )
    init.add_argument(
        "--id-type",
        choices=("text", "integer"),
        default=None,
        help="how users.id is stored in a new database: text (authui's uuids, the "
        "default) or integer (Auth.js's PostgreSQL SERIAL); an existing users table "
        "keeps its own",
    )
    init.add_argument(
        "--adopt",
        action="store_true",
        help="adopt the tables an Auth.js app (or create_all) made, after checking their "
        "columns, and add authui's own: Auth.js's tables are left as they are",
    )
    upgrade = db_commands.add_parser("upgrade", help="apply the pending migrations in order")
    status = db_commands.add_parser("status", help="show the current and the latest version")
    for command in (init, upgrade, status):
        command.add_argument(
            "--url", help=f"the database URL (default: ${DATABASE_URL_ENV})", default=None
        )
        command.add_argument(
            "--schema",
            default=None,
            help="the schema (PostgreSQL) or database (MariaDB/MySQL) holding the tables",
        )
        command.add_argument(
            "--table-prefix",
            default="",
            help="a prefix in front of every table name, the version table's included",
        )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``authui`` command; the exit status (0: done, 1: failed, 2: bad usage)."""
    args = build_parser().parse_args(argv)
    if args.command == "secret":
        value = new_secret()
        print(value if args.raw else f'AUTH_SECRET="{value}"')
        if not args.raw:
            print("# Add this line to your .env file or environment.", file=sys.stderr)
        return 0
    if args.command == "providers":
        print(provider_table())
        return 0
    if args.command == "messages":
        return _messages_command(args.messages_command)
    try:
        print(asyncio.run(_database_command(args)))
    except CommandError as exc:
        print(f"authui db {args.db_command}: error: {exc}", file=sys.stderr)
        return 1
    return 0


def _messages_command(command: str) -> int:
    """Run ``authui messages template`` or ``update``."""
    if command == "template":
        sys.stdout.buffer.write(messages.template_text(messages.extract()))
        return 0
    if not messages.in_checkout():
        print(
            "authui messages update: error: this authui is installed, not a checkout; "
            "the catalogues are updated in authui's repository",
            file=sys.stderr,
        )
        return 1
    for path in messages.update():
        print(path)
    return 0


async def _database_command(args: argparse.Namespace) -> str:
    """Run ``authui db …``; the line to print. Every failure becomes a ``CommandError``."""
    try:
        from sqlalchemy.exc import SQLAlchemyError

        from authui.adapters.sql.migrations import MigrationError
        from authui.adapters.sqlalchemy import SQLAlchemyAdapter, SQLNaming
    except ImportError as exc:
        raise CommandError(
            f'authui db needs SQLAlchemy ({exc}): pip install "authui[sqlalchemy]"'
        ) from exc

    url = _database_url(args.url)
    try:
        naming = SQLNaming(schema=args.schema).prefixed(args.table_prefix)
        adapter = SQLAlchemyAdapter(
            url,
            naming=naming,
            id_type=getattr(args, "id_type", None),
            engine_options=_engine_options(url),
        )
    except Exception as exc:
        raise CommandError(_describe(exc, url)) from exc
    try:
        from authui.adapters.sql.migrations import DEFAULT_VERSION_TABLE, SchemaMigrator

        migrator = SchemaMigrator(adapter, version_table=args.table_prefix + DEFAULT_VERSION_TABLE)
        return await _run(args, migrator, _where(url, args))
    except MigrationError as exc:
        raise CommandError(str(exc)) from exc
    except (SQLAlchemyError, OSError, TimeoutError, ImportError, ValueError) as exc:
        raise CommandError(_describe(exc, url)) from exc
    except Exception as exc:  # never a traceback: say what it was
        raise CommandError(f"{type(exc).__name__}: {exc}") from exc
    finally:
        with contextlib.suppress(Exception):  # closing a pool that never connected
            await adapter.close()


async def _run(args: argparse.Namespace, migrator: SchemaMigrator, where: str) -> str:
    if args.db_command == "status":
        return f"{(await migrator.status()).describe()} ({where})"
    if args.db_command == "upgrade":
        result = await migrator.upgrade()
        if not result.applied:
            return f"already up to date at version {result.after}; nothing changed ({where})"
        steps = "; ".join(f"{m.version}: {m.description}" for m in result.applied)
        return f"upgraded from version {result.before} to {result.after} ({steps}) ({where})"
    result = await migrator.init(adopt=args.adopt)
    if result.adopted:
        created = f"; created {', '.join(result.created_tables)}" if result.created_tables else ""
        steps = "; ".join(f"{m.version}: {m.description}" for m in result.applied)
        return (
            f"adopted the existing Auth.js tables, leaving them as they are, and brought the "
            f"schema to version {result.after}{created}{f' ({steps})' if steps else ''} "
            f"({where})"
        )
    if result.changed:
        return f"initialised the authui schema at version {result.after} ({where})"
    status = await migrator.status()
    return f"already initialised, {status.describe()}; nothing changed ({where})"


def _database_url(given: str | None) -> URL:
    """The URL from ``--url`` or the environment, with an async driver."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    raw = given or os.environ.get(DATABASE_URL_ENV)
    if not raw:
        raise CommandError(f"no database URL: pass --url or set {DATABASE_URL_ENV}")
    try:
        url = make_url(raw)
    except (ArgumentError, ValueError) as exc:
        raise CommandError(f"not a database URL: {shown_url(raw)!r} ({exc})") from exc
    if url.drivername in ASYNC_DRIVERS:
        url = url.set(drivername=ASYNC_DRIVERS[url.drivername])
    _check_sqlite_directory(url)
    return url


def _check_sqlite_directory(url: URL) -> None:
    """A SQLite file's directory must exist. (Checked here, as aiosqlite's failed connect
    can report from its worker thread after the command's event loop has closed.)"""
    database = url.database
    if url.get_backend_name() != "sqlite" or not database or database == ":memory:":
        return
    if database.startswith("file:"):
        return
    directory = Path(database).parent
    if not directory.is_dir():
        raise CommandError(
            f"cannot open the SQLite database {database}: the directory {directory} does not exist"
        )
    if not Path(database).exists() and not os.access(directory, os.W_OK):
        raise CommandError(
            f"cannot create the SQLite database {database}: {directory} is read-only"
        )


def _engine_options(url: URL) -> dict[str, Any]:
    """A connect timeout, unless the URL sets one, so an unreachable server fails soon."""
    argument = _TIMEOUT_ARGUMENT.get(url.get_driver_name())
    if argument is None or argument in url.query:
        return {}
    return {"connect_args": {argument: _CONNECT_TIMEOUT}}


def _where(url: URL, args: argparse.Namespace) -> str:
    details = [url.render_as_string(hide_password=True)]
    if args.schema:
        details.append(f"schema {args.schema}")
    if args.table_prefix:
        details.append(f"table prefix {args.table_prefix}")
    return ", ".join(details)


def _describe(exc: BaseException, url: URL) -> str:
    """One readable line for a failure to reach or use the database."""
    from sqlalchemy.exc import DBAPIError, NoSuchModuleError

    shown = url.render_as_string(hide_password=True)
    if isinstance(exc, NoSuchModuleError):
        return (
            f"unknown database driver {url.drivername!r} in {shown} (use sqlite+aiosqlite, "
            "postgresql+asyncpg or mysql+asyncmy)"
        )
    if isinstance(exc, ImportError):
        module = exc.name or url.get_driver_name()
        extra = _EXTRAS.get(module)
        hint = (
            f': pip install "authui[{extra}]"'
            if extra
            else " (authui uses sqlite+aiosqlite, postgresql+asyncpg or mysql+asyncmy)"
        )
        return f"the database driver {module!r} is not installed{hint}"
    if isinstance(exc, DBAPIError) and exc.orig is not None:
        detail = str(exc.orig).strip() or type(exc.orig).__name__
        return f"database error at {shown}: {_first_line(detail)}"
    if isinstance(exc, OSError | TimeoutError):
        detail = str(exc).strip() or type(exc).__name__
        return f"cannot reach the database server at {shown}: {_first_line(detail)}"
    detail = str(exc).strip() or type(exc).__name__
    return f"{_first_line(detail)} ({shown})"


def _first_line(text: str) -> str:
    return text.splitlines()[0] if text else text


if __name__ == "__main__":
    raise SystemExit(main())
