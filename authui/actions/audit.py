"""One log line for each thing that happens to a user: a sign-in, a sign-out, a refused or a
throttled sign-in.

Each line carries the provider, the user's id where there is one, and the client's address
(``authui.proxies.client_address``): never an email address, a token, a cookie or a password.
Sign-ins and sign-outs go to the logger's ``info`` level; a refusal is the error itself,
which the default logger prints as one ``warning``.
"""

from __future__ import annotations

from typing import Any

from authui.context import Context
from authui.errors import AuthError, CodedSignInError, TooManyAttempts
from authui.logger import REFUSAL
from authui.proxies import client_address


def _metadata(ctx: Context, **fields: Any) -> dict[str, Any]:
    return {
        "provider": ctx.provider_id,
        **fields,
        "client": client_address(ctx.request, ctx.options.config.trusted_proxies),
    }


def signed_in(ctx: Context, user_id: Any) -> None:
    """``sign-in``: the user ``user_id`` signed in with the provider of ``ctx``."""
    ctx.options.logger.info("sign-in", _metadata(ctx, user_id=user_id))


def signed_out(ctx: Context, user_id: Any) -> None:
    """``sign-out``: the user ``user_id`` (``None`` when unknown) ended their session."""
    ctx.options.logger.info("sign-out", _metadata(ctx, user_id=user_id))


def describe_refusal(ctx: Context, error: AuthError) -> None:
    """Give a refused sign-in's error what its log line says: ``sign-in-throttled`` for
    ``TooManyAttempts`` (with the limit it passed), ``sign-in-failed`` for any other
    client-safe error that sends the user back to the sign-in page (kept in
    ``error.cause[REFUSAL]``, for the default logger's ``error`` to print as one warning;
    a configured ``error`` gets the error as Auth.js gives it). Other errors are left."""
    if isinstance(error, TooManyAttempts):
        limit = {k: v for k, v in error.cause.items() if k != "err"}
        event, fields = "sign-in-throttled", {"retry_after": error.retry_after, **limit}
    elif error.kind == "signIn" and error.client_safe:
        code = error.code if isinstance(error, CodedSignInError) else None
        event, fields = "sign-in-failed", {"error": error.type, "code": code, **_why(error)}
    else:
        return
    error.cause[REFUSAL] = (event, _metadata(ctx, **fields))


def _why(error: AuthError) -> dict[str, str]:
    """What the operator needs to know about a refusal beyond its type: the error's message
    (what the provider or the mail server answered, which check failed) and the exception
    underneath, when they say more than the type."""
    why: dict[str, str] = {}
    if error.detail != error.type:
        why["reason"] = error.detail
    original = error.cause.get("err")
    if isinstance(original, BaseException):
        why["cause"] = f"{type(original).__name__}: {original}"
    return why
