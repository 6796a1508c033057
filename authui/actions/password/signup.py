"""Sign-up with an email address and a password, confirmed by an emailed link.

``GET <base>/password/signup`` shows the form; its post checks the fields (the password
rules: ``Password.rules``) and then answers the same "check your inbox" whether or not the
address has an account (no enumeration): a new address gets a user (not confirmed), its
password and a confirmation link; a known one gets an email telling its owner, who may sign
in or reset the password. Both cost a hash and one email, so they also take as long.

The link (``<base>/password/verify``, single use, ``Password.verify_max_age``) opens a
page whose button confirms the address (a mail scanner opening the link uses nothing up)
and signs the new user in.
"""

from __future__ import annotations

import uuid
from urllib.parse import urlsplit

from authui.actions.activity import SIGN_UP, record
from authui.actions.finish import finish_sign_in
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
    throttled_page,
    use_link,
)
from authui.adapters.base import AdapterUser, user_record
from authui.adapters.factors import PasswordRecord
from authui.callbacks import emit
from authui.context import Context
from authui.dates import now
from authui.errors import TooManyAttempts, Verification
from authui.http import InternalResponse
from authui.i18n import N_, translate, translate_plural
from authui.pages import error_message
from authui.passwords.hashing import hash_password
from authui.providers.password import Password
from authui.urls import with_query

MAX_NAME_LENGTH = 100


def _identifier(email: str) -> str:
    return f"password-verify:{email}"


def page(ctx: Context, provider: Password) -> InternalResponse:
    """The sign-up form."""
    return _form(ctx, provider)


def _form(
    ctx: Context,
    provider: Password,
    *,
    values: dict[str, str] | None = None,
    field_errors: dict[str, list[str]] | None = None,
    form_errors: list[str] | None = None,
    status: int = 200,
) -> InternalResponse:
    return form_page(
        ctx,
        "password/signup.html",
        N_("Create an account"),
        status=status,
        action=ctx.action_url("password", "signup"),
        min_length=provider.rules.min_length,
        max_length=provider.rules.max_length,
        values=values or {},
        field_errors=field_errors or {},
        form_errors=form_errors or [],
    )


def sent(ctx: Context, kind: str) -> InternalResponse:
    """The "check your inbox" page after a sign-up or a reset request."""
    return InternalResponse(redirect=with_query(ctx.action_url("password", "sent"), {"kind": kind}))


def sent_page(ctx: Context) -> InternalResponse:
    """ "Check your inbox", after a sign-up (``kind=signup``) or a reset request."""
    kind = "reset" if ctx.query.get("kind") == "reset" else "signup"
    return form_page(ctx, "password/sent.html", N_("Check your email"), kind=kind)


async def sign_up(ctx: Context, provider: Password) -> InternalResponse:
    """Check the form; then the same answer for a new and a known address (see the
    module's docstring)."""
    raw_name, raw_email = ctx.body.get("name"), ctx.body.get("email")
    name = " ".join(raw_name.split()) if isinstance(raw_name, str) else ""
    values = {"name": name, "email": raw_email if isinstance(raw_email, str) else ""}
    email = address(raw_email)
    password = new_password(ctx.body.get("password"))
    errors: dict[str, list[str]] = {}
    if len(name) > MAX_NAME_LENGTH:
        errors["name"] = [
            translate_plural(
                "Enter a name of at most {n} character.",
                "Enter a name of at most {n} characters.",
                MAX_NAME_LENGTH,
            )
        ]
    if email is None:
        errors["email"] = [translate("Enter a valid email address.")]
    problems = await provider.rules.problems(password, {"email": email, "name": name})
    if problems:
        errors["password"] = problems
    if errors or email is None:
        return _form(ctx, provider, values=values, field_errors=errors, status=422)
    try:
        await count_email(ctx, provider, email)
    except TooManyAttempts as throttled:
        refused = _form(
            ctx, provider, values=values, form_errors=[error_message(throttled)], status=429
        )
        return throttled_page(refused, throttled)
    hashed = await hash_password(provider.hashing, password)
    adapter = adapter_of(ctx)
    owner: AdapterUser | None = await adapter.call("get_user_by_email", NEEDED_FOR, email)
    if owner is not None:
        await _tell_owner(ctx, email)
        return sent(ctx, "signup")
    user = AdapterUser(id=str(uuid.uuid4()), email=email, name=name or None)
    stored: AdapterUser = await adapter.call("create_user", NEEDED_FOR, user)
    try:
        record_ = PasswordRecord(user_id=stored.id, hash=hashed, updated=now())
        await adapter.call("set_password", NEEDED_FOR, record_)
        await send_confirmation(ctx, provider, email, counted=True)
    except BaseException:
        await adapter.call("delete_user", NEEDED_FOR, stored.id)  # nothing half-made
        raise
    await emit(ctx.options.config.events.create_user, ctx.options.logger, user=user_record(stored))
    await record(ctx, stored.id, SIGN_UP, provider=provider.id)
    return sent(ctx, "signup")


