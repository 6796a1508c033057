"""GET /passkeys: the signed-in user's passkeys, and a button to add one (an authui page;
Auth.js has none). Needs a passkey provider; signed-out visitors go to the sign-in page."""

from __future__ import annotations

from authui.adapters.base import AdapterAuthenticator, require_adapter
from authui.context import Context
from authui.errors import InvalidProvider
from authui.http import InternalResponse
from authui.providers.webauthn import WebAuthnProvider
from authui.sessions.current import signed_in_user
from authui.urls import with_query

NEEDED_FOR = "the passkeys page"


async def get(ctx: Context) -> InternalResponse:
    provider = next(
        (p for p in ctx.options.providers.values() if isinstance(p, WebAuthnProvider)), None
    )
    if provider is None:
        raise InvalidProvider("The passkeys page needs a passkey provider")
    adapter = require_adapter(ctx.options.adapter, NEEDED_FOR)
    user = await signed_in_user(ctx, adapter, NEEDED_FOR)
    if user is None:
        back = {"callbackUrl": ctx.action_url("passkeys")}
        return InternalResponse(redirect=with_query(ctx.action_url("signin"), back))
    found: list[AdapterAuthenticator] = await adapter.call(
        "list_authenticators_by_user_id", NEEDED_FOR, user.id
    )
    passkeys = [
        {
            "label": a.credential_id[:12],
            "synced": a.credential_backed_up or a.credential_device_type == "multiDevice",
            "uses": a.counter,
        }
        for a in found
    ]
    return ctx.options.renderer.page(
        "passkeys.html",
        "Passkeys",
        passkeys=passkeys,
        provider_id=provider.id,
        options_url=ctx.action_url("webauthn-options", provider.id),
        callback_url_action=ctx.action_url("callback", provider.id),
        email=user.email or "",
        csrf_token=ctx.csrf.token,
        callback_url=ctx.action_url("passkeys"),
    )
