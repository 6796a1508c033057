"""GET /providers: the configured providers and their URLs, in config order."""

from __future__ import annotations

from authui.context import Context
from authui.http import InternalResponse


async def get(ctx: Context) -> InternalResponse:
    body = {
        p.id: {
            "id": p.id,
            "name": p.name,
            "type": p.type,
            "signinUrl": ctx.action_url("signin", p.id),
            "callbackUrl": ctx.action_url("callback", p.id),
        }
        for p in ctx.options.providers.values()
    }
    ctx.set_cookies.clear()
    return InternalResponse.json(200, body)
