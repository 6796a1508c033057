"""Ending every session of a user at once (a password reset, a password change): database
sessions are deleted, JWT sessions end by the user's session version
(``authui.sessions.versions``, within ``update_age``)."""

from __future__ import annotations

from authui.context import Context
from authui.cookies import Cookie
from authui.sessions import JWTSessions, strategy_for

NEEDED_FOR = "ending a user's sessions"


async def end_every_session(ctx: Context, user_id: str, *, except_token: str | None = None) -> int:
    """End the user's sessions but the database session ``except_token``; returns the new
    session version (``0`` when the adapter keeps none). Both kinds end, whatever the
    strategy, as a store may hold sessions of both (the strategy changed once)."""
    adapter = ctx.options.adapter
    if adapter is None:
        return 0
    if adapter.has("delete_user_sessions"):
        await adapter.call("delete_user_sessions", NEEDED_FOR, user_id, except_token)
    if adapter.has("bump_session_version"):
        version: int = await adapter.call("bump_session_version", NEEDED_FOR, user_id)
        return version
    return 0


async def kept_at_version(ctx: Context, version: int) -> list[Cookie]:
    """With JWT sessions, this browser's session re-issued at the user's new session
    ``version``, so that it outlives the others it ended; nothing otherwise."""
    strategy = strategy_for(ctx.options)
    if not isinstance(strategy, JWTSessions) or not ctx.session_chunks().value:
        return []
    _, cookies = await strategy.read(ctx, claims={"sv": version})
    return cookies
