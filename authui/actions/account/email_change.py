"""Changing the email address: a link to the new address confirms it.

The profile page's form asks for the new address (after a recent sign-in). Nothing changes
then: a link goes to the new address, and the address stays as it is until the link is
followed, confirmed on a page whose button posts it (a mail scanner opening the link
changes nothing). The link works once (its token is stored hashed, as sign-in links are,
under the identifier ``email-change:<user id>:<new address>``, and used up atomically),
and for the email provider's ``max_age``. When it is followed, the old address is told.

An address that belongs to another user is refused without saying so to the asker (no
enumeration of other users' addresses): the answer is the same "check the new address's
inbox", and the new address's owner gets an email saying that someone tried to use it.
The check is made again when the link is followed.
"""

from __future__ import annotations

import secrets
from urllib.parse import urlsplit

from authui.actions.account.changes import change_user
from authui.actions.account.gate import NEEDED_FOR, Holder, page_url, step_up
from authui.actions.account.outcome import Outcome, done, refused
from authui.actions.activity import EMAIL_CHANGE_REQUESTED, EMAIL_CHANGED, record
from authui.actions.link_tokens import use_link_token
from authui.actions.notices import mail_provider, send, tell, where_from
from authui.actions.throttling import counter_for
from authui.actions.views import form_context
from authui.adapters.base import AdapterUser, VerificationToken, require_adapter
from authui.context import Context
from authui.csrf import token_hash
from authui.dates import in_seconds, now
from authui.errors import Verification
from authui.http import InternalResponse
from authui.i18n import N_, translate
from authui.mail.addresses import InvalidEmailAddress, normalize_email
from authui.sessions.current import signed_in
from authui.throttle import digest
from authui.urls import with_query

PATH = "email"
"""``<base>/account/email``: where the link goes."""

MAX_EMAIL_LENGTH = 254
REQUESTS_PER_HOUR = 5
"""How many changes a user may ask for in an hour (each sends an email)."""


def offered(ctx: Context) -> bool:
    """Whether the change is offered: allowed, and an email provider can send the link."""
    return ctx.options.config.account.allow_email_change and mail_provider(ctx.options) is not None


def _identifier(user_id: str, email: str) -> str:
    return f"email-change:{user_id}:{email}"


async def request(ctx: Context, holder: Holder) -> Outcome:
    """Send the link that confirms a new address (see the module's docstring)."""
    raw = ctx.body.get("email")
    values = {"email": raw if isinstance(raw, str) else ""}
    if not offered(ctx):
        return refused("Changing the email address is not offered here.")
    try:
        email = normalize_email(raw)
    except InvalidEmailAddress as exc:
        outcome = refused(str(exc), field_name="email")
        outcome.values = values
        return outcome
    if len(email) > MAX_EMAIL_LENGTH:
        outcome = refused("This address is too long.", field_name="email")
        outcome.values = values
        return outcome
    if email == holder.user.email:
        outcome = refused("This is your address already.", field_name="email")
        outcome.values = values
        return outcome
    back = with_query(page_url(ctx, "profile"), {"email": email})
    stepped = step_up(ctx, holder, back)
    if stepped is not None:
        return stepped
    key = f"account:email-change:{digest(holder.user.id)}"
    if await counter_for(ctx.options).increment(key, 3600) > REQUESTS_PER_HOUR:
        outcome = refused("Too many changes asked for. Try again in an hour.", status=429)
        outcome.values = values
        return outcome
    owner: AdapterUser | None = await holder.adapter.call("get_user_by_email", NEEDED_FOR, email)
    if owner is not None:
        await _tell_taken(ctx, email)
    else:
        await _send_link(ctx, holder, email)
        await record(ctx, holder.user.id, EMAIL_CHANGE_REQUESTED)
    return done("email-sent")


async def _send_link(ctx: Context, holder: Holder, email: str) -> None:
    provider = mail_provider(ctx.options)
    assert provider is not None
    token = secrets.token_hex(32)
    expires = in_seconds(provider.max_age)
    stored = token_hash(token, ctx.options.keys[0])
    await holder.adapter.call(
        "create_verification_token",
        NEEDED_FOR,
        VerificationToken(
            identifier=_identifier(holder.user.id, email), token=stored, expires=expires
        ),
    )
    link = {"user": holder.user.id, "email": email, "token": token}
    url = with_query(page_url(ctx, PATH), link)
    host = urlsplit(ctx.origin).netloc
    try:
        await send(
            ctx,
            to=email,
            heading=translate("Confirm your new address for {host}", host=host),
            lines=[
                translate(
                    "You asked to use this address for your account. Open the link to "
                    "confirm it; until then your account keeps its old address."
                ),
                translate("If you did not ask for it, you can ignore this email."),
            ],
            url=url,
            button=translate("Confirm the address"),
            expires=expires,
        )
    except BaseException:
        await holder.adapter.call(
            "use_verification_token", NEEDED_FOR, _identifier(holder.user.id, email), stored
        )
        raise


