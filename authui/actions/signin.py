"""POST /signin/<provider>: start a sign-in.

OAuth providers send the user to the provider's authorization page; email providers send a
magic link and show the verify-request page. Credentials sign in by
posting to ``/callback/<id>``, so a POST here for them (or without a provider) goes back to
the sign-in page.
"""

from __future__ import annotations

from authui.actions.email import send_link
from authui.actions.oauth.authorize import authorization_url
from authui.context import Context
from authui.errors import InvalidProvider, OAuthSignInError
from authui.http import InternalResponse
from authui.oauth.discovery import DiscoveryError
from authui.providers.email import EmailProvider
from authui.providers.oauth import OAuthProvider


async def post(ctx: Context) -> InternalResponse:
    if ctx.provider_id is None:
        return InternalResponse(redirect=ctx.action_url("signin"))
    provider = ctx.provider
    if isinstance(provider, OAuthProvider):
        try:
            url = await authorization_url(ctx, provider)
        except DiscoveryError as exc:
            raise OAuthSignInError(str(exc), cause={"err": exc, "provider": provider.id}) from exc
        return InternalResponse(redirect=url)
    if isinstance(provider, EmailProvider):
        return await send_link(ctx, provider)
    if provider.type in ("credentials", "webauthn"):
        return InternalResponse(redirect=ctx.action_url("signin"))
    raise InvalidProvider(f"Sign-in with {provider.type!r} providers is not available yet")
