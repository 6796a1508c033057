"""``<base>/account/password``: set, change or remove the user's password (with a password
provider configured). Every change needs a recent sign-in (step-up) and signs the user's
other sessions out (this one stays); the address is told by email. A password is removed
only when the user has another way to sign in.
"""

from __future__ import annotations

from typing import Any

from authui.actions.account.changes import tell_owner
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
from authui.actions.account.pages import Page, iso
from authui.actions.account.ways import password_provider, ways_in
from authui.actions.activity import PASSWORD_CHANGED, PASSWORD_REMOVED, PASSWORD_SET, record
from authui.actions.password.common import new_password, store_password
from authui.adapters.factors import PasswordRecord
from authui.context import Context
from authui.cookies import Cookie
from authui.i18n import N_
from authui.options import Options
from authui.sessions.ending import end_every_session, kept_at_version

ADVICE = N_("If you did not do this, reset your password and review the activity.")
"""What the notice of a change here advises, when it was not the user."""


def _offered(options: Options) -> bool:
    return password_provider(options) is not None


async def _stored(holder: Holder) -> PasswordRecord | None:
    if not holder.can("get_password"):
        return None
    found: PasswordRecord | None = await holder.adapter.call(
        "get_password", NEEDED_FOR, holder.user.id
    )
    return found


async def view(ctx: Context, holder: Holder) -> dict[str, Any]:
    provider = password_provider(ctx.options)
    assert provider is not None
    stored = await _stored(holder)
    return {
        "unavailable": unavailable(holder, "get_password", "set_password", "delete_password"),
        "hasPassword": stored is not None,
        "updated": iso(stored.updated) if stored else None,
        "canSet": bool(holder.user.email),
        "canRemove": stored is not None and (await ways_in(ctx, holder)).count > 1,
        "minLength": provider.rules.min_length,
        "maxLength": provider.rules.max_length,
        "fresh": recent(ctx, holder),
        "reauthenticateUrl": step_up_url(ctx, page_url(ctx, "password")),
    }


async def _others_signed_out(ctx: Context, holder: Holder) -> list[Cookie]:
    """Sign the user's other sessions out; this browser's JWT is re-issued with the new
    session version, so it stays."""
    version = await end_every_session(
        ctx, holder.user.id, except_token=holder.signed_in.session_token
    )
    return await kept_at_version(ctx, version) if holder.can("bump_session_version") else []


async def _save(ctx: Context, holder: Holder) -> Outcome:
    provider = password_provider(ctx.options)
    assert provider is not None
    if not holder.user.email:
        return refused("A password needs an email address on your account.")
    stepped = step_up(ctx, holder, page_url(ctx, "password"))
    if stepped is not None:
        return stepped
    password = new_password(ctx.body.get("password"))
    facts = {"email": holder.user.email, "name": holder.user.name}
    problems = await provider.rules.problems(password, facts)
    if problems:
        return Outcome(failed=True, field_errors={"password": problems}, status=422)
    had = await _stored(holder) is not None
    await store_password(ctx, provider, holder.user.id, password)
    cookies = await _others_signed_out(ctx, holder)
    await record(ctx, holder.user.id, PASSWORD_CHANGED if had else PASSWORD_SET)
    await tell_owner(
        ctx,
        holder,
        ADVICE,
        N_("Your password on {host} was changed") if had else N_("A password was set on {host}"),
        N_("The password of your account was changed ({where}); other browsers were signed out.")
        if had
        else N_("A password was set for your account ({where})."),
    )
    saved = done("password-changed" if had else "password-set")
    saved.cookies = cookies
    return saved


async def _remove(ctx: Context, holder: Holder) -> Outcome:
    stepped = step_up(ctx, holder, page_url(ctx, "password"))
    if stepped is not None:
        return stepped
    if await _stored(holder) is None:
        return refused("You have no password.", status=404)
    if (await ways_in(ctx, holder)).count <= 1:
        return refused(
            "This is your only way to sign in: add another before removing it.", status=409
        )
    await holder.adapter.call("delete_password", NEEDED_FOR, holder.user.id)
    await record(ctx, holder.user.id, PASSWORD_REMOVED)
    await tell_owner(
        ctx,
        holder,
        ADVICE,
        N_("Your password on {host} was removed"),
        N_("The password of your account was removed ({where})."),
    )
    return done("password-removed")


async def act(ctx: Context, holder: Holder) -> Outcome:
    intent = ctx.body.get("intent")
    missing = unavailable(holder, "get_password", "set_password", "delete_password")
    if missing:
        return refused(missing, status=501)
    if intent == "save":
        return await _save(ctx, holder)
    if intent == "remove":
        return await _remove(ctx, holder)
    return refused("This form cannot do that.")


PAGE = Page("password", N_("Password"), "account/password.html", view, act, offered=_offered)
