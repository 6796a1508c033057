"""The account center's emails: a link to confirm a new address, and notices to the user
(their address changed, someone tried to take an address that is theirs, a sign-in from a
new browser). They go out through the first email provider that has a ``transport``
(``send_verification_request`` sends sign-in emails only)."""

from __future__ import annotations

from datetime import datetime
from urllib.parse import urlsplit

from authui.context import Context
from authui.dates import in_seconds, now
from authui.errors import AuthError
from authui.i18n import current, translate
from authui.mail.render import Letter, render_account_email
from authui.options import Options
from authui.providers.email import EmailProvider
from authui.proxies import client_address
from authui.user_agents import describe


def mail_provider(options: Options) -> EmailProvider | None:
    """The email provider the account center's emails go out through; ``None`` when no
    email provider has a transport."""
    return next(
        (
            p
            for p in options.providers.values()
            if isinstance(p, EmailProvider) and p.transport is not None
        ),
        None,
    )


async def send(
    ctx: Context,
    *,
    to: str,
    heading: str,
    lines: list[str],
    url: str,
    button: str | None = None,
    expires: datetime | None = None,
) -> None:
    """Send one account email to ``to``.

    Raises:
        DeliveryError: The mail service refused it or could not be reached.
        AuthError: There is no email provider with a transport.
    """
    provider = mail_provider(ctx.options)
    if provider is None or provider.transport is None:
        raise AuthError("The account center's emails need an email provider with a transport")
    theme = ctx.options.renderer.theme
    letter = Letter(
        to=to,
        sender=provider.sender,
        url=url,
        expires=expires or in_seconds(provider.max_age),
        brand_color=theme.brand_color,
        button_text=theme.button_text,
    )
    message = render_account_email(
        ctx.options.renderer.environment, letter, heading=heading, lines=lines, button=button
    )
    await provider.transport(message, provider)


def where_from(ctx: Context) -> str:
    """ "Firefox on Linux, from 203.0.113.7": the browser and address of this request."""
    browser = describe(ctx.request.headers.get("user-agent"))
    address = client_address(ctx.request, ctx.options.config.trusted_proxies)
    if address is None:
        return browser
    return translate("{browser}, from {address}", browser=browser, address=address)


async def tell(
    ctx: Context, *, to: str, heading: str, lines: list[str], url: str, button: str
) -> None:
    """``send`` a notice whose failure must not stop what it tells about: logged."""
    try:
        await send(ctx, to=to, heading=heading, lines=lines, url=url, button=button)
    except Exception as exc:
        ctx.options.logger.error(
            exc if isinstance(exc, AuthError) else AuthError(cause={"err": exc})
        )


async def tell_change(
    ctx: Context, to: str | None, *, heading: str, line: str, advice: str, activity_url: str
) -> None:
    """Tell the account's address ``to`` (none: nothing is sent) about a change to how it
    signs in: ``heading`` (with ``{host}``), ``line`` (with ``{where}``: this request's
    browser and address), ``advice`` for when it was not them (the three in English,
    ``N_``-marked where they are written; translated here), and a button to the account's
    activity. A failure is logged: the change is made."""
    if not to:
        return
    host = urlsplit(ctx.origin).netloc
    await tell(
        ctx,
        to=to,
        heading=translate(heading, host=host),
        lines=[translate(line, where=where_from(ctx)), translate(advice)],
        url=activity_url,
        button=translate("Review the activity"),
    )


async def tell_new_browser(ctx: Context, email: str) -> None:
    """Tell ``email``'s owner about this sign-in from a browser new to them (a failure is
    logged: the sign-in goes on)."""
    host = urlsplit(ctx.origin).netloc
    when = current().datetime(now())
    await tell(
        ctx,
        to=email,
        heading=translate("New sign-in to {host}", host=host),
        lines=[
            translate(
                "Your account was signed in to from a browser it was not used with "
                "before: {where}, at {when}.",
                where=where_from(ctx),
                when=when,
            ),
            translate(
                "If it was you, there is nothing to do. If not, sign out the sessions you "
                "do not know and change how you sign in."
            ),
        ],
        url=ctx.action_url("account", "activity"),
        button=translate("Review the activity"),
    )
