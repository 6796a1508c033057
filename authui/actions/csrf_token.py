"""GET /csrf: the CSRF token for clients that build their own forms."""

from __future__ import annotations

from authui.context import Context
from authui.cookies import deletion
from authui.http import NO_CACHE, InternalResponse


async def get(ctx: Context) -> InternalResponse:
    if ctx.options.config.skip_csrf_check is not None:
        ctx.options.logger.warn("csrf-disabled")
        option = ctx.cookies.csrf_token
        return InternalResponse(status=404, cookies=[deletion(option.name, option.options)])
    return InternalResponse.json(200, {"csrfToken": ctx.csrf.token}, NO_CACHE)
