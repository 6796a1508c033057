"""The account's security activity: each thing that happens to an account becomes a
``SecurityEvent``, stored through the adapter's optional ``record_security_event`` (for
the account center's activity page) and passed to the ``activity`` event.

Recording never stops what it records: a store that fails is logged. Refused and throttled
sign-ins are recorded only where the user can be told from the request (the address of a
sign-in email, the account of a credentials form, a passkey's credential id): an OAuth
refusal names no user.
"""

from __future__ import annotations

from collections.abc import Mapping

from authui.actions.throttling import counter_for
from authui.actions.webauthn.ceremony import credential_id, read_answer
from authui.adapters.account import SecurityEvent
from authui.adapters.base import AdapterAuthenticator, AdapterUser
from authui.callbacks import emit
from authui.context import Context
from authui.dates import now
from authui.errors import (
    AccessDenied,
    AuthError,
    CredentialsSignin,
    TooManyAttempts,
    Verification,
    WebAuthnVerificationError,
)
from authui.providers.credentials import Credentials
from authui.providers.email import EmailProvider
from authui.providers.webauthn import WebAuthnProvider
from authui.proxies import client_address
from authui.throttle import digest
from authui.user_agents import kept_client, kept_user_agent

NEEDED_FOR = "the account's security activity"

SIGN_IN = "sign-in"
SIGN_IN_FAILED = "sign-in-failed"
SIGN_IN_THROTTLED = "sign-in-throttled"
PASSKEY_ADDED = "passkey-added"
PASSKEY_RENAMED = "passkey-renamed"
PASSKEY_DELETED = "passkey-deleted"
ACCOUNT_LINKED = "account-linked"
ACCOUNT_UNLINKED = "account-unlinked"
EMAIL_CHANGED = "email-changed"
EMAIL_CHANGE_REQUESTED = "email-change-requested"
PROFILE_CHANGED = "profile-changed"
SESSIONS_ENDED = "sessions-ended"
ACCOUNT_DELETED = "account-deleted"
REAUTHENTICATED = "reauthenticated"
SIGN_UP = "sign-up"
PASSWORD_SET = "password-set"  # noqa: S105 (an event kind)
PASSWORD_CHANGED = "password-changed"  # noqa: S105 (an event kind)
PASSWORD_RESET = "password-reset"  # noqa: S105 (an event kind)
PASSWORD_REMOVED = "password-removed"  # noqa: S105 (an event kind)
MFA_ON = "mfa-on"
MFA_OFF = "mfa-off"
MFA_FAILED = "mfa-failed"
RECOVERY_CODES_MADE = "recovery-codes-made"
RECOVERY_CODE_USED = "recovery-code-used"
BROWSER_TRUSTED = "browser-trusted"
TRUSTED_BROWSERS_REVOKED = "trusted-browsers-revoked"

RECORDED_REFUSALS = (
    TooManyAttempts,
    CredentialsSignin,
    WebAuthnVerificationError,
    AccessDenied,
    Verification,
)
"""The refusals of a sign-in attempt that the account's activity shows."""

SIGN_IN_ACTIONS = frozenset({"signin", "callback"})
"""The actions whose refusals are sign-in attempts (``<base>/account/email`` is no sign-in,
though its provider id reads ``email``)."""


async def record(
    ctx: Context,
    user_id: str,
    kind: str,
    *,
    provider: str | None = None,
    detail: Mapping[str, str] | None = None,
    kept: bool = True,
) -> None:
    """Record that ``kind`` happened to the account ``user_id`` now, from this request's
    browser and address; without ``kept``, only the ``activity`` event tells it (an
    account that is gone keeps no activity)."""
    event = SecurityEvent(
        user_id=user_id,
        kind=kind,
        at=now(),
        provider=provider,
        client=kept_client(client_address(ctx.request, ctx.options.config.trusted_proxies)),
        user_agent=kept_user_agent(ctx.request.headers.get("user-agent")),
        detail=dict(detail or {}),
    )
    adapter = ctx.options.adapter
    if kept and adapter is not None and adapter.has("record_security_event"):
        try:
            await adapter.call("record_security_event", NEEDED_FOR, event)
        except AuthError as error:
            ctx.options.logger.error(error)
    await emit(ctx.options.config.events.activity, ctx.options.logger, event=event)


async def record_refusal(ctx: Context, error: AuthError) -> None:
    """Record a refused or throttled sign-in on the account it was for, when the request
    tells which (see the module's docstring)."""
    attempt = ctx.method == "POST" and ctx.action in SIGN_IN_ACTIONS
    if not attempt or not isinstance(error, RECORDED_REFUSALS):
        return
    try:
        user_id = await _user_of_attempt(ctx)
    except AuthError as lookup:  # the store is down: the refusal itself is what matters
        ctx.options.logger.error(lookup)
        return
    if user_id is None:
        return
    if isinstance(error, TooManyAttempts):
        # Once per throttled window: a flood of refused requests writes one event. The
        # count's fixed window is the limit's own (both start at multiples of its length),
        # so every refusal until the limit's window ends counts in the same one.
        key = f"activity:throttled:{digest(user_id)}"
        if await counter_for(ctx.options).increment(key, error.window) > 1:
            return
        await record(ctx, user_id, SIGN_IN_THROTTLED, provider=ctx.provider_id)
        return
    await record(
        ctx, user_id, SIGN_IN_FAILED, provider=ctx.provider_id, detail={"error": error.type}
    )


async def _user_of_attempt(ctx: Context) -> str | None:
    adapter = ctx.options.adapter
    provider = ctx.options.providers.get(ctx.provider_id or "")
    if adapter is None or provider is None:
        return None
    email: object = None
    if isinstance(provider, EmailProvider):
        email = ctx.body.get("email")
    elif isinstance(provider, Credentials):
        email = ctx.body.get("email") or ctx.body.get("username")
    elif isinstance(provider, WebAuthnProvider):
        try:
            stored_id = credential_id(read_answer(ctx))
        except WebAuthnVerificationError:
            return None
        found: AdapterAuthenticator | None = await adapter.call(
            "get_authenticator", NEEDED_FOR, stored_id
        )
        return None if found is None else found.user_id
    if not isinstance(email, str) or "@" not in email:
        return None
    user: AdapterUser | None = await adapter.call(
        "get_user_by_email", NEEDED_FOR, email.strip().lower()
    )
    return None if user is None else user.id
