"""Which users have signed in with this browser before: the sealed
``authui.known-browser`` cookie, for the email that tells a user about a sign-in from a
browser they never used (``AccountOptions.notify_new_browser``).

The cookie holds the ids of the last ``KEPT`` users who signed in with the browser, sealed
(encrypted with the secret), for ``AccountOptions.known_browser_days`` (unless the cookie's
``max_age`` is overridden) from the last sign-in, which renews it.
"""

from __future__ import annotations

from authui.context import Context
from authui.cookies import Cookie
from authui.sealed import seal, unseal

KEPT = 10
_BOUND_TO = "account"


def known_users(ctx: Context) -> list[str]:
    """The users who signed in with this browser, most recent first."""
    sealed = unseal(ctx, ctx.cookies.known_browser)
    if sealed is None or sealed.provider != _BOUND_TO or not isinstance(sealed.value, list):
        return []
    return [user for user in sealed.value if isinstance(user, str)]


def remembered(ctx: Context, user_id: str) -> Cookie:
    """The cookie that remembers ``user_id`` in this browser, first of at most ``KEPT``."""
    users = [user_id, *(u for u in known_users(ctx) if u != user_id)][:KEPT]
    option = ctx.cookies.known_browser
    days = ctx.options.config.account.known_browser_days
    return seal(ctx, option, _BOUND_TO, users, max_age=option.options.max_age or days * 86400)
