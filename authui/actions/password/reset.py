"""A forgotten password: ``<base>/password/forgot`` asks for the address and answers the
same "check your inbox" whatever it is. A known address gets a link (single use,
``Password.reset_max_age``); an unknown one an email saying there is no account with it
(so both cost one email, and take as long).

The link opens ``<base>/password/reset``, where the new password is typed. Its post checks
the password rules before it uses the link up (a refused password does not spend it); then
the new password is stored, the address counts as confirmed (the link reached it), the
browsers the user trusted to skip the second step are trusted no more, and every session
of the user ends (database sessions deleted, JWT sessions by the session
version) before the user signs in with the new password.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

from authui.actions.activity import PASSWORD_RESET, record
from authui.actions.notices import where_from
from authui.actions.password.common import (
    NEEDED_FOR,
    Link,
    adapter_of,
    address,
    count_email,
    dead_link,
    forget_link,
    form_page,
    mail,
    new_link,
    new_password,
    store_password,
    throttled_page,
    use_link,
)
from authui.actions.password.signup import sent
from authui.adapters.base import AdapterUser, user_record
from authui.callbacks import emit
from authui.context import Context
from authui.dates import now
from authui.errors import TooManyAttempts, Verification
from authui.http import InternalResponse
from authui.i18n import N_, translate, translate_plural
from authui.pages import error_message
from authui.providers.password import Password
from authui.sessions.ending import end_every_session
from authui.urls import with_query


def _identifier(user_id: str) -> str:
    return f"password-reset:{user_id}"


def forgot_page(
    ctx: Context,
    provider: Password,
    *,
    value: str = "",
    errors: list[str] | None = None,
    form_errors: list[str] | None = None,
    status: int = 200,
) -> InternalResponse:
    """The form asking for the address."""
    return form_page(
        ctx,
        "password/forgot.html",
        N_("Forgot your password?"),
        status=status,
        action=ctx.action_url("password", "forgot"),
        email=value,
        field_errors={"email": errors} if errors else {},
        form_errors=form_errors or [],
    )


async def forgot(ctx: Context, provider: Password) -> InternalResponse:
    """Send the link, or the "no account here" email (see the module's docstring)."""
    raw = ctx.body.get("email")
    typed = raw if isinstance(raw, str) else ""
    email = address(raw)
    if email is None:
        message = translate("Enter a valid email address.")
        return forgot_page(ctx, provider, value=typed, errors=[message], status=422)
    try:
        await count_email(ctx, provider, email)
    except TooManyAttempts as throttled:
        refused = forgot_page(
            ctx, provider, value=typed, form_errors=[error_message(throttled)], status=429
        )
        return throttled_page(refused, throttled)
    user: AdapterUser | None = await adapter_of(ctx).call("get_user_by_email", NEEDED_FOR, email)
    if user is None:
        await _tell_unknown(ctx, provider, email)
    else:
        await _send_link(ctx, provider, user, email)
    return sent(ctx, "reset")


async def _send_link(ctx: Context, provider: Password, user: AdapterUser, email: str) -> None:
    link = await new_link(ctx, _identifier(user.id), provider.reset_max_age)
    url = with_query(ctx.action_url("password", "reset"), {"user": user.id, "token": link.token})
    host = urlsplit(ctx.origin).netloc
    minutes = max(1, provider.reset_max_age // 60)
    try:
        await mail(
            ctx,
            to=email,
            heading=translate("Set a new password for {host}", host=host),
            lines=[
                translate_plural(
                    "Someone asked to set a new password for your account ({where}). Open "
                    "the link within {n} minute to choose one; it works once.",
                    "Someone asked to set a new password for your account ({where}). Open "
                    "the link within {n} minutes to choose one; it works once.",
                    minutes,
                    where=where_from(ctx),
                ),
                translate("If you did not ask, ignore this email: your password stays."),
            ],
            url=url,
            button=translate("Choose a new password"),
        )
    except BaseException:
        await forget_link(ctx, link)
        raise


async def _tell_unknown(ctx: Context, provider: Password, email: str) -> None:
    """Tell ``email`` that no account uses it: it may sign up (where the site offers
    that), or sign in another way."""
    host = urlsplit(ctx.origin).netloc
    if provider.sign_up:
        url, button = ctx.action_url("password", "signup"), translate("Create an account")
    else:
        url, button = ctx.action_url("signin"), translate("Sign in")
    await mail(
        ctx,
        to=email,
        heading=translate("Password help for {host}", host=host),
        lines=[
            translate(
                "Someone asked to set a new password on {host} for this address ({where}), "
                "but no account here uses it.",
                host=host,
                where=where_from(ctx),
            ),
            translate("If it was you, you may have signed up with another address."),
        ],
        url=url,
        button=button,
    )


def _link(values: Mapping[str, object]) -> Link:
    user, token = values.get("user"), values.get("token")
    if not isinstance(user, str) or not user or not isinstance(token, str) or not token:
        raise Verification("The password link is incomplete")
    return Link(_identifier(user), token)


def _reset_form(
    ctx: Context,
    provider: Password,
    values: Mapping[str, object],
    *,
    errors: list[str] | None = None,
    status: int = 200,
) -> InternalResponse:
    return form_page(
        ctx,
        "password/reset.html",
        N_("Choose a new password"),
        status=status,
        action=ctx.action_url("password", "reset"),
        user_id=values.get("user"),
        token=values.get("token"),
        min_length=provider.rules.min_length,
        max_length=provider.rules.max_length,
        field_errors={"password": errors} if errors else {},
    )


def reset_page(ctx: Context, provider: Password) -> InternalResponse:
    """The page the link opens: the new password's form (nothing is used up yet)."""
    values = dict(ctx.query)
    try:
        _link(values)
    except Verification as error:
        return dead_link(ctx, error)
    return _reset_form(ctx, provider, values)


async def reset(ctx: Context, provider: Password) -> InternalResponse:
    """Check the new password, use the link up, store the password, end every session."""
    values = dict(ctx.body)
    try:
        link = _link(values)
    except Verification as error:
        return dead_link(ctx, error)
    adapter = adapter_of(ctx)
    user_id = link.identifier.removeprefix("password-reset:")
    user: AdapterUser | None = await adapter.call("get_user", NEEDED_FOR, user_id)
    password = new_password(ctx.body.get("password"))
    facts = {"email": user.email if user else None, "name": user.name if user else None}
    problems = await provider.rules.problems(password, facts)
    if problems:
        return _reset_form(ctx, provider, values, errors=problems, status=422)
    try:
        await use_link(ctx, link)
    except Verification as error:
        return dead_link(ctx, error)
    if user is None:
        return dead_link(ctx, Verification("The password link's user is gone"))
    await store_password(ctx, provider, user.id, password)
    if user.email_verified is None:  # the link reached the address
        user = await adapter.call("update_user", NEEDED_FOR, user.id, {"email_verified": now()})
        await emit(
            ctx.options.config.events.update_user, ctx.options.logger, user=user_record(user)
        )
    await end_every_session(ctx, user.id)
    if adapter.has("delete_trusted_browsers"):  # they skip no second step any more
        await adapter.call("delete_trusted_browsers", NEEDED_FOR, user.id, None)
    await record(ctx, user.id, PASSWORD_RESET, provider=provider.id)
    target = with_query(ctx.action_url("signin"), {"notice": "password-reset"})
    return InternalResponse(redirect=target)
