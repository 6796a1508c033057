"""The magic link: sent at ``POST /signin/<email provider>``, used at its callback.

The link carries a random token; the adapter stores only ``sha256hex(token + secret)``
(``authui.csrf.token_hash``: Auth.js's form, so links of either library work against a
shared database). A token is used at most once: ``use_verification_token`` deletes it as
it reads it. Opening the link (``GET``) only shows a page whose button posts the token on,
unless the provider is ``one_click``: mail scanners open links too, and must not spend
them.
"""

from __future__ import annotations

import inspect
import secrets
import uuid
from collections.abc import Mapping
from typing import Any

from authui.actions.finish import allowed_redirect, finish_sign_in
from authui.actions.link_tokens import use_link_token
from authui.actions.password.common import forget_unproven_password
from authui.actions.throttling import check_email
from authui.adapters.base import (
    AdapterCalls,
    AdapterUser,
    VerificationToken,
    require_adapter,
    user_record,
)
from authui.callbacks import emit
from authui.context import Context
from authui.csrf import token_hash
from authui.dates import in_seconds, now
from authui.errors import EmailSignInError, ServiceUnavailable, Verification
from authui.http import InternalResponse
from authui.mail.addresses import InvalidEmailAddress, normalize_email
from authui.mail.message import MailServiceUnavailable, VerificationEmail
from authui.mail.render import Letter, render_email
from authui.providers.email import EmailProvider
from authui.proxies import client_address
from authui.sessions import DatabaseSessions, strategy_for
from authui.urls import with_query

NEEDED_FOR = "email sign-in"


def _secrets(ctx: Context, provider: EmailProvider) -> list[str]:
    """The secrets a stored token may be hashed with: the provider's, else the newest of
    the configuration's, then the older ones, then Auth.js's comma-joined form."""
    if provider.secret:
        return [provider.secret]
    keys = list(ctx.options.keys)
    joined = ",".join(keys)
    return [*keys, joined] if len(keys) > 1 else keys


def _address(provider: EmailProvider, value: object) -> str:
    """The normalised address (``ValueError`` from a normaliser: not an address)."""
    if provider.normalize_identifier is None:
        return normalize_email(value)
    if not isinstance(value, str):
        raise InvalidEmailAddress("Enter an email address")
    return provider.normalize_identifier(value)


async def _user_and_account(
    adapter: AdapterCalls, provider: EmailProvider, email: str
) -> tuple[AdapterUser | None, dict[str, Any], dict[str, Any]]:
    """The stored user of ``email`` (if any), the user the callbacks see (a new id for an
    unknown address), and the account the callbacks see."""
    found: AdapterUser | None = await adapter.call("get_user_by_email", NEEDED_FOR, email)
    user = user_record(found) if found else {"id": str(uuid.uuid4()), "email": email}
    account = {
        "providerAccountId": email,
        "userId": user["id"],
        "type": "email",
        "provider": provider.id,
    }
    return found, user, account


async def send_link(ctx: Context, provider: EmailProvider) -> InternalResponse:
    """Check the address and the limits, ask ``sign_in``, store the token, send the email,
    and show the verify-request page.

    Raises:
        EmailSignInError: The address is not valid, or the mail service refused the email.
        TooManyAttempts: A limit of ``provider.limits`` is reached (``authui.throttle``).
        ServiceUnavailable: The mail service could not be reached.
        AccessDenied: ``sign_in`` refused.

    When the email is not sent, its token is deleted: no link works without an email.
    """
    adapter = require_adapter(ctx.options.adapter, NEEDED_FOR)
    try:
        email = _address(provider, ctx.body.get("email"))
    except ValueError as exc:
        raise EmailSignInError(str(exc), code="invalid_email") from exc
    await check_email(
        ctx, provider, email, client_address(ctx.request, ctx.options.config.trusted_proxies)
    )
    _, user, account = await _user_and_account(adapter, provider, email)
    elsewhere = await allowed_redirect(
        ctx, user=user, account=account, email={"verification_request": True}
    )
    if elsewhere is not None:
        return InternalResponse(redirect=elsewhere)
    generate = provider.generate_verification_token
    token = generate() if generate is not None else secrets.token_hex(32)
    expires = in_seconds(provider.max_age)
    link = {"callbackUrl": ctx.callback_url, "token": token, "email": email}
    url = with_query(ctx.action_url("callback", provider.id), link)
    stored = token_hash(token, _secrets(ctx, provider)[0])
    await adapter.call(
        "create_verification_token",
        NEEDED_FOR,
        VerificationToken(identifier=email, token=stored, expires=expires),
    )
    theme = ctx.options.renderer.theme
    letter = Letter(
        to=email,
        sender=provider.sender,
        url=url,
        expires=expires,
        brand_color=theme.brand_color,
        button_text=theme.button_text,
    )
    message = render_email(ctx.options.renderer.environment, letter, max_age=provider.max_age)
    try:
        await _deliver(ctx, provider, message, token)
    except Exception as exc:
        await adapter.call("use_verification_token", NEEDED_FOR, email, stored)
        if isinstance(exc, MailServiceUnavailable):
            raise ServiceUnavailable(
                f"The sign-in email could not be sent through {provider.id}: the mail "
                "service is unavailable",
                cause={"err": exc, "provider": provider.id},
            ) from exc
        raise EmailSignInError(
            f"The sign-in email could not be sent through {provider.id}: {exc}",
            code="send_failed",
            cause={"err": exc, "provider": provider.id},
        ) from exc
    query = {"provider": provider.id, "type": "email"}
    return InternalResponse(redirect=with_query(ctx.action_url("verify-request"), query))


