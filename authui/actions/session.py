"""GET /session (check) and POST /session (update)."""

from __future__ import annotations

from authui.actions.csrf_token import NO_CACHE
from authui.context import Context
from authui.http import InternalResponse
from authui.sessions import strategy_for

JSON = ("Content-Type", "application/json")


async def get(ctx: Context) -> InternalResponse:
    session, cookies = await strategy_for(ctx.options).read(ctx)
    return InternalResponse(headers=[JSON, *NO_CACHE], body=session, cookies=cookies)


async def post(ctx: Context) -> InternalResponse:
    session, cookies = await strategy_for(ctx.options).read(
        ctx, is_update=True, new_session=ctx.body.get("data")
    )
    return InternalResponse(headers=[JSON], body=session, cookies=cookies)
