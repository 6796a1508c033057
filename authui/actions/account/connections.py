"""``<base>/account/connections``: the user's accounts at OAuth and OpenID providers; link
another (the sign-in flow, which links a new account to the signed-in user), unlink one.

Unlinking needs a recent sign-in, is refused for the last way to sign in
(``authui.actions.account.ways``), and revokes the account's tokens at the provider
(RFC 7009) where it has a revocation endpoint; a revocation that fails is logged and the
account is unlinked all the same (its tokens are forgotten here).
"""

from __future__ import annotations

from typing import Any

from authui.actions.account.gate import (
    NEEDED_FOR,
    Holder,
    page_url,
    recent,
    step_up,
    step_up_url,
    unavailable,
)
from authui.actions.account.outcome import Outcome, done, refused
from authui.actions.account.pages import Page
from authui.actions.account.ways import linked_accounts, ways_in
from authui.actions.activity import ACCOUNT_UNLINKED, record
from authui.actions.views import provider_view
from authui.adapters.base import AdapterAccount, user_record
from authui.callbacks import emit
from authui.context import Context
from authui.errors import AuthError
from authui.i18n import N_
from authui.oauth.revocation import RevocationError, revocation_endpoint, revoke
from authui.options import Options
from authui.providers.oauth import OAuthProvider


def _offered(options: Options) -> bool:
    return any(isinstance(p, OAuthProvider) for p in options.providers.values())


async def view(ctx: Context, holder: Holder) -> dict[str, Any]:
    missing = unavailable(holder, "list_user_accounts")
    accounts = await linked_accounts(ctx, holder)
    ways = await ways_in(ctx, holder)
    linked = {a.provider for a in accounts}
    providers = ctx.options.providers
    return {
        "unavailable": missing,
        "accounts": [
            {
                **provider_view(ctx, providers[a.provider]),
                "provider": a.provider,
                "providerAccountId": a.provider_account_id,
                "type": a.type,
                "canUnlink": ways.count > 1,
            }
            for a in accounts
        ],
        "available": [
            provider_view(ctx, p)
            for p in providers.values()
            if isinstance(p, OAuthProvider) and p.id not in linked
        ],
        "linkCallbackUrl": page_url(ctx, "connections"),
        "fresh": recent(ctx, holder),
        "reauthenticateUrl": step_up_url(ctx, page_url(ctx, "connections")),
    }


async def revoke_tokens(ctx: Context, account: AdapterAccount) -> None:
    """Revoke the account's tokens at its provider (RFC 7009), where it can be; a failure
    is logged."""
    provider = ctx.options.providers.get(account.provider)
    if not isinstance(provider, OAuthProvider):
        return
    endpoint = await revocation_endpoint(provider, ctx.options.discovery)
    if endpoint is None:
        return
    for token, hint in (
        (account.refresh_token, "refresh_token"),
        (account.access_token, "access_token"),
    ):
        if not token:
            continue
        try:
            await revoke(provider, endpoint, token, hint)
        except RevocationError as exc:
            ctx.options.logger.error(AuthError(f"Revoking a {provider.id} token failed: {exc}"))
        return  # revoking the refresh token ends the grant (RFC 7009 §2.1)


async def act(ctx: Context, holder: Holder) -> Outcome:
    if ctx.body.get("intent") != "unlink":
        return refused("This form cannot do that.")
    provider, account_id = ctx.body.get("provider"), ctx.body.get("providerAccountId")
    accounts = await linked_accounts(ctx, holder)
    account = next(
        (a for a in accounts if a.provider == provider and a.provider_account_id == account_id),
        None,
    )
    if account is None:
        return refused("This account is not linked to you.", status=404)
    stepped = step_up(ctx, holder, page_url(ctx, "connections"))
    if stepped is not None:
        return stepped
    if (await ways_in(ctx, holder)).count <= 1:
        return refused(
            "This is your only way to sign in: add another one before you unlink it.",
            status=409,
        )
    await holder.adapter.call(
        "unlink_account", NEEDED_FOR, account.provider, account.provider_account_id
    )
    await revoke_tokens(ctx, account)
    await emit(
        ctx.options.config.events.unlink_account,
        ctx.options.logger,
        user=user_record(holder.user),
        account={
            "provider": account.provider,
            "providerAccountId": account.provider_account_id,
            "type": account.type,
        },
    )
    await record(ctx, holder.user.id, ACCOUNT_UNLINKED, provider=account.provider)
    return done("unlinked")


PAGE = Page(
    "connections", N_("Connected accounts"), "account/connections.html", view, act, offered=_offered
)
