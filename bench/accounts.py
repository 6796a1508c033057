"""The bench accounts, shared by the servers (``bench.apps``) and the harness: plain
values, so that importing them builds no app."""

from __future__ import annotations

NAME = "Bench User"
"""The name every bench user has; a signed-in session shows it."""
BROWSERS = 4
"""The sign-in round trips' concurrent browsers (``bench.measure.round_trips``)."""
LOGINS = ("bench", *(f"bench-{n}" for n in range(2, BROWSERS + 1)))
"""Usernames the credentials provider takes (with the password "bench"): one per browser
where the throttle's counts are the adapter's (the password server). Four browsers
signing in to one account at once there were refused after a few seconds (``429``, the
account's limit of failed attempts), though none of their attempts failed."""
EMAILS = ("bench@example.com", *(f"bench-{n}@example.com" for n in range(2, BROWSERS + 1)))
"""The password users (``bench.passwords.seed``), one per browser, for the same reason."""
PASSWORD = "bench-password-1"
"""Their password."""
