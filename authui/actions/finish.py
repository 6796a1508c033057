"""The end of every sign-in: the ``sign_in`` callback, the session, the event, the redirect."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from authui.actions.activity import REAUTHENTICATED, SIGN_IN, record
from authui.actions.audit import signed_in
from authui.actions.federated import remember
from authui.actions.known_browsers import known_users, remembered
from authui.actions.mfa.gate import NOT_ASKED, second_factor
from authui.actions.mfa.pending import Pending, challenge
from authui.actions.notices import tell_new_browser
from authui.actions.step_up import ended, expected_user
from authui.adapters.base import AdapterUser
from authui.callbacks import emit, invoke
from authui.context import Context
from authui.cookies import Cookie, deletion
from authui.errors import AccessDenied, OAuthAccountNotLinked, ReauthenticationFailed
from authui.http import InternalResponse
from authui.jwt import JWTDecodeError
from authui.sessions import DatabaseSessions, strategy_for
from authui.sessions.database import store_new_user
from authui.sessions.facts import UNKNOWN, SignInFacts, facts_of_token, new_sign_in
from authui.sessions.jwt import decode_token
from authui.urls import with_query


async def allowed_redirect(ctx: Context, **params: Any) -> str | None:
    """Run the ``sign_in`` callback: ``None`` to go on, a URL to go elsewhere.

    Raises:
        AccessDenied: The callback returned a false value or raised.
    """
    try:
        verdict = await invoke(ctx.options.sign_in_callback, **params)
    except Exception as exc:
        raise AccessDenied(cause={"err": exc}) from exc
    if not verdict:
        raise AccessDenied("The sign_in callback refused the sign-in")
    if isinstance(verdict, str):
        return str(await invoke(ctx.options.redirect_callback, url=verdict, base_url=ctx.origin))
    return None


def last_used(ctx: Context, provider_id: str | None) -> list[Cookie]:
    """The cookie naming the provider (``provider_id``) this browser signed in with, for
    the built-in sign-in page's "Last used" mark; none when that page is off or not
    shown."""
    config = ctx.options.config
    if not config.theme.remember_last_used or config.pages.sign_in or not provider_id:
        return []
    option = ctx.cookies.last_used
    return [Cookie(option.name, provider_id, option.options)]


def refresh_error_ended(ctx: Context) -> list[Cookie]:
    """The deletion of the failed-refresh cookie: a new sign-in stores new tokens."""
    option = ctx.cookies.refresh_error
    return [deletion(option.name, option.options)] if option.name in ctx.request.cookies else []


async def finish_sign_in(
    ctx: Context,
    *,
    user: dict[str, Any],
    account: dict[str, Any] | None,
    profile: Any = None,
    credentials: dict[str, Any] | None = None,
    is_new_user: bool | None = None,
    new_user: AdapterUser | None = None,
    store: Callable[[], Awaitable[dict[str, Any]]] | None = None,
    keep_session: bool = False,
    proves_identity: bool = True,
    provider_id: str | None = None,
) -> InternalResponse:
    """Check ``sign_in``; then store ``new_user`` (if any) with the session, or run
    ``store`` (which writes and returns the stored user) before the session; emit
    ``sign_in`` and redirect. Nothing is written when ``sign_in`` refuses or redirects
    elsewhere. ``keep_session``: the user is already signed in, and a database session
    stays as it is.

    ``proves_identity``: the sign-in showed who the user is (every sign-in but linking a
    new account or adding a passkey while signed in): the session records it as the time
    and way of the last sign-in (``authui.sessions.facts``); otherwise the session keeps
    the facts it had. A user with a second factor (``authui.actions.mfa.gate``) is sent
    to the challenge first; the session is made once it is answered (``complete_sign_in``).
    ``provider_id``: the provider signed in with, when the path names something else
    (the request's provider by default). A sign-in that proves identity while a step-up
    is in progress (``authui.actions.step_up``) must be the step-up's user.

    Raises:
        AccessDenied: ``sign_in`` refused.
        ReauthenticationFailed: A step-up signed in someone else.
    """
    elsewhere = await allowed_redirect(
        ctx, user=user, account=account, profile=profile, credentials=credentials
    )
    if elsewhere is not None:
        return InternalResponse(redirect=elsewhere)
    provider_id = provider_id or ctx.provider_id
    expected = expected_user(ctx) if proves_identity else None
    if expected is not None and (new_user is not None or str(user.get("id")) != expected):
        ctx.spent_cookies.extend(ended(ctx))  # tried once: the next sign-in is an ordinary one
        raise ReauthenticationFailed("The step-up sign-in signed in another user")
    if not proves_identity:
        facts = await _kept_facts(ctx)
        second = NOT_ASKED
    else:
        is_new = new_user is not None or bool(is_new_user)
        second = await second_factor(ctx, user, account, is_new=is_new, provider_id=provider_id)
        if second.challenge:
            if store is not None:
                raise OAuthAccountNotLinked(
                    "The user this account's email belongs to has a second factor: they "
                    "sign in first, then link the account from the account center"
                )
            pending = Pending(
                user_id=str(user.get("id")),
                provider=provider_id or "",
                account=dict(account or {}),
                profile=profile,
                is_new_user=is_new_user,
                keep_session=keep_session,
                expected=expected,
                callback_url=ctx.callback_url,
                amr=list(new_sign_in(account).amr),
            )
            return challenge(ctx, pending)
        facts = second.facts(new_sign_in(account))
    return await complete_sign_in(
        ctx,
        user=user,
        account=account,
        profile=profile,
        is_new_user=is_new_user,
        new_user=new_user,
        store=store,
        keep_session=keep_session,
        facts=facts,
        expected=expected,
        provider_id=provider_id,
        proves_identity=proves_identity,
        enrol=second.enrol,
    )


async def complete_sign_in(
    ctx: Context,
    *,
    user: dict[str, Any],
    account: dict[str, Any] | None,
    profile: Any,
    is_new_user: bool | None,
    facts: SignInFacts,
    expected: str | None,
    provider_id: str | None,
    proves_identity: bool,
    new_user: AdapterUser | None = None,
    store: Callable[[], Awaitable[dict[str, Any]]] | None = None,
    keep_session: bool = False,
    enrol: bool = False,
) -> InternalResponse:
    """The sign-in once every check passed (a second factor too, when one was asked for):
    what ``store`` writes, the new user, the session with ``facts``, the event, the
    activity and the redirect (to the two-factor set-up first with ``enrol``: a policy
    asks for a second factor the user does not have yet)."""
    replaced = _replaced_session(ctx, keep_session=keep_session, step_up=expected is not None)
    if store is not None:
        user = await store()
    strategy = strategy_for(ctx.options)
    if new_user is not None and isinstance(strategy, DatabaseSessions):
        user, cookies = await strategy.create_for_new_user(ctx, new_user, account)
        is_new_user = True
    elif new_user is not None:
        user = await store_new_user(ctx, new_user)
        is_new_user = True
        cookies = await strategy.create(
            ctx, user=user, account=account, profile=profile, is_new_user=True, facts=facts
        )
    elif keep_session and isinstance(strategy, DatabaseSessions):
        if proves_identity:
            await strategy.reauthenticated(ctx, facts)
        cookies = []
    else:
        cookies = await strategy.create(
            ctx, user=user, account=account, profile=profile, is_new_user=is_new_user, facts=facts
        )
        if replaced is not None and isinstance(strategy, DatabaseSessions):
            # a step-up's new session takes the old one's place
            await strategy.delete(ctx, replaced)
    await emit(
        ctx.options.config.events.sign_in,
        ctx.options.logger,
        user=user,
        account=account,
        profile=profile,
        is_new_user=is_new_user,
    )
    signed_in(ctx, user.get("id"))
    cookies = [
        *cookies,
        *last_used(ctx, provider_id),
        *remember(ctx, account),
        *refresh_error_ended(ctx),
    ]
    if proves_identity:
        user_id = str(user.get("id"))
        await record(
            ctx,
            user_id,
            REAUTHENTICATED if expected else SIGN_IN,
            provider=provider_id,
            detail={"amr": " ".join(facts.amr)} if facts.amr else None,
        )
        cookies += [*ended(ctx), *await _browser_known(ctx, user, is_new_user=bool(is_new_user))]
    target = ctx.callback_url
    if enrol:
        target = with_query(ctx.action_url("account", "two-factor"), {"callbackUrl": target})
    elif is_new_user and ctx.options.config.pages.new_user is not False:
        welcome = ctx.options.config.pages.new_user or ctx.action_url("new-user")
        target = with_query(welcome, {"callbackUrl": target})
    return InternalResponse(redirect=target, cookies=cookies)


def _replaced_session(ctx: Context, *, keep_session: bool, step_up: bool) -> str | None:
    """The database session a step-up sign-in replaces (a new session is made for it, and
    the old row would linger in the account's list of sessions); ``None`` otherwise."""
    if not step_up or keep_session or ctx.options.strategy != "database":
        return None
    return ctx.session_chunks().value or None


async def _kept_facts(ctx: Context) -> SignInFacts:
    """The facts of this request's JWT session, for a sign-in that proves nothing new
    (``UNKNOWN`` without one)."""
    value = ctx.session_chunks().value
    if not value or ctx.options.strategy != "jwt":
        return UNKNOWN
    try:
        token = await decode_token(ctx, value)
    except JWTDecodeError:
        return UNKNOWN
    return facts_of_token(token or {})


async def _browser_known(ctx: Context, user: dict[str, Any], *, is_new_user: bool) -> list[Cookie]:
    """With ``AccountOptions.notify_new_browser``: the user is told about a sign-in from a
    browser that never signed them in (not for their first sign-in), and the browser is
    remembered as theirs."""
    if not ctx.options.config.account.notify_new_browser:
        return []
    user_id = str(user.get("id"))
    email = user.get("email")
    new_here = user_id not in known_users(ctx)
    if new_here and not is_new_user and isinstance(email, str) and email:
        await tell_new_browser(ctx, email)
    return [remembered(ctx, user_id)]  # renewed by every sign-in
