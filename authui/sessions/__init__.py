"""Session strategies: where a signed-in user's session lives."""

from __future__ import annotations

from authui.options import Options
from authui.sessions.database import DatabaseSessions
from authui.sessions.jwt import JWTSessions

_JWT = JWTSessions()
_DATABASE = DatabaseSessions()


def strategy_for(options: Options) -> JWTSessions | DatabaseSessions:
    """The strategy object for the configured ``session.strategy``."""
    return _DATABASE if options.strategy == "database" else _JWT


__all__ = ["DatabaseSessions", "JWTSessions", "strategy_for"]
