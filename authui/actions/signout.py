"""POST /signout: end the session and go back to the callback URL."""

from __future__ import annotations

from authui.context import Context
from authui.http import InternalResponse
from authui.sessions import strategy_for


async def post(ctx: Context) -> InternalResponse:
    cookies = await strategy_for(ctx.options).destroy(ctx)
    return InternalResponse(redirect=ctx.callback_url, cookies=cookies)
