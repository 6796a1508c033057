"""Who may use the account center, and when a change needs a fresh sign-in (step-up)."""

from __future__ import annotations

from dataclasses import dataclass

from authui.actions.account.outcome import Outcome, refused
from authui.adapters.base import AdapterCalls, AdapterUser
from authui.context import Context
from authui.i18n import N_, translate
from authui.sessions.current import SignedIn
from authui.sessions.facts import facts_kept, recent_enough
from authui.urls import with_query

NEEDED_FOR = "the account center"


@dataclass(frozen=True, slots=True)
class Holder:
    """The signed-in user of an account request, and the adapter that keeps them."""

    signed_in: SignedIn
    adapter: AdapterCalls

    @property
    def user(self) -> AdapterUser:
        return self.signed_in.user

    def can(self, *methods: str) -> bool:
        """Whether the adapter has every one of ``methods``."""
        return all(self.adapter.has(method) for method in methods)


def page_url(ctx: Context, page: str) -> str:
    """The URL of an account page (``""``: the overview)."""
    return ctx.action_url("account", page or None)


def recent(ctx: Context, holder: Holder) -> bool:
    """Whether the user signed in recently enough to add a way in (see
    ``authui.sessions.facts.recent_enough``)."""
    return recent_enough(ctx, holder.signed_in.facts)


def step_up_url(ctx: Context, back: str) -> str:
    """The step-up page's URL, coming back to ``back`` once the user has signed in."""
    return with_query(page_url(ctx, "reauthenticate"), {"callbackUrl": back})


def step_up(ctx: Context, holder: Holder, back: str) -> Outcome | None:
    """``None`` when the user signed in less than ``account.reauthenticate_after`` seconds
    ago; else the refusal that sends them to the step-up page, to come back to ``back``
    (403 with the page's URL as ``reauthenticate`` for API clients)."""
    options = ctx.options
    if not facts_kept(options.strategy, options.adapter):
        needs = unavailable(holder, "save_session_details", "get_session_details")
        return refused(needs or N_("This change is not available here."), status=501)
    if holder.signed_in.facts.fresh(options.config.account.reauthenticate_after):
        return None
    url = step_up_url(ctx, back)
    outcome = refused("Sign in again to confirm it is you: this change needs a recent sign-in.")
    outcome.status = 403
    outcome.data["reauthenticate"] = url
    outcome.leave = url
    return outcome


def unavailable(holder: Holder, *methods: str) -> str | None:
    """What a page says when the adapter lacks one of ``methods`` (``None`` when it has
    them all): the page shows it instead of failing."""
    missing = [method for method in methods if not holder.adapter.has(method)]
    if not missing:
        return None
    return translate(
        "This is not available here: the site's data store cannot do it yet ({methods}).",
        methods=", ".join(missing),
    )
