"""POST /signout: end the session and go back to the callback URL."""

from __future__ import annotations

from authui.actions.audit import signed_out
from authui.adapters.base import require_adapter
from authui.context import Context
from authui.http import InternalResponse
from authui.sessions import strategy_for
from authui.sessions.database import NEEDED_FOR
from authui.sessions.jwt import decode_token


async def post(ctx: Context) -> InternalResponse:
    user_id = await _session_user_id(ctx)
    cookies = await strategy_for(ctx.options).destroy(ctx)
    if cookies:
        signed_out(ctx, user_id)
    return InternalResponse(redirect=ctx.callback_url, cookies=cookies)


async def _session_user_id(ctx: Context) -> str | None:
    """Whose session is ending, for the log line; ``None`` when it cannot be read (ending
    it logs why)."""
    value = ctx.session_chunks().value
    if not value:
        return None
    try:
        if ctx.options.strategy == "database":
            found = await require_adapter(ctx.options.adapter, NEEDED_FOR).call(
                "get_session_and_user", NEEDED_FOR, value
            )
            return str(found[0].user_id) if found is not None else None
        token = await decode_token(ctx, value)
    except Exception:
        return None
    subject = (token or {}).get("sub")
    return str(subject) if subject is not None else None
