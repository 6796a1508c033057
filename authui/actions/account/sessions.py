"""``<base>/account/sessions``: where the user is signed in, and signing sessions out.

With database sessions, every active session of the user is listed (browser and system from
its ``User-Agent``, the client's address, when it began and was last seen; sessions that
Auth.js made show only their expiry), and each other one, or all others at once, can be
signed out: their rows are deleted, so they end at their next request.

JWT sessions live in cookies only and cannot be listed. "Sign out everywhere else" adds
one to the user's session version (``authui.sessions.versions``): this browser's token is
re-issued with the new version, and every other token ends when its check next reads the
version, within ``session.update_age``. Both need a recent sign-in.

A session is named in forms by a digest of its token (``handle``), never by the token.
"""

from __future__ import annotations

import hashlib
from typing import Any

from authui.actions.account.gate import NEEDED_FOR, Holder, page_url, step_up, unavailable
from authui.actions.account.outcome import Outcome, done, refused
from authui.actions.account.pages import Page, delay_words, iso
from authui.actions.activity import SESSIONS_ENDED, record
from authui.adapters.account import UserSession
from authui.context import Context
from authui.i18n import N_
from authui.sessions.ending import kept_at_version
from authui.user_agents import describe


def handle(session_token: str) -> str:
    """The name of a session in the page's forms: a digest of its token."""
    return hashlib.sha256(session_token.encode()).hexdigest()[:32]


async def _listed(holder: Holder) -> list[UserSession]:
    found: list[UserSession] = await holder.adapter.call(
        "list_user_sessions", NEEDED_FOR, holder.user.id
    )
    return found


def _row(listed: UserSession, current: str | None) -> dict[str, Any]:
    details = listed.details
    return {
        "handle": handle(listed.session.session_token),
        "current": listed.session.session_token == current,
        "browser": describe(details.user_agent) if details else None,
        "client": details.client if details else None,
        "created": iso(details.created) if details else None,
        "lastSeen": iso(details.last_seen) if details else None,
        "authTime": iso(details.auth_time) if details else None,
        "expires": iso(listed.session.expires),
    }


async def view(ctx: Context, holder: Holder) -> dict[str, Any]:
    if ctx.options.strategy == "jwt":
        return {
            "strategy": "jwt",
            "delay": delay_words(ctx.options.config.session.update_age),
            "unavailable": unavailable(holder, "get_session_version", "bump_session_version"),
            "sessions": [],
        }
    missing = unavailable(holder, "list_user_sessions", "delete_user_sessions")
    rows = (
        [] if missing else [_row(s, holder.signed_in.session_token) for s in await _listed(holder)]
    )
    rows.sort(key=lambda r: not r["current"])
    return {"strategy": "database", "unavailable": missing, "sessions": rows}


async def _end_one(ctx: Context, holder: Holder) -> Outcome:
    wanted = ctx.body.get("session")
    listed = await _listed(holder)
    found = next((s for s in listed if handle(s.session.session_token) == wanted), None)
    if found is None:
        return refused("This session is not one of yours, or has ended.", status=404)
    if found.session.session_token == holder.signed_in.session_token:
        return refused("To end this session, sign out.")
    await holder.adapter.call("delete_session", NEEDED_FOR, found.session.session_token)
    await record(ctx, holder.user.id, SESSIONS_ENDED, detail={"count": "1"})
    return done("session-ended")


async def _end_others(ctx: Context, holder: Holder) -> Outcome:
    count: int = await holder.adapter.call(
        "delete_user_sessions", NEEDED_FOR, holder.user.id, holder.signed_in.session_token
    )
    await record(ctx, holder.user.id, SESSIONS_ENDED, detail={"count": str(count)})
    return done("others-ended")


async def _end_everywhere(ctx: Context, holder: Holder) -> Outcome:
    version: int = await holder.adapter.call("bump_session_version", NEEDED_FOR, holder.user.id)
    cookies = await kept_at_version(ctx, version)
    await record(ctx, holder.user.id, SESSIONS_ENDED, detail={"everywhere": "yes"})
    ended = done("everywhere-ended", delay=delay_words(ctx.options.config.session.update_age))
    ended.cookies = cookies
    return ended


async def act(ctx: Context, holder: Holder) -> Outcome:
    intent = ctx.body.get("intent")
    jwt = ctx.options.strategy == "jwt"
    needs = {
        "revoke": ("list_user_sessions", "delete_session"),
        "revoke-others": ("delete_user_sessions",),
        "everywhere": ("bump_session_version",),
    }.get(str(intent))
    if needs is None or (intent == "everywhere") != jwt:
        return refused("This form cannot do that.")
    missing = unavailable(holder, *needs)
    if missing is not None:
        return refused(missing, status=501)
    stepped = step_up(ctx, holder, page_url(ctx, "sessions"))
    if stepped is not None:
        return stepped
    if intent == "revoke":
        return await _end_one(ctx, holder)
    if intent == "revoke-others":
        return await _end_others(ctx, holder)
    return await _end_everywhere(ctx, holder)


PAGE = Page("sessions", N_("Sessions"), "account/sessions.html", view, act)
