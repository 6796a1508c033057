"""``<base>/account/activity``: the account's security activity, newest first (sign-ins,
refused and throttled ones, passkeys, accounts, address changes, sessions ended), as the
adapter keeps it (``record_security_event``; ``SECURITY_EVENT_DAYS`` days at least)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from authui.actions import activity
from authui.actions.account.gate import NEEDED_FOR, Holder, unavailable
from authui.actions.account.pages import Page, iso
from authui.adapters.account import SecurityEvent
from authui.context import Context
from authui.i18n import N_, translate, translate_given
from authui.sessions.facts import MULTI_FACTOR
from authui.user_agents import describe

SHOWN = 50
"""How many events the page shows."""

LABELS: Mapping[str, str] = {
    activity.SIGN_IN: N_("Signed in"),
    activity.SIGN_IN_FAILED: N_("Sign-in refused"),
    activity.SIGN_IN_THROTTLED: N_("Sign-ins paused after too many attempts"),
    activity.REAUTHENTICATED: N_("Signed in again to confirm a change"),
    activity.PASSKEY_ADDED: N_("Passkey added"),
    activity.PASSKEY_RENAMED: N_("Passkey renamed"),
    activity.PASSKEY_DELETED: N_("Passkey deleted"),
    activity.ACCOUNT_LINKED: N_("Account linked"),
    activity.ACCOUNT_UNLINKED: N_("Account unlinked"),
    activity.EMAIL_CHANGE_REQUESTED: N_("Email change asked for"),
    activity.EMAIL_CHANGED: N_("Email address changed"),
    activity.PROFILE_CHANGED: N_("Profile changed"),
    activity.SESSIONS_ENDED: N_("Sessions signed out"),
    activity.SIGN_UP: N_("Signed up with a password"),
    activity.PASSWORD_SET: N_("Password set"),
    activity.PASSWORD_CHANGED: N_("Password changed"),
    activity.PASSWORD_RESET: N_("Password reset by an emailed link"),
    activity.PASSWORD_REMOVED: N_("Password removed"),
    activity.MFA_ON: N_("Two-step verification turned on"),
    activity.MFA_OFF: N_("Two-step verification turned off"),
    activity.MFA_FAILED: N_("Second step refused"),
    activity.RECOVERY_CODES_MADE: N_("New recovery codes made"),
    activity.RECOVERY_CODE_USED: N_("Recovery code used"),
    activity.BROWSER_TRUSTED: N_("Browser trusted to skip the second step"),
    activity.TRUSTED_BROWSERS_REVOKED: N_("Trusted browsers revoked"),
}
"""What the page calls each kind of event."""


TWO_STEP_LABELS: Mapping[str, str] = {
    activity.SIGN_IN: N_("Signed in with two steps"),
    activity.REAUTHENTICATED: N_("Signed in again with two steps to confirm a change"),
}
"""What the page calls a sign-in that was multi-factor (its ``amr`` has ``mfa``)."""


def _label(event: SecurityEvent) -> str:
    if MULTI_FACTOR in event.detail.get("amr", "").split() and event.kind in TWO_STEP_LABELS:
        return translate(TWO_STEP_LABELS[event.kind])
    return translate(LABELS.get(event.kind, event.kind))


def _row(ctx: Context, event: SecurityEvent) -> dict[str, Any]:
    provider = ctx.options.providers.get(event.provider or "")
    return {
        "kind": event.kind,
        "label": _label(event),
        "at": iso(event.at),
        "provider": translate_given(provider.name) if provider else event.provider,
        "browser": describe(event.user_agent) if event.user_agent else None,
        "client": event.client,
        "detail": dict(event.detail),
    }


async def view(ctx: Context, holder: Holder) -> dict[str, Any]:
    missing = unavailable(holder, "list_security_events")
    events: list[SecurityEvent] = (
        []
        if missing
        else await holder.adapter.call("list_security_events", NEEDED_FOR, holder.user.id, SHOWN)
    )
    return {"unavailable": missing, "events": [_row(ctx, e) for e in events]}


PAGE = Page("activity", N_("Security activity"), "account/activity.html", view)
