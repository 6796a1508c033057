"""A sign-in waiting for its second factor: what finishing it needs, kept in the sealed
``authui.mfa-pending`` cookie (in chunks when an OAuth account's tokens make it long) for
``CHECK_MAX_AGE``, while the challenge page asks for a code or a passkey.

The cookie proves only that the first factor passed in this browser: nothing is signed in
until a second factor does, and each factor is single-use on the server (a TOTP step, a
recovery code, a passkey challenge), so a copied cookie alone signs in nobody.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from authui.context import Context
from authui.cookies import CHECK_MAX_AGE, Cookie, SessionChunks
from authui.dates import in_seconds
from authui.http import InternalResponse
from authui.jwt import JWTDecodeError, decode, encode


@dataclass(frozen=True, slots=True, kw_only=True)
class Pending:
    """What the first sign-in step established.

    Attributes:
        user_id: Who signed in.
        provider: With which provider (its id).
        account: The sign-in's account mapping (an OAuth sign-in's tokens included).
        profile: The provider's profile (OAuth), for the ``jwt`` callback.
        is_new_user: As ``finish_sign_in`` had it.
        keep_session: The user was signed in already (a database session stays).
        expected: The user of a step-up in progress, if any.
        callback_url: Where the sign-in goes once done.
        amr: How the first step signed in (``"pwd"``, ``"fed"``, ``"email"``).
    """

    user_id: str
    provider: str
    account: dict[str, Any]
    profile: Any
    is_new_user: bool | None
    keep_session: bool
    expected: str | None
    callback_url: str
    amr: list[str]


def _chunks(ctx: Context) -> SessionChunks:
    return SessionChunks.from_request(ctx.cookies.mfa_pending, ctx.request.cookies)


def challenge(ctx: Context, pending: Pending) -> InternalResponse:
    """Keep ``pending`` and send the browser to the challenge page."""
    option = ctx.cookies.mfa_pending
    age = option.options.max_age or CHECK_MAX_AGE
    sealed = encode(token=asdict(pending), secret=ctx.options.keys, salt=option.name, max_age=age)
    cookies = _chunks(ctx).write(sealed, in_seconds(age))
    return InternalResponse(redirect=ctx.action_url("mfa"), cookies=cookies)


def read_pending(ctx: Context) -> Pending | None:
    """This browser's sign-in waiting for a second factor; ``None`` when there is none
    (or it expired, or cannot be opened)."""
    value = _chunks(ctx).value
    if not value:
        return None
    try:
        claims = decode(token=value, secret=ctx.options.keys, salt=ctx.cookies.mfa_pending.name)
    except JWTDecodeError:
        return None
    try:
        return Pending(**{name: (claims or {})[name] for name in Pending.__dataclass_fields__})
    except (KeyError, TypeError):
        return None


def pending_ended(ctx: Context) -> list[Cookie]:
    """The deletion of the pending sign-in's cookies."""
    return _chunks(ctx).clear()
