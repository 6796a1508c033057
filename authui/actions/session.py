"""GET /session (check) and POST /session (update)."""

from __future__ import annotations

from authui.context import Context
from authui.http import NO_CACHE, InternalResponse
from authui.sessions import strategy_for


async def get(ctx: Context) -> InternalResponse:
    session, cookies = await strategy_for(ctx.options).read(ctx)
    return InternalResponse.json(200, session, NO_CACHE, cookies)


async def post(ctx: Context) -> InternalResponse:
    session, cookies = await strategy_for(ctx.options).read(
        ctx, is_update=True, new_session=ctx.body.get("data")
    )
    return InternalResponse.json(200, session, cookies=cookies)
