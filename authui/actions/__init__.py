"""The action table: which coroutine answers which (method, action)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from authui.actions import (
    account,
    backchannel_logout,
    callback,
    csrf_token,
    new_user,
    pages,
    passkeys,
    password,
    providers,
    session,
    signin,
    signout,
    webauthn_options,
)
from authui.actions.activity import record_refusal
from authui.actions.mfa import challenge as mfa_challenge
from authui.actions.throttling import check_sign_in
from authui.context import Context
from authui.errors import AuthError, MissingCSRF, UnknownAction
from authui.http import InternalResponse

Action = Callable[[Context], Awaitable[InternalResponse]]

GET: dict[str, Action] = {
    "account": account.get,
    "callback": callback.get,
    "csrf": csrf_token.get,
    "error": pages.error,
    "mfa": mfa_challenge.get,
    "new-user": new_user.get,
    "passkeys": passkeys.get,
    "password": password.get,
    "providers": providers.get,
    "session": session.get,
    "signin": pages.signin,
    "signout": signout.get,
    "verify-request": pages.verify_request,
    "webauthn-options": webauthn_options.get,
}

POST: dict[str, Action] = {
    "account": account.post,
    "backchannel-logout": backchannel_logout.post,
    "callback": callback.post,
    "mfa": mfa_challenge.post,
    "new-user": new_user.post,
    "password": password.post,
    "session": session.post,
    "signin": signin.post,
    "signout": signout.post,
}

CSRF_CHECKED = frozenset({"mfa", "new-user", "password", "session", "signin", "signout"})
"""The POST actions whose CSRF token the table checks; ``account`` checks its own, to
answer a refusal on its page."""


async def dispatch(ctx: Context) -> InternalResponse:
    """Run the action the request names, checking CSRF where the table requires it and
    counting sign-in attempts (``authui.throttle``): one over a limit raises
    ``TooManyAttempts`` before the action runs."""
    table = GET if ctx.method == "GET" else POST
    action = table.get(ctx.action)
    if action is None:
        raise UnknownAction(f"Cannot handle action: {ctx.method} {ctx.action}")
    if ctx.method == "POST" and ctx.action in CSRF_CHECKED:
        require_csrf(ctx)
    try:
        attempt = await check_sign_in(ctx)
        answer = await action(ctx)
    except AuthError as error:
        await record_refusal(ctx, error)
        raise
    if attempt is not None:
        await attempt.succeeded()
    return answer


def require_csrf(ctx: Context) -> None:
    """Raise ``MissingCSRF`` unless the request carried a valid CSRF token."""
    if not ctx.csrf.verified:
        raise MissingCSRF(f"CSRF token was missing during an action {ctx.action}")
