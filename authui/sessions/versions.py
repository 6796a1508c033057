"""Signing a user out everywhere with JWT sessions: a version number per user.

A JWT session cannot be deleted on the server, so each token carries ``sv``, its user's
session version when it was made (``0`` when the adapter has never counted one).
"Sign out everywhere" adds one to the version (``bump_session_version``, an optional
adapter method); a token with an older ``sv`` ends at its next check that reads the
version. The session check reads it only when it re-issues the token for its age, at most
once per ``session.update_age`` per browser, so that checks stay free of database reads:
other browsers are signed out within ``update_age`` (a day by default). The account
center's pages read it on every request.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from authui.context import Context

NEEDED_FOR = "signing out everywhere with JWT sessions"


async def session_version(ctx: Context, user_id: object) -> int | None:
    """The user's current session version; ``None`` when the adapter keeps none (no
    adapter, or one without ``get_session_version``) or ``user_id`` is no id."""
    adapter = ctx.options.adapter
    if adapter is None or not adapter.has("get_session_version") or not isinstance(user_id, str):
        return None
    version: int = await adapter.call("get_session_version", NEEDED_FOR, user_id)
    return version


def version_claim(version: int | None) -> dict[str, Any]:
    """The ``sv`` claim of a new token (none when versions are not kept)."""
    return {} if version is None else {"sv": version}


def outdated(token: Mapping[str, Any], version: int | None) -> bool:
    """Whether ``token`` was made before its user's sessions were ended (its ``sv``, or
    ``0`` without one, is older than ``version``)."""
    if version is None:
        return False
    issued = token.get("sv")
    kept = issued if isinstance(issued, int) and not isinstance(issued, bool) else 0
    return kept < version
