"""What the password pages share: the provider, the stored hash, the single-use links, the
forms' answers and the emails' throttle."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from authui import htmx
from authui.actions.link_tokens import use_link_token
from authui.actions.notices import send
from authui.actions.throttling import Counted, count_request
from authui.actions.views import form_context
from authui.adapters.base import AdapterCalls, AdapterUser, VerificationToken, require_adapter
from authui.adapters.factors import PasswordRecord
from authui.context import Context
from authui.csrf import token_hash
from authui.dates import in_seconds, now
from authui.errors import ServiceUnavailable, TooManyAttempts, UnknownAction, Verification
from authui.http import InternalResponse
from authui.mail.addresses import InvalidEmailAddress, normalize_email
from authui.mail.message import DeliveryError
from authui.passwords.hashing import hash_password
from authui.providers.password import Password
from authui.proxies import client_address
from authui.throttle import Limit
from authui.urls import with_query

NEEDED_FOR = "password accounts"
MAX_EMAIL_LENGTH = 254
HOUR = 3600
TOO_MANY = 429


def provider_of(ctx: Context) -> Password:
    """The configuration's password provider.

    Raises:
        UnknownAction: There is none (every password page is then unknown).
    """
    provider = next((p for p in ctx.options.providers.values() if isinstance(p, Password)), None)
    if provider is None:
        raise UnknownAction("There is no password provider in the configuration")
    return provider


def adapter_of(ctx: Context) -> AdapterCalls:
    return require_adapter(ctx.options.adapter, NEEDED_FOR)


def address(value: object) -> str | None:
    """A typed address, normalised; ``None`` when it is not one."""
    try:
        email = normalize_email(value)
    except InvalidEmailAddress:
        return None
    return email if len(email) <= MAX_EMAIL_LENGTH else None


def typed_password(value: object, provider: Password) -> str:
    """The password typed to sign in ("" when there is none, or it cannot be one: a
    password longer than the rules allow is never hashed)."""
    if not isinstance(value, str) or len(value) > provider.rules.max_length:
        return ""
    return value


def new_password(value: object) -> str:
    """A new password as typed (sign-up, reset, change), for the rules to judge: one too
    long is refused as too long, not as too short ("" when none was typed)."""
    return value if isinstance(value, str) else ""


async def store_password(ctx: Context, provider: Password, user_id: str, password: str) -> None:
    """Hash ``password`` and keep it as the user's (replacing any)."""
    hashed = await hash_password(provider.hashing, password)
    record = PasswordRecord(user_id=user_id, hash=hashed, updated=now())
    await adapter_of(ctx).call("set_password", NEEDED_FOR, record)


async def mail(ctx: Context, **message: Any) -> None:
    """Send one of the password emails (``authui.actions.notices.send``'s arguments).
    Every one of them, whether it carries a link or tells about an unknown or known
    address, fails alike, so that an outage does not tell which the address is.

    Raises:
        ServiceUnavailable: The mail service failed or refused the message (503).
    """
    try:
        await send(ctx, **message)
    except DeliveryError as exc:
        raise ServiceUnavailable(
            f"A password email could not be sent: {exc}", cause={"err": exc}
        ) from exc


async def forget_unproven_password(adapter: AdapterCalls, user: AdapterUser) -> None:
    """``user``'s address is proven now by another way in (a sign-in link, a provider that
    vouches for it): a password set while the address was unconfirmed is dropped, as it
    may be a stranger's (who signed up with the address first, to get in once its owner
    confirms it: "pre-account hijacking")."""
    if user.email_verified is None and adapter.has("delete_password"):
        await adapter.call("delete_password", NEEDED_FOR, user.id)


async def count_email(ctx: Context, provider: Password, email: str) -> None:
    """Count a request that sends an email to ``email``: per client and per address, an
    hour each (``Password.signups_per_client``, ``emails_per_address``).

    Raises:
        TooManyAttempts: Too many; nothing is to be sent.
    """
    client = client_address(ctx.request, ctx.options.config.trusted_proxies)
    checks = [
        ("client", client, provider.signups_per_client),
        ("address", email, provider.emails_per_address),
    ]
    for scope, value, count in checks:
        if value:
            counted = Counted(f"{provider.id}:emails", scope, value, Limit(count, HOUR))
            await count_request(ctx, counted)


@dataclass(frozen=True, slots=True)
class Link:
    """A single-use emailed link: its identifier (what it is for) and token."""

    identifier: str
    token: str


async def new_link(ctx: Context, identifier: str, max_age: int) -> Link:
    """Store a new single-use token for ``identifier`` (hashed, as sign-in links are)."""
    token = secrets.token_hex(32)
    stored = token_hash(token, ctx.options.keys[0])
    record = VerificationToken(identifier=identifier, token=stored, expires=in_seconds(max_age))
    await adapter_of(ctx).call("create_verification_token", NEEDED_FOR, record)
    return Link(identifier, token)


async def forget_link(ctx: Context, link: Link) -> None:
    """Use ``link`` up unsent (its email could not go out)."""
    stored = token_hash(link.token, ctx.options.keys[0])
    await adapter_of(ctx).call("use_verification_token", NEEDED_FOR, link.identifier, stored)


async def use_link(ctx: Context, link: Link) -> None:
    """Use ``link`` up, once, atomically.

    Raises:
        Verification: It was used already, never issued, or has expired.
    """
    await use_link_token(
        adapter_of(ctx),
        NEEDED_FOR,
        identifier=link.identifier,
        token=link.token,
        secrets=ctx.options.keys,
        name="password link",
    )


def form_page(
    ctx: Context,
    template: str,
    title: str,
    *,
    status: int = 200,
    **context: Any,
) -> InternalResponse:
    """A password page; htmx swaps its card (so a refusal answers 200 to htmx; a
    throttled post keeps its 429, which htmx swaps in too)."""
    if htmx.is_htmx(ctx.request) and status != TOO_MANY:
        status = 200
    answer = ctx.options.renderer.page(
        template,
        title,
        status,
        signin_url=ctx.action_url("signin"),
        signup_url=ctx.action_url("password", "signup"),
        forgot_url=ctx.action_url("password", "forgot"),
        **form_context(ctx),
        **context,
    )
    if htmx.is_htmx(ctx.request):
        answer.headers.append(htmx.VARY)
    answer.cookies = [*ctx.set_cookies, *answer.cookies]
    return answer


def throttled_page(answer: InternalResponse, error: TooManyAttempts) -> InternalResponse:
    """``answer`` (a form refused for too many requests) with its ``Retry-After``."""
    if error.retry_after is not None:
        answer.headers.append(("Retry-After", str(error.retry_after)))
    return answer


def dead_link(ctx: Context, error: Verification) -> InternalResponse:
    """The error page of a password link that is incomplete, used or expired."""
    ctx.options.logger.error(error)
    if htmx.is_htmx(ctx.request):  # htmx swaps no error answer: the browser goes there
        return InternalResponse(
            redirect=with_query(ctx.action_url("error"), {"error": "PasswordLink"})
        )
    return ctx.options.renderer.error_page(
        "PasswordLink", sign_in_url=ctx.action_url("signin"), site_url=ctx.origin
    )
