"""GET and POST /callback/<provider>: finish a sign-in."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from authui.actions.authorized import finish_sign_in
from authui.actions.views import form_context, provider_view
from authui.callbacks import invoke_positional
from authui.context import Context
from authui.errors import (
    AuthError,
    CallbackRouteError,
    CredentialsSignin,
    InvalidProvider,
    MissingAuthorize,
    MissingCSRF,
)
from authui.http import InternalResponse
from authui.pages import signin_error_message
from authui.providers.credentials import Credentials


async def get(ctx: Context) -> InternalResponse:
    provider = ctx.provider
    raise InvalidProvider(f"GET callbacks are not supported for {provider.type!r} providers")


async def post(ctx: Context) -> InternalResponse:
    provider = ctx.provider
    if isinstance(provider, Credentials):
        if not ctx.csrf.verified:
            raise MissingCSRF("CSRF token was missing during a credentials sign-in")
        try:
            return await _credentials(ctx, provider)
        except AuthError:
            raise
        except Exception as exc:
            raise CallbackRouteError(cause={"err": exc, "provider": provider.id}) from exc
    raise InvalidProvider(f"POST callbacks are not supported for {provider.type!r} providers")


def inline_error(ctx: Context, error: AuthError) -> InternalResponse | None:
    """For htmx: a refused credentials sign-in answered with the form itself, its message
    shown and the typed values (never passwords) kept; ``None`` for every other failure."""
    if ctx.action != "callback" or ctx.method != "POST" or error.kind != "signIn":
        return None
    provider = ctx.options.providers.get(ctx.provider_id or "")
    if not isinstance(provider, Credentials) or not error.client_safe:
        return None
    view = provider_view(ctx, provider, values=ctx.body, error=signin_error_message(error.type))
    answer = ctx.options.renderer.fragment(
        "forms/credentials.html", provider=view, **form_context(ctx)
    )
    answer.cookies = list(ctx.set_cookies)  # a CSRF token issued now must reach the browser
    return answer


async def _credentials(ctx: Context, provider: Credentials) -> InternalResponse:
    if provider.authorize is None:
        raise MissingAuthorize(f"Credentials provider {provider.id!r} has no authorize function")
    result = await invoke_positional(provider.authorize, dict(ctx.body), ctx.request)
    if result is None:
        raise CredentialsSignin()
    if not isinstance(result, Mapping):
        raise TypeError(f"authorize must return a mapping or None, not {type(result).__name__}")
    user: dict[str, Any] = dict(result)
    user["id"] = str(user["id"]) if user.get("id") is not None else str(uuid.uuid4())
    account = {"providerAccountId": user["id"], "type": "credentials", "provider": provider.id}
    return await finish_sign_in(
        ctx, user=user, account=account, credentials=dict(ctx.body), is_new_user=False
    )
