"""GET ``<base>/account``: who is signed in, and a short word on each part of the account."""

from __future__ import annotations

from typing import Any

from authui.actions.account.gate import Holder
from authui.actions.account.pages import Page
from authui.actions.account.ways import ways_in
from authui.context import Context
from authui.i18n import N_


async def view(ctx: Context, holder: Holder) -> dict[str, Any]:
    ways = await ways_in(ctx, holder)
    return {
        "signIn": holder.signed_in.facts.json(),
        "accounts": len(ways.accounts),
        "passkeys": len(ways.passkeys),
        "emailSignIn": ways.email,
    }


PAGE = Page("", N_("Your account"), "account/overview.html", view, in_menu=True)
