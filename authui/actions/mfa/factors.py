"""Checking a second factor's code for a user: an authenticator app's (each step once) or a
recovery code (each once), with the attempts per user counted."""

from __future__ import annotations

from authui.actions.throttling import counter_for, seconds_left
from authui.adapters.factors import MfaEnrolment
from authui.context import Context
from authui.errors import AuthError
from authui.mfa import recovery, totp
from authui.throttle import digest

NEEDED_FOR = "multi-factor authentication"


async def over_limit(ctx: Context, user_id: str) -> int | None:
    """Count a code attempt of ``user_id`` (``MfaOptions.attempts``, across browsers):
    ``None`` while within the limit, else the seconds until the next window."""
    limit = ctx.options.config.mfa.attempts
    key = f"mfa:attempts:{digest(user_id)}"
    if await counter_for(ctx.options).increment(key, limit.window) > limit.count:
        return seconds_left(limit)
    return None


async def totp_accepted(ctx: Context, enrolment: MfaEnrolment, code: object) -> bool:
    """Whether ``code`` is the user's app's code for now, and its step was not used yet
    (using it up)."""
    if enrolment.totp_secret is None:
        return False
    secret = totp.open_secret(ctx.options.keys, enrolment.totp_secret)
    if secret is None:
        unreadable = AuthError("A stored TOTP secret opens with none of the configured secrets")
        ctx.options.logger.error(unreadable)
        return False
    step = totp.matching_step(secret, code)
    if step is None:
        return False
    adapter = ctx.options.adapter
    assert adapter is not None
    used: bool = await adapter.call("use_totp_step", NEEDED_FOR, enrolment.user_id, step)
    return used


async def recovery_accepted(ctx: Context, user_id: str, typed: object) -> bool:
    """Whether ``typed`` is one of the user's unused recovery codes (using it up)."""
    code = recovery.normalized(typed)
    adapter = ctx.options.adapter
    if code is None or adapter is None or not adapter.has("use_recovery_code"):
        return False
    for secret in ctx.options.keys:
        hashed = recovery.code_hash(code, secret)
        if await adapter.call("use_recovery_code", NEEDED_FOR, user_id, hashed):
            return True
    return False
