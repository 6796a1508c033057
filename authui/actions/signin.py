"""POST /signin/<provider>: start a sign-in.

Credentials sign in by posting to ``/callback/<id>``, so a POST here for them (or without a
provider) goes back to the sign-in page.
"""

from __future__ import annotations

from authui.context import Context
from authui.errors import InvalidProvider
from authui.http import InternalResponse


async def post(ctx: Context) -> InternalResponse:
    if ctx.provider_id is None:
        return InternalResponse(redirect=ctx.action_url("signin"))
    provider = ctx.provider
    if provider.type in ("credentials", "webauthn"):
        return InternalResponse(redirect=ctx.action_url("signin"))
    raise InvalidProvider(f"Sign-in with {provider.type!r} providers is not available yet")