async def _tell_taken(ctx: Context, email: str) -> None:
    host = urlsplit(ctx.origin).netloc
    await send(
        ctx,
        to=email,
        heading=translate("Your address was given for another account on {host}", host=host),
        lines=[
            translate(
                "Someone signed in to {host} asked to use this address for their account "
                "({where}). It is yours already, so nothing was changed.",
                host=host,
                where=where_from(ctx),
            ),
            translate("If it was you, sign in with this address instead."),
        ],
        url=ctx.action_url("signin"),
        button=translate("Sign in"),
    )


def _link(ctx: Context, values: dict[str, object]) -> tuple[str, str, str]:
    """The link's user, address and token.

    Raises:
        Verification: Something is missing or the address is not valid.
    """
    user, email, token = values.get("user"), values.get("email"), values.get("token")
    if not all(isinstance(v, str) and v for v in (user, email, token)):
        raise Verification("The address-change link is incomplete")
    try:
        address = normalize_email(email)
    except InvalidEmailAddress as exc:
        raise Verification("The address-change link's address is not valid") from exc
    return str(user), address, str(token)


def _dead_link(ctx: Context, error: Verification) -> InternalResponse:
    """The error page of a link that is incomplete, used, expired or never issued (the
    reason is logged)."""
    ctx.options.logger.error(error)
    return ctx.options.renderer.error_page("EmailChangeLink", sign_in_url=None, site_url=ctx.origin)


async def get(ctx: Context) -> InternalResponse:
    """The page the link opens: it names the new address; its button confirms."""
    try:
        user_id, email, token = _link(ctx, dict(ctx.query))
    except Verification as error:
        return _dead_link(ctx, error)
    return ctx.options.renderer.page(
        "account/confirm_email.html",
        N_("Confirm your new address"),
        action=page_url(ctx, PATH),
        user_id=user_id,
        email=email,
        token=token,
        **form_context(ctx),
    )


async def post(ctx: Context) -> InternalResponse:
    """Use the link and change the address; the old address is told. A link that was used,
    has expired, was never issued, or whose user is gone gets the ``EmailChangeLink`` error
    page (403)."""
    try:
        return await _confirm(ctx)
    except Verification as error:
        return _dead_link(ctx, error)


async def _confirm(ctx: Context) -> InternalResponse:
    adapter = require_adapter(ctx.options.adapter, NEEDED_FOR)
    user_id, email, token = _link(ctx, dict(ctx.body))
    await use_link_token(
        adapter,
        NEEDED_FOR,
        identifier=_identifier(user_id, email),
        token=token,
        secrets=ctx.options.keys,
        name="address-change link",
    )
    user: AdapterUser | None = await adapter.call("get_user", NEEDED_FOR, user_id)
    if user is None:
        raise Verification("The address-change link's user is gone")
    taken: AdapterUser | None = await adapter.call("get_user_by_email", NEEDED_FOR, email)
    if taken is not None and taken.id != user.id:
        return ctx.options.renderer.error_page("EmailTaken", sign_in_url=None, site_url=ctx.origin)
    current = await signed_in(ctx, adapter, NEEDED_FOR, with_facts=False)
    own = current is not None and current.user.id == user.id
    _, cookies = await change_user(
        ctx, adapter, user.id, {"email": email, "email_verified": now()}, own_session=own
    )
    await record(ctx, user.id, EMAIL_CHANGED)
    if user.email:
        await _tell_old_address(ctx, user.email, email)
    if own:
        target = with_query(page_url(ctx, "profile"), {"notice": "email-changed"})
    else:
        target = with_query(ctx.action_url("signin"), {"callbackUrl": page_url(ctx, "profile")})
    return InternalResponse(redirect=target, cookies=cookies)


async def _tell_old_address(ctx: Context, old: str, new: str) -> None:
    """Tell the old address about the change (a failure is logged: the change is made)."""
    host = urlsplit(ctx.origin).netloc
    await tell(
        ctx,
        to=old,
        heading=translate("Your email address on {host} was changed", host=host),
        lines=[
            translate(
                "The address of your account is now {new}. Emails about your account "
                "go there from now on.",
                new=new,
            ),
            translate("If you did not make this change, contact the site's owner at once."),
        ],
        url=page_url(ctx, "activity"),
        button=translate("Review the activity"),
    )
