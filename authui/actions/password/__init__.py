"""``<base>/password/<page>``: the pages of password accounts (``authui.providers.password``):
``signup``, ``verify`` (a sign-up's emailed link), ``forgot`` and ``reset`` (a forgotten
password's emailed link). The sign-in itself is the provider's credentials form, posted to
``<base>/callback/password`` (``authui.actions.password.signin``)."""

from __future__ import annotations

from authui.actions.password import reset, signup
from authui.actions.password.common import provider_of
from authui.context import Context
from authui.errors import UnknownAction
from authui.http import InternalResponse


async def get(ctx: Context) -> InternalResponse:
    provider = provider_of(ctx)
    page = ctx.provider_id
    if page == "signup" and provider.sign_up:
        return signup.page(ctx, provider)
    if page == "verify":
        return signup.confirm_page(ctx, provider)
    if page == "forgot":
        return reset.forgot_page(ctx, provider)
    if page == "reset":
        return reset.reset_page(ctx, provider)
    if page == "sent":
        return signup.sent_page(ctx)
    raise UnknownAction(f"There is no password page {page!r}")


async def post(ctx: Context) -> InternalResponse:
    """Every form here is CSRF-checked by the action table."""
    provider = provider_of(ctx)
    page = ctx.provider_id
    if page == "signup" and provider.sign_up:
        return await signup.sign_up(ctx, provider)
    if page == "verify":
        return await signup.confirm(ctx, provider)
    if page == "forgot":
        return await reset.forgot(ctx, provider)
    if page == "reset":
        return await reset.reset(ctx, provider)
    raise UnknownAction(f"There is no password form {page!r}")
