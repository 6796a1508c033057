"""A passkey as the second factor: the challenge page asks for one of the pending user's
passkeys (``GET <base>/mfa/passkey-options`` gives the ceremony's options, as
``webauthn-options`` does for a sign-in), and its answer is checked as a sign-in's is,
challenge single-use and counter included."""

from __future__ import annotations

from typing import Any

from authui.actions.account.ways import passkey_provider
from authui.actions.mfa.gate import enrolment
from authui.actions.mfa.pending import read_pending
from authui.actions.webauthn import authentication
from authui.actions.webauthn.ceremony import read_answer, stored_passkeys
from authui.actions.webauthn.challenges import issue
from authui.adapters.factors import MfaEnrolment
from authui.context import Context
from authui.errors import AuthError
from authui.http import InternalResponse


async def offered(ctx: Context, user_id: str, factors: MfaEnrolment) -> bool:
    """Whether a passkey can be the user's second factor here: passkeys allowed
    (``MfaOptions.passkeys``), a passkey provider configured, the user chose their
    passkeys as a second step (``MfaEnrolment.passkey``), and has one."""
    provider = passkey_provider(ctx.options)
    adapter = ctx.options.adapter
    if not ctx.options.config.mfa.passkeys or provider is None or adapter is None:
        return False
    return factors.passkey and bool(await stored_passkeys(adapter, user_id))


async def options(ctx: Context) -> InternalResponse:
    """``{"action": "authenticate", "options"}`` for one of the pending user's passkeys,
    with the challenge cookie; 400 without a pending sign-in, or when a passkey is not
    one of its user's second steps (``offered``)."""
    pending = read_pending(ctx)
    provider = passkey_provider(ctx.options)
    adapter = ctx.options.adapter
    if pending is None or provider is None or adapter is None:
        return InternalResponse.json(400, {"error": "Invalid request"})
    factors = await enrolment(ctx, pending.user_id)
    if factors is None or not await offered(ctx, pending.user_id, factors):
        return InternalResponse.json(400, {"error": "Invalid request"})
    known = await stored_passkeys(adapter, pending.user_id)
    if not known:
        return InternalResponse.json(400, {"error": "Invalid request"})
    offer = authentication.options(ctx, provider, known)
    cookie = await issue(ctx, provider, adapter, offer.challenge, offer.remember)
    body: dict[str, Any] = {"action": "authenticate", "options": offer.options}
    return InternalResponse.json(200, body, cookies=[cookie])


async def accepted(ctx: Context, user_id: str) -> bool:
    """Whether the post carries a verified answer of one of ``user_id``'s passkeys."""
    provider = passkey_provider(ctx.options)
    adapter = ctx.options.adapter
    if provider is None or adapter is None:
        return False
    try:
        proven = await authentication.check(ctx, provider, adapter, read_answer(ctx))
    except AuthError as refused:
        ctx.options.logger.error(refused)
        return False
    return proven.owner.id == user_id
