"""``<base>/account/delete``: the user deletes their account, after a recent sign-in.

The user goes with their accounts, sessions and passkeys (the adapter's ``delete_user``,
which Auth.js itself never calls, and which authui's adapters make delete authui's own
rows of the user too); the accounts' tokens are revoked at providers that allow it; the
``delete_user`` event is emitted, and the browser is signed out. With JWT sessions, the
user's session version is bumped, so that their sessions in other browsers end as "sign
out everywhere" ends them (within ``session.update_age``).
"""

from __future__ import annotations

from typing import Any

from authui.actions.account.connections import revoke_tokens
from authui.actions.account.gate import NEEDED_FOR, Holder, page_url, recent, step_up, step_up_url
from authui.actions.account.outcome import Outcome, refused
from authui.actions.account.pages import Page
from authui.actions.account.ways import linked_accounts
from authui.actions.activity import ACCOUNT_DELETED, record
from authui.actions.audit import signed_out
from authui.adapters.base import user_record
from authui.callbacks import emit
from authui.context import Context
from authui.http import InternalResponse
from authui.i18n import N_
from authui.options import Options

DELETED_PATH = "deleted"
"""``<base>/account/deleted``: where the browser goes once the account is deleted."""


def _offered(options: Options) -> bool:
    return options.config.account.allow_delete


async def view(ctx: Context, holder: Holder) -> dict[str, Any]:
    return {
        "fresh": recent(ctx, holder),
        "reauthenticateUrl": step_up_url(ctx, page_url(ctx, "delete")),
    }


async def act(ctx: Context, holder: Holder) -> Outcome:
    if ctx.body.get("intent") != "delete":
        return refused("This form cannot do that.")
    if ctx.body.get("confirm") not in ("yes", "on", "true", True):
        return refused(
            "Tick the box to confirm that the account and its data go for good.",
            field_name="confirm",
        )
    stepped = step_up(ctx, holder, page_url(ctx, "delete"))
    if stepped is not None:
        return stepped
    accounts = await linked_accounts(ctx, holder)
    await holder.adapter.call("delete_user", NEEDED_FOR, holder.user.id)
    if holder.can("bump_session_version"):  # the user's JWT sessions elsewhere end too
        await holder.adapter.call("bump_session_version", NEEDED_FOR, holder.user.id)
    for account in accounts:
        await revoke_tokens(ctx, account)
    await emit(
        ctx.options.config.events.delete_user, ctx.options.logger, user=user_record(holder.user)
    )
    await record(ctx, holder.user.id, ACCOUNT_DELETED, kept=False)
    signed_out(ctx, holder.user.id)
    gone = Outcome(data={"deleted": True}, cookies=ctx.session_chunks().clear())
    gone.leave = page_url(ctx, DELETED_PATH)
    return gone


def deleted_page(ctx: Context) -> InternalResponse:
    """The page a deleted account's browser lands on (no session needed: it has none)."""
    return ctx.options.renderer.page(
        "account/deleted.html", N_("Account deleted"), site_url=ctx.origin
    )


PAGE = Page("delete", N_("Delete account"), "account/delete.html", view, act, offered=_offered)