async def _deliver(
    ctx: Context, provider: EmailProvider, message: VerificationEmail, token: str
) -> None:
    if provider.send_verification_request is not None:
        result = provider.send_verification_request(
            identifier=message.to,
            url=message.url,
            expires=message.expires,
            token=token,
            provider=provider,
            theme=ctx.options.config.theme,
            request=ctx.request,
            message=message,
        )
        if inspect.isawaitable(result):
            await result
        return
    if provider.transport is None:
        raise EmailSignInError(f"Email provider {provider.id!r} has no transport")
    await provider.transport(message, provider)


def read_link(provider: EmailProvider, values: Mapping[str, Any]) -> tuple[str, str]:
    """The token and the normalised address a sign-in link carries: in its query, or in
    the confirmation form that posts them on. Reads only: nothing is used up.

    Raises:
        Verification: No token or no address, or an address that is not valid.
    """
    token, raw_email = values.get("token"), values.get("email")
    if not isinstance(token, str) or not token or not isinstance(raw_email, str) or not raw_email:
        raise Verification("The sign-in link has no token or no email address")
    try:
        return token, _address(provider, raw_email)
    except ValueError as exc:
        raise Verification(f"The sign-in link's address is not valid: {exc}") from exc


async def _use(
    ctx: Context, provider: EmailProvider, adapter: AdapterCalls, values: Mapping[str, Any]
) -> str:
    """The address of a valid, unused, unexpired link; the token is used up.

    Raises:
        Verification: The link has no token or address, or is used, expired or altered.
    """
    token, email = read_link(provider, values)
    secrets = _secrets(ctx, provider)
    name = "sign-in link (for this address)"
    await use_link_token(
        adapter, NEEDED_FOR, identifier=email, token=token, secrets=secrets, name=name
    )
    return email


async def accept_link(
    ctx: Context, provider: EmailProvider, values: Mapping[str, Any]
) -> InternalResponse:
    """Use the link's token and sign its address in: the stored user (now verified), or a
    new user, who is sent to the new-user page.

    Args:
        ctx: The request.
        provider: The link's provider.
        values: Where the link's ``token`` and ``email`` are: the confirmation form's
            body, or (``one_click``) the link's query.

    Raises:
        Verification: See ``_use``.
        AccessDenied: ``sign_in`` refused.
    """
    adapter = require_adapter(ctx.options.adapter, NEEDED_FOR)
    email = await _use(ctx, provider, adapter, values)
    found, user, account = await _user_and_account(adapter, provider, email)
    elsewhere = await allowed_redirect(ctx, user=user, account=account)
    if elsewhere is not None:
        return InternalResponse(redirect=elsewhere)
    await _end_current_session(ctx, adapter)
    if found is None:
        new_user = AdapterUser(id=user["id"], email=email, email_verified=now())
        return await finish_sign_in(ctx, user=user, account=account, new_user=new_user)
    await forget_unproven_password(adapter, found)
    verified = await adapter.call("update_user", NEEDED_FOR, found.id, {"email_verified": now()})
    record = user_record(verified)
    await emit(ctx.options.config.events.update_user, ctx.options.logger, user=record)
    return await finish_sign_in(ctx, user=record, account=account, is_new_user=False)


async def _end_current_session(ctx: Context, adapter: AdapterCalls) -> None:
    """With database sessions, the session this browser had ends: the link signs in
    whoever it was sent to, and a new session is made for them."""
    token = ctx.session_chunks().value
    if token and isinstance(strategy_for(ctx.options), DatabaseSessions):
        await adapter.call("delete_session", NEEDED_FOR, token)
