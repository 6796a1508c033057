"""Session strategies: where a signed-in user's session lives."""

from __future__ import annotations

from authui.errors import UnsupportedStrategy
from authui.options import Options
from authui.sessions.jwt import JWTSessions

_JWT = JWTSessions()


def strategy_for(options: Options) -> JWTSessions:
    """The strategy object for the configured ``session.strategy``.

    Raises:
        UnsupportedStrategy: The strategy is not available.
    """
    if options.strategy == "jwt":
        return _JWT
    raise UnsupportedStrategy(
        f"Session strategy {options.strategy!r} is not available in this version of authui"
    )


__all__ = ["JWTSessions", "strategy_for"]
