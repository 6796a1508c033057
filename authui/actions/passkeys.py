"""GET /passkeys: the passkeys page moved into the account center; this address sends
browsers on to ``<base>/account/passkeys`` (kept for links made before)."""

from __future__ import annotations

from authui.context import Context
from authui.http import InternalResponse


async def get(ctx: Context) -> InternalResponse:
    return InternalResponse(redirect=ctx.action_url("account", "passkeys"))
