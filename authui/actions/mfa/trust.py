"""Browsers a user trusts to skip the second factor ("trust this browser for N days").

The browser keeps the sealed ``authui.trusted-browser`` cookie, naming for each user who
trusted it a random browser id; the adapter keeps a ``TrustedBrowser`` row per id
(``save_trusted_browser``), which the account center lists and revokes. The cookie counts
only while its row is there and unexpired: revoking deletes the row, and the cookie is
worth nothing from then on, even copied.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from authui.adapters.factors import TrustedBrowser
from authui.context import Context
from authui.cookies import Cookie
from authui.dates import now
from authui.proxies import client_address
from authui.sealed import seal, unseal
from authui.user_agents import kept_client, kept_user_agent

NEEDED_FOR = "trusted browsers"
KEPT = 10
"""How many users' trust one browser remembers."""
_BOUND_TO = "mfa"


def _entries(ctx: Context) -> list[dict[str, str]]:
    sealed = unseal(ctx, ctx.cookies.trusted_browser)
    if sealed is None or sealed.provider != _BOUND_TO or not isinstance(sealed.value, list):
        return []
    return [
        entry
        for entry in sealed.value
        if isinstance(entry, dict)
        and isinstance(entry.get("user"), str)
        and isinstance(entry.get("id"), str)
    ]


def offered(ctx: Context) -> bool:
    """Whether the challenge offers to trust the browser."""
    adapter = ctx.options.adapter
    return (
        ctx.options.config.mfa.trust_days > 0
        and adapter is not None
        and adapter.has("save_trusted_browser")
        and adapter.has("get_trusted_browser")
    )


async def trusted(ctx: Context, user_id: str) -> bool:
    """Whether ``user_id`` trusted this browser, and still does."""
    if not offered(ctx):
        return False
    adapter = ctx.options.adapter
    assert adapter is not None
    for entry in _entries(ctx):
        if entry["user"] != user_id:
            continue
        row: TrustedBrowser | None = await adapter.call(
            "get_trusted_browser", NEEDED_FOR, entry["id"]
        )
        if row is not None and row.user_id == user_id and row.expires > now():
            return True
    return False


async def trust(ctx: Context, user_id: str) -> Cookie:
    """Trust this browser for ``user_id`` (``MfaOptions.trust_days``): the row, and the
    cookie naming it."""
    adapter = ctx.options.adapter
    assert adapter is not None
    days = ctx.options.config.mfa.trust_days
    started = now()
    browser = TrustedBrowser(
        browser_id=secrets.token_urlsafe(24),
        user_id=user_id,
        created=started,
        expires=started + timedelta(days=days),
        user_agent=kept_user_agent(ctx.request.headers.get("user-agent")),
        client=kept_client(client_address(ctx.request, ctx.options.config.trusted_proxies)),
    )
    await adapter.call("save_trusted_browser", NEEDED_FOR, browser)
    others = [e for e in _entries(ctx) if e["user"] != user_id]
    entries = [{"user": user_id, "id": browser.browser_id}, *others][:KEPT]
    option = ctx.cookies.trusted_browser
    return seal(ctx, option, _BOUND_TO, entries, max_age=option.options.max_age or days * 86400)
