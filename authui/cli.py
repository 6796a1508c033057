"""The ``authui`` command line."""

from __future__ import annotations

import argparse
import secrets
import sys
from collections.abc import Sequence


def new_secret() -> str:
    """A new random secret: 32 random bytes, base64url (43 characters)."""
    return secrets.token_urlsafe(32)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``authui`` command."""
    parser = argparse.ArgumentParser(prog="authui", description="authui command line tools")
    commands = parser.add_subparsers(dest="command", required=True)
    secret = commands.add_parser("secret", help="print a new random AUTH_SECRET")
    secret.add_argument(
        "--raw", action="store_true", help="print only the value, not AUTH_SECRET=…"
    )
    args = parser.parse_args(argv)
    if args.command == "secret":
        value = new_secret()
        print(value if args.raw else f'AUTH_SECRET="{value}"')
        if not args.raw:
            print("# Add this line to your .env file or environment.", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
