"""Who the request's session cookie signs in, as a stored user (for linking decisions)."""

from __future__ import annotations

from authui.adapters.base import AdapterCalls, AdapterUser
from authui.context import Context
from authui.dates import now
from authui.jwt import JWTDecodeError
from authui.sessions.jwt import decode_token


async def signed_in_user(
    ctx: Context, adapter: AdapterCalls, needed_for: str
) -> AdapterUser | None:
    """The stored user of this request's session: for JWT sessions the user whose id is
    the token's ``sub``, for database sessions the unexpired session's user."""
    token = ctx.session_chunks().value
    if not token:
        return None
    if ctx.options.strategy == "jwt":
        try:
            claims = await decode_token(ctx, token)
        except JWTDecodeError:
            return None
        sub = (claims or {}).get("sub")
        found: AdapterUser | None = (
            await adapter.call("get_user", needed_for, sub) if isinstance(sub, str) else None
        )
        return found
    pair = await adapter.call("get_session_and_user", needed_for, token)
    if pair is None or pair[0].expires < now():
        return None
    user: AdapterUser = pair[1]
    return user
