"""One log line for each thing that happens to a user: a sign-in, a sign-out, a refused or a
throttled sign-in.

Each line carries the provider, the user's id where there is one, and the client's address
(``authui.proxies.client_address``): never an email address, a token, a cookie or a password.
Sign-ins and sign-outs go to the logger's ``info`` level, refusals to its ``warning`` level.
"""

from __future__ import annotations

from typing import Any

from authui.context import Context
from authui.errors import AuthError, CodedSignInError, TooManyAttempts
from authui.proxies import client_address


def _metadata(ctx: Context, **fields: Any) -> dict[str, Any]:
    return {
        "provider": ctx.provider_id,
        **fields,
        "client": client_address(ctx.request, ctx.options),
    }


def signed_in(ctx: Context, user_id: Any) -> None:
    """``sign-in``: the user ``user_id`` signed in with the provider of ``ctx``."""
    ctx.options.logger.info("sign-in", _metadata(ctx, user_id=user_id))


def signed_out(ctx: Context, user_id: Any) -> None:
    """``sign-out``: the user ``user_id`` (``None`` when unknown) ended their session."""
    ctx.options.logger.info("sign-out", _metadata(ctx, user_id=user_id))


def sign_in_refused(ctx: Context, error: AuthError) -> None:
    """``sign-in-throttled`` for ``TooManyAttempts``, ``sign-in-failed`` for any other
    error that sends the user back to the sign-in page; nothing for other errors."""
    if isinstance(error, TooManyAttempts):
        metadata = _metadata(ctx, retry_after=error.retry_after)
        ctx.options.logger.warning("sign-in-throttled", metadata)
    elif error.kind == "signIn":
        code = error.code if isinstance(error, CodedSignInError) else None
        ctx.options.logger.warning("sign-in-failed", _metadata(ctx, error=error.type, code=code))
