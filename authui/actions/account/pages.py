"""What an account page is, and how any of them is answered (page, htmx, JSON)."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from authui import htmx
from authui.actions.account.gate import NEEDED_FOR, Holder, page_url
from authui.actions.account.outcome import Outcome, notice_text, wants_json
from authui.adapters.base import AdapterUser
from authui.context import Context
from authui.http import InternalResponse
from authui.i18n import current, translate, translate_plural
from authui.options import Options
from authui.urls import with_query

View = Callable[[Context, Holder], Awaitable[dict[str, Any]]]
"""What a page shows: JSON-able data (dates as ISO 8601 text), which its template gets too."""

Act = Callable[[Context, Holder], Awaitable[Outcome]]
"""What a page's form does (by its ``intent``)."""


def _always(options: Options) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class Page:
    """One page of the account center.

    Attributes:
        name: The last part of its path (``""``: ``<base>/account`` itself).
        title: Its title and menu entry, in English (``N_``-marked): the page's layout
            and its menu translate it.
        template: ``account/<name>.html`` in the theme pack.
        view: What it shows.
        act: What its form does; ``None`` for a page without one.
        offered: Whether the configuration offers it (not: answered as an unknown
            action, and not in the menu).
        in_menu: Whether the menu lists it.
    """

    name: str
    title: str
    template: str
    view: View
    act: Act | None = None
    offered: Callable[[Options], bool] = _always
    in_menu: bool = True


def when(value: str | None) -> str:
    """An ISO 8601 date of a view, as the pages show it in the request's language
    (``Nov 27, 2026, 9:51 AM UTC`` in English); a date without a zone is UTC."""
    return current().datetime(datetime.fromisoformat(value)) if value else ""


def iso(value: datetime | None) -> str | None:
    """A date of a view: ISO 8601 text, or ``None``."""
    return value.isoformat() if value is not None else None


def user_view(user: AdapterUser) -> dict[str, Any]:
    """The signed-in user as the pages and their JSON show them."""
    return {
        "id": user.id,
        "name": user.name,
        "email": user.email,
        "emailVerified": iso(user.email_verified),
        "image": user.image,
    }


async def render(
    ctx: Context,
    page: Page,
    holder: Holder,
    outcome: Outcome | None,
    *,
    pages: Iterable[Page],
    posted: bool = False,
) -> InternalResponse:
    """The answer to a page's request: its data or the action's outcome as JSON for API
    clients; for browsers, a redirect after a successful post (to the page with a notice,
    or where the outcome leaves for), else the page with the outcome shown (422 for a
    refusal; 200 for htmx, which swaps only successes)."""
    cookies = outcome.cookies if outcome else []
    if wants_json(ctx):
        if posted and outcome is not None:
            status = outcome.status if outcome.failed else 200
            return InternalResponse.json(status, outcome.json(), cookies=cookies)
        data = {"user": user_view(holder.user), **await page.view(ctx, holder)}
        return InternalResponse.json(200, data, cookies=cookies)
    if outcome is not None and outcome.leave is not None:
        return InternalResponse(redirect=outcome.leave, cookies=cookies)
    succeeded = outcome is not None and not outcome.failed and not outcome.stay
    if posted and outcome is not None and succeeded and not htmx.is_htmx(ctx.request):
        target = page_url(ctx, page.name)
        back = ctx.query.get("callbackUrl")
        params = {k: v for k, v in (("notice", outcome.notice), ("callbackUrl", back)) if v}
        if params:
            target = with_query(target, params)
        return InternalResponse(redirect=target, cookies=cookies)
    if posted:  # what the action changed shows
        fresh: AdapterUser | None = await holder.adapter.call(
            "get_user", NEEDED_FOR, holder.user.id
        )
        if fresh is not None:
            holder = Holder(dataclasses.replace(holder.signed_in, user=fresh), holder.adapter)
    status = 200
    if outcome is not None and outcome.failed and not htmx.is_htmx(ctx.request):
        status = outcome.status
    view = await page.view(ctx, holder)
    missing = view.get("unavailable")
    if outcome is not None and missing in outcome.form_errors:  # the page says it once
        errors = [e for e in outcome.form_errors if e != missing]
        outcome = dataclasses.replace(outcome, form_errors=errors)
    answer = ctx.options.renderer.page(
        page.template,
        page.title,
        status,
        **view,
        **_common(ctx, page, holder, outcome, pages),
    )
    answer.cookies = [*cookies, *answer.cookies]
    if htmx.is_htmx(ctx.request):
        answer.headers.append(htmx.VARY)
    return answer


def _common(
    ctx: Context, page: Page, holder: Holder, outcome: Outcome | None, pages: Iterable[Page]
) -> dict[str, Any]:
    """What every account page's template gets besides its own view (``pages``: those the
    menu may list)."""
    menu = [
        {
            "name": p.name,
            "title": p.title,
            "url": page_url(ctx, p.name),
            "current": p.name == page.name,
        }
        for p in pages
        if p.in_menu and p.offered(ctx.options)
    ]
    params = {"delay": delay_words(ctx.options.config.session.update_age)}
    shown = outcome or Outcome()
    return {
        "user": user_view(holder.user),
        "menu": menu,
        "page_name": page.name or "overview",
        "page_url": page_url(ctx, page.name),
        "account_url": page_url(ctx, ""),
        "signout_url": ctx.action_url("signout"),
        "csrf_token": ctx.csrf.token,
        "notice": notice_text(shown.notice, params) if shown.notice else None,
        "form_errors": shown.form_errors,
        "field_errors": shown.field_errors,
        "values": shown.values,
        "once": shown.data if shown.stay else {},
        "when": when,
    }


def delay_words(seconds: int) -> str:
    """``update_age`` in words, for "signed out within …"."""
    if seconds < 60:
        return translate("a minute")
    if seconds % 86400 == 0:
        days = seconds // 86400
        return translate("a day") if days == 1 else translate_plural("{n} day", "{n} days", days)
    if seconds % 3600 == 0:
        hours = seconds // 3600
        return (
            translate("an hour") if hours == 1 else translate_plural("{n} hour", "{n} hours", hours)
        )
    minutes = max(1, seconds // 60)
    return (
        translate("a minute")
        if minutes == 1
        else translate_plural("{n} minute", "{n} minutes", minutes)
    )
