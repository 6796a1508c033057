"""GET /webauthn-options/<provider>: passkey ceremony options (WebAuthn providers only)."""

from __future__ import annotations

from authui.context import Context
from authui.errors import InvalidProvider
from authui.http import InternalResponse
from authui.providers.webauthn import WebAuthnProvider
from authui.webauthn.ceremony import options


async def get(ctx: Context) -> InternalResponse:
    provider = ctx.provider
    if isinstance(provider, WebAuthnProvider):
        return await options(ctx, provider)
    raise InvalidProvider(f"Provider {provider.id!r} is not a WebAuthn provider")
