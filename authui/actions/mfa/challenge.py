"""GET and POST ``<base>/mfa``: the second step of a sign-in. The page asks the user who
passed the first step (``authui.actions.mfa.pending``) for a code of their authenticator
app, a recovery code or a passkey, and offers to trust the browser; a right answer
finishes the sign-in (``complete_sign_in``) with the session's ``amr`` saying both steps.

Wrong codes are refused with the page again (422, the same words for every wrong code)
and counted per user (``MfaOptions.attempts``, 429 past it); each right code works once.
"""

from __future__ import annotations

from authui import htmx
from authui.actions.account.ways import passkey_provider
from authui.actions.activity import BROWSER_TRUSTED, MFA_FAILED, RECOVERY_CODE_USED, record
from authui.actions.finish import complete_sign_in
from authui.actions.mfa import passkey, trust
from authui.actions.mfa.factors import over_limit, recovery_accepted, totp_accepted
from authui.actions.mfa.gate import NEEDED_FOR, enrolment
from authui.actions.mfa.pending import Pending, pending_ended, read_pending
from authui.actions.views import form_context
from authui.adapters.base import AdapterUser, require_adapter, user_record
from authui.adapters.factors import MfaEnrolment
from authui.context import Context
from authui.cookies import Cookie
from authui.dates import now
from authui.errors import UnknownAction
from authui.http import InternalResponse
from authui.i18n import N_, translate, translate_plural
from authui.sessions.facts import MULTI_FACTOR, ONE_TIME_CODE, PASSKEY, SignInFacts
from authui.urls import with_query

METHODS = ("totp", "passkey", "recovery")
"""The second steps, in the order the page prefers them: recovery codes come last."""
TOO_MANY = 429


def passkey_id(ctx: Context) -> str | None:
    provider = passkey_provider(ctx.options)
    return provider.id if provider is not None else None


def _start_again(ctx: Context) -> InternalResponse:
    """No sign-in is waiting (it took too long, or never started): the sign-in page."""
    target = with_query(ctx.action_url("signin"), {"callbackUrl": ctx.callback_url})
    return InternalResponse(redirect=target, cookies=pending_ended(ctx))


async def _page(
    ctx: Context,
    pending: Pending,
    factors: MfaEnrolment,
    *,
    method: str,
    error: str | None = None,
    status: int = 200,
) -> InternalResponse:
    offered = {
        "totp": factors.totp_secret is not None,
        "passkey": await passkey.offered(ctx, pending.user_id, factors),
        "recovery": True,
    }
    shown = method if offered.get(method) else next(m for m in METHODS if offered[m])
    if htmx.is_htmx(ctx.request) and status != TOO_MANY:
        status = 200  # htmx swaps only successes (and 429s): the card with the error
    answer = ctx.options.renderer.page(
        "mfa.html",
        N_("Two-step verification"),
        status,
        action=ctx.action_url("mfa"),
        method=shown,
        others=[m for m in METHODS if offered[m] and m != shown],
        method_urls={m: with_query(ctx.action_url("mfa"), {"method": m}) for m in METHODS},
        error=error,
        trust_days=ctx.options.config.mfa.trust_days if trust.offered(ctx) else 0,
        passkey_provider=passkey_id(ctx),
        passkey_options_url=ctx.action_url("mfa", "passkey-options"),
        **form_context(ctx),
    )
    if htmx.is_htmx(ctx.request):
        answer.headers.append(htmx.VARY)
    answer.cookies = [*ctx.set_cookies, *answer.cookies]
    return answer


async def _factors(ctx: Context, pending: Pending) -> MfaEnrolment | None:
    return await enrolment(ctx, pending.user_id)


async def get(ctx: Context) -> InternalResponse:
    """The challenge page (the method the query names, else the first the user has); at
    ``<base>/mfa/passkey-options``, the options of a passkey ceremony."""
    if ctx.provider_id == "passkey-options":
        return await passkey.options(ctx)
    if ctx.provider_id:
        raise UnknownAction(f"There is no page mfa/{ctx.provider_id}")
    pending = read_pending(ctx)
    factors = await _factors(ctx, pending) if pending is not None else None
    if pending is None or factors is None:
        return _start_again(ctx)
    method = str(ctx.query.get("method") or "totp")
    return await _page(ctx, pending, factors, method=method)


async def post(ctx: Context) -> InternalResponse:
    """Check the answer; finish the sign-in, or show the page again with why not."""
    if ctx.provider_id:
        raise UnknownAction(f"There is no form mfa/{ctx.provider_id}")
    pending = read_pending(ctx)
    factors = await _factors(ctx, pending) if pending is not None else None
    if pending is None or factors is None:
        return _start_again(ctx)
    method = str(ctx.body.get("method") or "totp")
    wait = await over_limit(ctx, pending.user_id)
    if wait is not None:
        minutes = max(1, (wait + 59) // 60)
        message = translate_plural(
            "Too many codes tried. Wait {n} minute and try again.",
            "Too many codes tried. Wait {n} minutes and try again.",
            minutes,
        )
        held = await _page(ctx, pending, factors, method=method, error=message, status=TOO_MANY)
        held.headers.append(("Retry-After", str(wait)))
        return held
    second = await _second(ctx, pending, factors, method)
    if second is None:
        await record(ctx, pending.user_id, MFA_FAILED, detail={"method": method})
        message = (
            translate("That passkey could not be checked. Try again.")
            if method == "passkey"
            else translate("That code is not right, or was used already. Try again.")
        )
        return await _page(ctx, pending, factors, method=method, error=message, status=422)
    if method == "recovery":
        await record(ctx, pending.user_id, RECOVERY_CODE_USED)
    return await _finish(ctx, pending, second)


async def _second(ctx: Context, pending: Pending, factors: MfaEnrolment, method: str) -> str | None:
    """The ``amr`` value of the second factor the post proves; ``None`` when it proves
    none."""
    if method == "totp":
        return ONE_TIME_CODE if await totp_accepted(ctx, factors, ctx.body.get("code")) else None
    if method == "recovery":
        accepted = await recovery_accepted(ctx, pending.user_id, ctx.body.get("code"))
        return ONE_TIME_CODE if accepted else None
    if method == "passkey" and await passkey.offered(ctx, pending.user_id, factors):
        return PASSKEY if await passkey.accepted(ctx, pending.user_id) else None
    return None


async def _finish(ctx: Context, pending: Pending, second: str) -> InternalResponse:
    adapter = require_adapter(ctx.options.adapter, NEEDED_FOR)
    found: AdapterUser | None = await adapter.call("get_user", NEEDED_FOR, pending.user_id)
    if found is None:  # deleted meanwhile
        return _start_again(ctx)
    amr = tuple(dict.fromkeys((*pending.amr, second, MULTI_FACTOR)))
    cookies: list[Cookie] = pending_ended(ctx)
    if ctx.body.get("trust") == "yes" and trust.offered(ctx):
        cookies.append(await trust.trust(ctx, pending.user_id))
        await record(ctx, pending.user_id, BROWSER_TRUSTED)
    ctx.callback_url = pending.callback_url
    answer = await complete_sign_in(
        ctx,
        user=user_record(found),
        account=pending.account,
        profile=pending.profile,
        is_new_user=pending.is_new_user,
        keep_session=pending.keep_session,
        facts=SignInFacts(now(), amr),
        expected=pending.expected,
        provider_id=pending.provider,
        proves_identity=True,
    )
    answer.cookies = [*cookies, *answer.cookies]
    return answer
