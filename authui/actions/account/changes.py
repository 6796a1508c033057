"""A change to the signed-in user's record, everywhere it shows: stored, announced
(``update_user``), and in a JWT session's token (re-issued with the new claims)."""

from __future__ import annotations

from authui.actions.account.gate import NEEDED_FOR, Holder, page_url
from authui.actions.notices import tell_change
from authui.adapters.base import AdapterCalls, AdapterUser, UserChanges, user_record
from authui.callbacks import emit
from authui.context import Context
from authui.cookies import Cookie
from authui.sessions import JWTSessions, strategy_for

_CLAIMS = {"name": "name", "email": "email", "image": "picture"}


async def change_user(
    ctx: Context, adapter: AdapterCalls, user_id: str, changes: UserChanges, *, own_session: bool
) -> tuple[AdapterUser, list[Cookie]]:
    """Store ``changes`` of the user ``user_id`` and emit ``update_user``; with
    ``own_session`` (the request's session is that user's), a JWT session is re-issued with
    the new name, email and picture. Returns the stored user and the cookies to set."""
    updated: AdapterUser = await adapter.call("update_user", NEEDED_FOR, user_id, changes)
    await emit(ctx.options.config.events.update_user, ctx.options.logger, user=user_record(updated))
    strategy = strategy_for(ctx.options)
    if not own_session or not isinstance(strategy, JWTSessions):
        return updated, []  # a database session reads the user anew at every check
    claims = {claim: changes[key] for key, claim in _CLAIMS.items() if key in changes}  # type: ignore[literal-required]
    _, cookies = await strategy.read(ctx, claims=claims)
    return updated, cookies


async def tell_owner(ctx: Context, holder: Holder, advice: str, heading: str, line: str) -> None:
    """Tell the user's address about a change to how the account signs in (see
    ``authui.actions.notices.tell_change``), with a button to the account's activity."""
    await tell_change(
        ctx,
        holder.user.email,
        heading=heading,
        line=line,
        advice=advice,
        activity_url=page_url(ctx, "activity"),
    )