async def send_confirmation(
    ctx: Context, provider: Password, email: str, *, counted: bool = False
) -> None:
    """Send a new confirmation link to ``email`` (counted as an email to it, unless the
    caller ``counted`` it already).

    Raises:
        TooManyAttempts: Too many emails to the address or from the client.
        DeliveryError: The mail service failed (the link is used up again).
    """
    if not counted:
        await count_email(ctx, provider, email)
    link = await new_link(ctx, _identifier(email), provider.verify_max_age)
    url = with_query(ctx.action_url("password", "verify"), {"email": email, "token": link.token})
    host = urlsplit(ctx.origin).netloc
    try:
        await mail(
            ctx,
            to=email,
            heading=translate("Confirm your email address for {host}", host=host),
            lines=[
                translate("Open the link to confirm this address; then your password signs in."),
                translate("If you did not sign up, you can ignore this email."),
            ],
            url=url,
            button=translate("Confirm the address"),
        )
    except BaseException:
        await forget_link(ctx, link)
        raise


async def _tell_owner(ctx: Context, email: str) -> None:
    host = urlsplit(ctx.origin).netloc
    await mail(
        ctx,
        to=email,
        heading=translate("Someone tried to sign up with your address on {host}", host=host),
        lines=[
            translate(
                "Someone asked to create an account on {host} with this address ({where}). "
                "You have an account already, so nothing was changed.",
                host=host,
                where=where_from(ctx),
            ),
            translate("If it was you, sign in, or set a new password if you forgot it."),
        ],
        url=ctx.action_url("password", "forgot"),
        button=translate("Set a new password"),
    )


def _link(values: dict[str, object]) -> tuple[str, str]:
    email, token = address(values.get("email")), values.get("token")
    if email is None or not isinstance(token, str) or not token:
        raise Verification("The confirmation link is incomplete")
    return email, token


def confirm_page(ctx: Context, provider: Password) -> InternalResponse:
    """The page the link opens: its button confirms the address."""
    try:
        email, token = _link(dict(ctx.query))
    except Verification as error:
        return dead_link(ctx, error)
    return form_page(
        ctx,
        "password/verify.html",
        N_("Confirm your email address"),
        action=ctx.action_url("password", "verify"),
        email=email,
        token=token,
    )


async def confirm(ctx: Context, provider: Password) -> InternalResponse:
    """Use the link: the address is confirmed and its user signed in."""
    try:
        email, token = _link(dict(ctx.body))
        await use_link(ctx, Link(_identifier(email), token))
    except Verification as error:
        return dead_link(ctx, error)
    adapter = adapter_of(ctx)
    user: AdapterUser | None = await adapter.call("get_user_by_email", NEEDED_FOR, email)
    if user is None:
        return dead_link(ctx, Verification("The confirmation link's user is gone"))
    if user.email_verified is None:
        user = await adapter.call("update_user", NEEDED_FOR, user.id, {"email_verified": now()})
        await emit(
            ctx.options.config.events.update_user, ctx.options.logger, user=user_record(user)
        )
    account = {"providerAccountId": user.id, "type": "email", "provider": provider.id}
    return await finish_sign_in(
        ctx, user=user_record(user), account=account, is_new_user=True, provider_id=provider.id
    )
