"""The mark of a step-up in progress: the account center asked the signed-in user to sign
in again, and the sign-in that follows must be theirs.

The mark is the sealed ``authui.step-up`` cookie, set when the step-up page is shown and
holding the user's id. A sign-in that proves who someone is, made while it is there, must
sign in that user (``finish_sign_in`` checks it, and refuses anyone else with
``ReauthenticationFailed``, leaving the session as it was); it then ends the mark.

The mark binds only while the browser still holds a session: once that user has signed
out (or their session was cleared), the browser's next sign-in is nobody's step-up, and
anyone may sign in with it (a shared computer), which also ends the mark.
"""

from __future__ import annotations

from authui.context import Context
from authui.cookies import CHECK_MAX_AGE, Cookie, deletion
from authui.sealed import seal, unseal

_BOUND_TO = "account"


def mark(ctx: Context, user_id: str) -> Cookie:
    """The cookie that marks a step-up of ``user_id`` in progress."""
    option = ctx.cookies.step_up
    age = option.options.max_age or CHECK_MAX_AGE
    return seal(ctx, option, _BOUND_TO, {"user": user_id}, max_age=age)


def expected_user(ctx: Context) -> str | None:
    """The user a step-up in progress must sign in; ``None`` when none is, or when the
    browser holds no session any more."""
    if not ctx.session_chunks().value:
        return None
    sealed = unseal(ctx, ctx.cookies.step_up)
    if sealed is None or sealed.provider != _BOUND_TO or not isinstance(sealed.value, dict):
        return None
    user = sealed.value.get("user")
    return user if isinstance(user, str) else None


def ended(ctx: Context) -> list[Cookie]:
    """The deletion of the mark, when the request has one."""
    option = ctx.cookies.step_up
    return [deletion(option.name, option.options)] if option.name in ctx.request.cookies else []
