"""``<base>/account/two-factor``: two-step verification (second factors, ``MfaOptions``).

- An authenticator app (TOTP): "Set up" makes a new secret, kept in the sealed
  ``authui.mfa-enrolment`` cookie (nothing is stored yet) and shown as a QR code drawn
  here and as text; a code of the app confirms it, and only then is it stored.
- Passkeys as the second factor, for users who have passkeys.
- Recovery codes: ten, made when the first factor is turned on, shown once (the page
  answers with them, never a redirect) and stored hashed; made anew on demand.
- Trusted browsers: listed (browser, address, until when), revoked one by one or all.

Turning a factor on or off, and new recovery codes, need a recent sign-in; revoking a
trusted browser does not (it only takes access away). The address is told of each
change.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

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
from authui.actions.account.ways import passkey_provider, user_passkeys
from authui.actions.activity import (
    MFA_OFF,
    MFA_ON,
    RECOVERY_CODES_MADE,
    TRUSTED_BROWSERS_REVOKED,
    record,
)
from authui.actions.mfa.gate import available
from authui.adapters.factors import MfaEnrolment, TrustedBrowser
from authui.context import Context
from authui.cookies import CHECK_MAX_AGE, Cookie, deletion
from authui.dates import now
from authui.factor_checks import MFA_PACKAGES, installed
from authui.i18n import N_, translate
from authui.mfa import recovery, totp
from authui.mfa.qr import qr_svg
from authui.options import Options
from authui.sealed import seal, unseal
from authui.sessions import DatabaseSessions, strategy_for
from authui.sessions.facts import MULTI_FACTOR, ONE_TIME_CODE, SignInFacts
from authui.urls import with_query
from authui.user_agents import describe

METHODS = (
    "get_mfa",
    "save_mfa",
    "delete_mfa",
    "use_totp_step",
    "replace_recovery_codes",
    "count_recovery_codes",
)
_BOUND_TO = "mfa-enrolment"

ADVICE = N_("If you did not do this, secure your account and review the activity.")
"""What the notice of a change here advises, when it was not the user."""


def _offered(options: Options) -> bool:
    return options.config.mfa.enabled and installed(*MFA_PACKAGES)


async def _enrolment(holder: Holder) -> MfaEnrolment | None:
    if not holder.can("get_mfa"):
        return None
    found: MfaEnrolment | None = await holder.adapter.call("get_mfa", NEEDED_FOR, holder.user.id)
    return found


def _pending_secret(ctx: Context, holder: Holder) -> str | None:
    """The secret being set up in this browser for this user, if any (as this answer
    leaves the cookie: the page an htmx post gets shows what the post started or
    ended)."""
    sealed = unseal(ctx, ctx.cookies.mfa_enrolment, latest=True)
    if sealed is None or sealed.provider != _BOUND_TO or not isinstance(sealed.value, dict):
        return None
    if sealed.value.get("user") != holder.user.id:
        return None
    secret = sealed.value.get("secret")
    return secret if isinstance(secret, str) else None


def _issuer(ctx: Context) -> str:
    return ctx.options.config.mfa.issuer or urlsplit(ctx.origin).hostname or "authui"


def _setup(ctx: Context, holder: Holder, secret: str) -> dict[str, Any]:
    """What the page shows to set an app up: the QR code and the key as text."""
    account = holder.user.email or holder.user.name or holder.user.id
    uri = totp.provisioning_uri(secret, account, _issuer(ctx))
    return {
        "qr": qr_svg(uri, translate("QR code to scan with your authenticator app")),
        "key": totp.grouped(secret),
        "uri": uri,
    }


async def _trusted(holder: Holder) -> list[dict[str, Any]]:
    if not holder.can("list_trusted_browsers"):
        return []
    found: list[TrustedBrowser] = await holder.adapter.call(
        "list_trusted_browsers", NEEDED_FOR, holder.user.id
    )
    return [
        {
            "id": b.browser_id,
            "browser": describe(b.user_agent) if b.user_agent else translate("Unknown browser"),
            "client": b.client,
            "created": iso(b.created),
            "expires": iso(b.expires),
        }
        for b in found
    ]


async def view(ctx: Context, holder: Holder) -> dict[str, Any]:
    enrolment = await _enrolment(holder)
    secret = _pending_secret(ctx, holder)
    codes = 0
    if enrolment is not None and enrolment.on and holder.can("count_recovery_codes"):
        codes = await holder.adapter.call("count_recovery_codes", NEEDED_FOR, holder.user.id)
    passkeys_here = passkey_provider(ctx.options) is not None and ctx.options.config.mfa.passkeys
    wanted = ctx.callback_url if ctx.query.get("callbackUrl") else None
    here = page_url(ctx, "two-factor")
    return {
        "needed": wanted is not None,
        "continueUrl": wanted,
        "multiFactor": holder.signed_in.facts.multi_factor,
        "stepUpUrl": step_up_url(ctx, wanted) if wanted else None,
        "formUrl": with_query(here, {"callbackUrl": wanted}) if wanted else here,
        "unavailable": unavailable(holder, *METHODS),
        "on": enrolment is not None and enrolment.on,
        "totp": enrolment is not None and enrolment.totp_secret is not None,
        "passkeyFactor": enrolment is not None and enrolment.passkey,
        "passkeysOffered": passkeys_here,
        "hasPasskeys": passkeys_here and bool(await user_passkeys(ctx, holder)),
        "recoveryCodesLeft": codes,
        "setup": _setup(ctx, holder, secret) if secret else None,
        "trustedBrowsers": await _trusted(holder),
        "fresh": recent(ctx, holder),
        "reauthenticateUrl": step_up_url(ctx, page_url(ctx, "two-factor")),
    }


def _enrolment_cookie(ctx: Context, holder: Holder, secret: str) -> Cookie:
    option = ctx.cookies.mfa_enrolment
    value = {"user": holder.user.id, "secret": secret}
    return seal(ctx, option, _BOUND_TO, value, max_age=option.options.max_age or CHECK_MAX_AGE)


def _end_enrolment(ctx: Context) -> None:
    """The set-up in this browser ends (the page shows it ended)."""
    option = ctx.cookies.mfa_enrolment
    if option.name in ctx.request.cookies:
        ctx.set_cookies.append(deletion(option.name, option.options))


async def _new_codes(ctx: Context, holder: Holder) -> list[str]:
    codes = recovery.new_codes()
    hashes = recovery.hashes(codes, ctx.options.keys[0])
    await holder.adapter.call("replace_recovery_codes", NEEDED_FOR, holder.user.id, hashes)
    await record(ctx, holder.user.id, RECOVERY_CODES_MADE)
    return codes


def _with_codes(outcome: Outcome, codes: list[str]) -> Outcome:
    """``outcome``, answered with the page itself, showing ``codes`` once."""
    outcome.data["recoveryCodes"] = codes
    outcome.stay = True
    return outcome


async def _turned_on(ctx: Context, holder: Holder, enrolment: MfaEnrolment) -> Outcome:
    """``enrolment`` is stored; the first factor also makes the recovery codes."""
    before = await _enrolment(holder)
    await holder.adapter.call("save_mfa", NEEDED_FOR, enrolment)
    if before is not None and before.on:
        return done("mfa-updated")
    await record(ctx, holder.user.id, MFA_ON)
    await tell_owner(
        ctx,
        holder,
        ADVICE,
        N_("Two-step verification is on for your account on {host}"),
        N_("Two-step verification was turned on for your account ({where})."),
    )
    return _with_codes(done("mfa-on"), await _new_codes(ctx, holder))


async def _start_totp(ctx: Context, holder: Holder) -> Outcome:
    stepped = step_up(ctx, holder, page_url(ctx, "two-factor"))
    if stepped is not None:
        return stepped
    ctx.set_cookies.append(_enrolment_cookie(ctx, holder, totp.new_secret()))
    return done("totp-started")


async def _confirm_totp(ctx: Context, holder: Holder) -> Outcome:
    stepped = step_up(ctx, holder, page_url(ctx, "two-factor"))
    if stepped is not None:
        return stepped
    secret = _pending_secret(ctx, holder)
    if secret is None:
        return refused("The set-up took too long. Start again.", status=409)
    step = totp.matching_step(secret, ctx.body.get("code"))
    if step is None:
        return refused(
            "That code does not match. Check the app's time, and type the code it shows now.",
            field_name="code",
        )
    before = await _enrolment(holder)
    enrolment = MfaEnrolment(
        user_id=holder.user.id,
        created=before.created if before else now(),
        totp_secret=totp.seal_secret(ctx.options.keys, secret),
        totp_last_step=step,
        passkey=before.passkey if before else False,
    )
    outcome = await _turned_on(ctx, holder, enrolment)
    _end_enrolment(ctx)
    outcome.cookies = [*outcome.cookies, *await _proven(ctx, holder)]
    outcome.data["multiFactor"] = True  # this session, from now on
    return outcome


async def _proven(ctx: Context, holder: Holder) -> list[Cookie]:
    """The user just typed a code of their app in this session: it counts as signed in
    with two steps from now on (its ``amr`` gains ``otp`` and ``mfa``; ``auth_time``
    stays)."""
    facts = holder.signed_in.facts
    amr = tuple(dict.fromkeys((*facts.amr, ONE_TIME_CODE, MULTI_FACTOR)))
    strategy = strategy_for(ctx.options)
    if isinstance(strategy, DatabaseSessions):
        await strategy.reauthenticated(ctx, SignInFacts(facts.auth_time, amr))
        return []
    _, cookies = await strategy.read(ctx, claims={"amr": list(amr)})
    return cookies


async def _turn_off(ctx: Context, holder: Holder, keep_passkey: bool, keep_totp: bool) -> Outcome:
    before = await _enrolment(holder)
    if before is None or not before.on:
        return refused("Two-step verification is off already.", status=409)
    kept = MfaEnrolment(
        user_id=holder.user.id,
        created=before.created,
        totp_secret=before.totp_secret if keep_totp else None,
        totp_last_step=before.totp_last_step if keep_totp else None,
        passkey=before.passkey and keep_passkey,
    )
    if kept.on:
        await holder.adapter.call("save_mfa", NEEDED_FOR, kept)
        return done("mfa-updated")
    await holder.adapter.call("delete_mfa", NEEDED_FOR, holder.user.id)
    await record(ctx, holder.user.id, MFA_OFF)
    await tell_owner(
        ctx,
        holder,
        ADVICE,
        N_("Two-step verification is off for your account on {host}"),
        N_("Two-step verification was turned off for your account ({where})."),
    )
    return done("mfa-off")


async def _sensitive(ctx: Context, holder: Holder, intent: str) -> Outcome:
    stepped = step_up(ctx, holder, page_url(ctx, "two-factor"))
    if stepped is not None:
        return stepped
    before = await _enrolment(holder)
    if intent == "totp-remove":
        return await _turn_off(ctx, holder, keep_passkey=True, keep_totp=False)
    if intent == "passkey-off":
        return await _turn_off(ctx, holder, keep_passkey=False, keep_totp=True)
    if intent == "off":
        return await _turn_off(ctx, holder, keep_passkey=False, keep_totp=False)
    if intent == "passkey-on":
        if not ctx.options.config.mfa.passkeys or not await user_passkeys(ctx, holder):
            return refused("Add a passkey first: then it can be your second step.", status=409)
        enrolment = MfaEnrolment(
            user_id=holder.user.id,
            created=before.created if before else now(),
            totp_secret=before.totp_secret if before else None,
            totp_last_step=before.totp_last_step if before else None,
            passkey=True,
        )
        return await _turned_on(ctx, holder, enrolment)
    # recovery-new
    if before is None or not before.on:
        return refused("Turn two-step verification on first.", status=409)
    return _with_codes(done("recovery-made"), await _new_codes(ctx, holder))


async def _revoke(ctx: Context, holder: Holder, browser_id: str | None) -> Outcome:
    missing = unavailable(holder, "delete_trusted_browsers")
    if missing is not None:
        return refused(missing, status=501)
    count: int = await holder.adapter.call(
        "delete_trusted_browsers", NEEDED_FOR, holder.user.id, browser_id
    )
    if browser_id is not None and count == 0:
        return refused("This browser is not one you trust, or its trust has ended.", status=404)
    await record(ctx, holder.user.id, TRUSTED_BROWSERS_REVOKED, detail={"count": str(count)})
    return done("trust-revoked")


async def act(ctx: Context, holder: Holder) -> Outcome:
    intent = ctx.body.get("intent")
    if not available(ctx):
        return refused(unavailable(holder, *METHODS) or N_("Not available here."), status=501)
    if intent == "totp-start":
        return await _start_totp(ctx, holder)
    if intent == "totp-confirm":
        return await _confirm_totp(ctx, holder)
    if intent == "totp-cancel":
        _end_enrolment(ctx)
        return done("totp-cancelled")
    if intent in ("totp-remove", "passkey-on", "passkey-off", "off", "recovery-new"):
        return await _sensitive(ctx, holder, str(intent))
    if intent == "revoke":
        browser = ctx.body.get("browser")
        if not isinstance(browser, str) or not browser:
            return refused("This form cannot do that.")
        return await _revoke(ctx, holder, browser)
    if intent == "revoke-all":
        return await _revoke(ctx, holder, None)
    return refused("This form cannot do that.")


PAGE = Page(
    "two-factor",
    N_("Two-step verification"),
    "account/two_factor.html",
    view,
    act,
    offered=_offered,
)
