"""``<base>/account/reauthenticate``: the step-up page. A sensitive change asks the user to
sign in again; this page offers their own ways in (their linked providers, their passkeys,
a link to their address, the credentials forms) and, once they have signed in, sends them
back to the change (``callbackUrl``).

Showing the page marks the step-up (``authui.actions.step_up``): the sign-in that follows
must be this user's, or it is refused and the session stays as it was.
"""

from __future__ import annotations

from typing import Any

from authui.actions.account.gate import Holder, page_url
from authui.actions.account.pages import Page
from authui.actions.account.ways import (
    email_provider,
    linked_accounts,
    passkey_provider,
    user_passkeys,
)
from authui.actions.step_up import mark
from authui.actions.views import provider_view
from authui.context import Context
from authui.i18n import N_
from authui.providers.credentials import Credentials
from authui.urls import with_query


async def view(ctx: Context, holder: Holder) -> dict[str, Any]:
    ctx.set_cookies.append(mark(ctx, holder.user.id))
    providers = ctx.options.providers
    accounts = await linked_accounts(ctx, holder)
    passkey = passkey_provider(ctx.options)
    has_passkeys = passkey is not None and bool(await user_passkeys(ctx, holder))
    email = email_provider(ctx.options)
    back = ctx.callback_url if ctx.callback_url != ctx.origin else page_url(ctx, "")
    if back.startswith(page_url(ctx, "")):  # an account page says the sign-in worked
        back = with_query(back, {"notice": "reauthenticated"})
    return {
        "returnTo": back,
        "oauth": [provider_view(ctx, providers[a.provider]) for a in accounts],
        "passkey": provider_view(ctx, passkey) if passkey and has_passkeys else None,
        "email": provider_view(ctx, email) if email and holder.user.email else None,
        "credentials": [
            provider_view(ctx, p) for p in providers.values() if isinstance(p, Credentials)
        ],
        "signIn": holder.signed_in.facts.json(),
    }


PAGE = Page(
    "reauthenticate", N_("Confirm it is you"), "account/reauthenticate.html", view, in_menu=False
)
