"""GET and POST /new-user: a welcome page where a new user sets their display name.

Auth.js only redirects to ``pages.new_user``; authui ships the page. Its form posts back
here (CSRF-checked); the name is stored in the session through the ``update`` path, so the
``jwt`` callback sees it with ``trigger="update"``.
"""

from __future__ import annotations

from typing import Any

from authui.actions.views import form_context
from authui.context import Context
from authui.http import InternalResponse
from authui.i18n import N_, translate_plural
from authui.sessions import strategy_for

MAX_NAME_LENGTH = 100


async def _page(ctx: Context, *, user: Any, name: str, error: str | None) -> InternalResponse:
    return ctx.options.renderer.page(
        "new_user.html",
        N_("Welcome"),
        422 if error else 200,
        action=ctx.action_url("new-user"),
        user=user,
        name=name,
        error=error,
        max_name_length=MAX_NAME_LENGTH,
        **form_context(ctx),
    )


async def get(ctx: Context) -> InternalResponse:
    custom = ctx.options.config.pages.new_user
    if custom:
        return InternalResponse(redirect=custom)
    session, cookies = await strategy_for(ctx.options).read(ctx)
    if not session:
        return InternalResponse(redirect=ctx.action_url("signin"), cookies=cookies)
    user = session.get("user") or {}
    page = await _page(ctx, user=user, name=str(user.get("name") or ""), error=None)
    page.cookies = cookies
    return page


async def post(ctx: Context) -> InternalResponse:
    raw_name = ctx.body.get("name")
    name = " ".join(raw_name.split()) if isinstance(raw_name, str) else ""
    if not name or len(name) > MAX_NAME_LENGTH:
        error = translate_plural(
            "Enter a name of 1 to {n} character.",
            "Enter a name of 1 to {n} characters.",
            MAX_NAME_LENGTH,
        )
        return await _page(ctx, user={}, name=name[:MAX_NAME_LENGTH], error=error)
    session, cookies = await strategy_for(ctx.options).read(
        ctx, is_update=True, new_session={"user": {"name": name}}, claims={"name": name}
    )
    if not session:
        return InternalResponse(redirect=ctx.action_url("signin"), cookies=cookies)
    return InternalResponse(redirect=ctx.callback_url, cookies=cookies)
