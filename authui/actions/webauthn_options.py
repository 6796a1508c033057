"""GET /webauthn-options/<provider>: passkey ceremony options (WebAuthn providers only)."""

from __future__ import annotations

from authui.context import Context
from authui.errors import InvalidProvider
from authui.http import InternalResponse


async def get(ctx: Context) -> InternalResponse:
    provider = ctx.provider
    raise InvalidProvider(f"Provider {provider.id!r} is not a WebAuthn provider")
