"""GET and POST ``<base>/account/<page>``: the account center, where a signed-in user manages
their own account (``docs/how-to/account-center.md``).

Each page is a module with a ``PAGE`` (``authui.actions.account.pages.Page``): what it
shows (``view``) and, for pages with forms, what its posts do (``act``, by the form's
``intent``). Every page answers browsers with a themed page (htmx-enhanced, and working
without JavaScript) and API clients with JSON; every post is CSRF-checked (except the
app's own calls, ``auth.account``), and the sensitive ones ask for a recent sign-in
(``authui.actions.account.gate.step_up``). Signed-out visitors go to the sign-in page, and
come back.
"""

from __future__ import annotations

from authui.actions.account import (
    activity_page,
    connections,
    delete,
    email_change,
    overview,
    passkeys,
    password,
    profile,
    reauthenticate,
    sessions,
    two_factor,
)
from authui.actions.account.gate import NEEDED_FOR, Holder, page_url
from authui.actions.account.outcome import NOTICES, Outcome, refused, wants_json
from authui.actions.account.pages import Page, render
from authui.actions.throttling import counter_for
from authui.adapters.base import require_adapter
from authui.context import Context
from authui.errors import MissingCSRF, UnknownAction
from authui.http import InternalResponse
from authui.sessions.current import signed_in
from authui.throttle import digest
from authui.urls import with_query

POSTS_PER_WINDOW = 60
POST_WINDOW = 600
"""How many account changes one user may post in ``POST_WINDOW`` seconds (counted by the
shared counters, as sign-in attempts are); more are answered 429."""

PAGES: dict[str, Page] = {
    page.name: page
    for page in (
        overview.PAGE,
        profile.PAGE,
        connections.PAGE,
        passkeys.PAGE,
        password.PAGE,
        two_factor.PAGE,
        sessions.PAGE,
        activity_page.PAGE,
        delete.PAGE,
        reauthenticate.PAGE,
    )
}
"""The pages a signed-in user sees, by the last part of their path."""


def _served(ctx: Context) -> None:
    """Raise ``UnknownAction`` (answered as any unknown action is) when the account center
    is turned off or has no adapter to keep what it shows."""
    if not ctx.options.config.account.enabled:
        raise UnknownAction("The account center is turned off (AccountOptions.enabled)")
    if ctx.options.adapter is None:
        raise UnknownAction("The account center needs an adapter, and the configuration has none")


def _page(ctx: Context) -> Page:
    page = PAGES.get(ctx.provider_id or "")
    if page is None or not page.offered(ctx.options):
        raise UnknownAction(f"There is no account page {ctx.provider_id!r}")
    return page


async def _holder(ctx: Context) -> Holder | None:
    adapter = require_adapter(ctx.options.adapter, NEEDED_FOR)
    current = await signed_in(ctx, adapter, NEEDED_FOR, check_version=True)
    return None if current is None else Holder(current, adapter)


def _sign_in_first(ctx: Context, page: Page) -> InternalResponse:
    """Signed out: browsers go to the sign-in page and come back; API clients get 401."""
    if wants_json(ctx):
        outcome = refused("Sign in to manage your account.", status=401)
        return InternalResponse.json(401, outcome.json())
    back = {"callbackUrl": page_url(ctx, page.name)}
    return InternalResponse(redirect=with_query(ctx.action_url("signin"), back))


async def get(ctx: Context) -> InternalResponse:
    """Show a page (its data as JSON for API clients)."""
    _served(ctx)
    if ctx.provider_id == email_change.PATH:
        return await email_change.get(ctx)
    if ctx.provider_id == delete.DELETED_PATH:
        return delete.deleted_page(ctx)
    page = _page(ctx)
    holder = await _holder(ctx)
    if holder is None:
        return _sign_in_first(ctx, page)
    notice = ctx.query.get("notice")
    shown = Outcome(notice=notice) if notice in NOTICES else None
    return await render(ctx, page, holder, shown, pages=PAGES.values())


async def post(ctx: Context) -> InternalResponse:
    """Run a page's form. A post without a valid CSRF token (a form that has expired, or
    another site's) changes nothing: the page again with the error, 403 (JSON for API
    clients)."""
    _served(ctx)
    if ctx.provider_id == email_change.PATH:
        if not ctx.csrf.verified:
            raise MissingCSRF("CSRF token was missing when confirming an address change")
        return await email_change.post(ctx)
    page = _page(ctx)
    holder = await _holder(ctx)
    if holder is None:
        return _sign_in_first(ctx, page)
    if not ctx.csrf.verified:
        expired = refused("The form had expired. Nothing was changed: try again.", status=403)
        return await render(ctx, page, holder, expired, pages=PAGES.values(), posted=True)
    if page.act is None:
        raise UnknownAction(f"The account page {page.name!r} has no form")
    key = f"account:posts:{digest(holder.user.id)}"
    if await counter_for(ctx.options).increment(key, POST_WINDOW) > POSTS_PER_WINDOW:
        outcome = refused("Too many changes in a short time. Wait a few minutes.", status=429)
    else:
        outcome = await page.act(ctx, holder)
    return await render(ctx, page, holder, outcome, pages=PAGES.values(), posted=True)
