"""Whether a sign-in needs a second factor before its session: the user's enrolment, the
app's policy (``MfaOptions.policy``), and a browser the user trusts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from authui.actions.mfa.trust import trusted
from authui.adapters.factors import MfaEnrolment
from authui.callbacks import invoke
from authui.context import Context
from authui.errors import MissingAdapterMethods
from authui.factor_checks import MFA_METHODS, MFA_PACKAGES, installed
from authui.sessions.facts import MULTI_FACTOR, SignInFacts, new_sign_in

NEEDED_FOR = "multi-factor authentication"


@dataclass(frozen=True, slots=True)
class SecondFactor:
    """What a sign-in's second step is.

    Attributes:
        challenge: Ask for a second factor before the session.
        enrol: Sign in, then send the user to set a second factor up (the policy asks for
            one they do not have).
        trusted: The user trusts this browser: the session counts as multi-factor.
    """

    challenge: bool = False
    enrol: bool = False
    trusted: bool = False

    def facts(self, first: SignInFacts) -> SignInFacts:
        """The session's facts, from the first step's."""
        if self.trusted:
            return SignInFacts(first.auth_time, (*first.amr, MULTI_FACTOR))
        return first


NOT_ASKED = SecondFactor()


def available(ctx: Context) -> bool:
    """Whether second factors are on, their packages installed (``authui[mfa]``), and
    the adapter keeps them."""
    adapter = ctx.options.adapter
    return (
        ctx.options.config.mfa.enabled
        and installed(*MFA_PACKAGES)
        and adapter is not None
        and all(adapter.has(m) for m in MFA_METHODS)
    )


def _refuse_unserved(ctx: Context) -> None:
    """A policy may ask for a second factor, and the adapter has their methods but its
    data store lacks their tables (a database an Auth.js app made): a sign-in must not
    pass unasked, so it fails as a configuration error, naming the command that adds the
    tables. (Without a policy only enrolled users are asked, and such a store has none.)

    Raises:
        MissingAdapterMethods: So it is.
    """
    adapter = ctx.options.adapter
    mfa = ctx.options.config.mfa
    if not mfa.enabled or mfa.policy is None or adapter is None:
        return
    for method in MFA_METHODS:
        why = adapter.unavailable(method)
        if why is not None:
            raise MissingAdapterMethods(f"Two-step verification needs {method}(), but {why}")


async def enrolment(ctx: Context, user_id: str) -> MfaEnrolment | None:
    """The user's second factors, when they have any on."""
    if not available(ctx):
        return None
    adapter = ctx.options.adapter
    assert adapter is not None
    found: MfaEnrolment | None = await adapter.call("get_mfa", NEEDED_FOR, user_id)
    return found if found is not None and found.on else None


async def second_factor(
    ctx: Context,
    user: dict[str, Any],
    account: dict[str, Any] | None,
    *,
    is_new: bool,
    provider_id: str | None,
) -> SecondFactor:
    """What this sign-in of ``user`` with ``account`` (at ``provider_id``) needs: by
    default a challenge when the user has a second factor and the first step was not a
    passkey (a passkey that verified its user is two factors already);
    ``MfaOptions.policy`` may say otherwise.

    The enrolment is read even for a sign-in that calls its user new (``is_new``): a
    password account's confirmation link says so of a user who may have set a second
    factor up meanwhile, and must not get around it."""
    del is_new  # never a reason to skip the check
    if not available(ctx):
        _refuse_unserved(ctx)
        return NOT_ASKED
    user_id = str(user.get("id"))
    enrolled = await enrolment(ctx, user_id) is not None
    default = enrolled and "hwk" not in new_sign_in(account).amr
    policy = ctx.options.config.mfa.policy
    verdict = None
    if policy is not None:
        verdict = await invoke(
            policy, user=user, provider=provider_id, account=account, enrolled=enrolled
        )
    if not (default if verdict is None else bool(verdict)):
        return NOT_ASKED
    if not enrolled:
        return SecondFactor(enrol=True)
    if await trusted(ctx, user_id):
        return SecondFactor(trusted=True)
    return SecondFactor(challenge=True)
