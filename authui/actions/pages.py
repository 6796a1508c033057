"""GET /signin, /signout, /error, /verify-request and /new-user: the built-in pages, or a
redirect to the app's own page when ``pages`` names one."""

from __future__ import annotations

from itertools import zip_longest
from urllib.parse import urlsplit

from authui.actions.federated import signed_in_at
from authui.actions.views import form_context, provider_view
from authui.context import Context
from authui.errors import UnknownAction
from authui.http import InternalResponse
from authui.i18n import N_
from authui.pages import signin_error_message
from authui.providers.credentials import Credentials
from authui.urls import with_query

COMPACT_FROM = 10
"""From this many OAuth providers on, the sign-in page shows them as a grid of marks."""


async def signin(ctx: Context) -> InternalResponse:
    return signin_answer(ctx)


def signin_answer(ctx: Context, status: int = 200) -> InternalResponse:
    """``GET /signin``: a redirect to the app's sign-in page (with the callback URL and the
    query's ``error``), else the built-in page with ``status``."""
    if ctx.provider_id is not None:
        raise UnknownAction("GET /signin/<provider> is not supported: POST to it instead")
    error = ctx.query.get("error")
    custom = ctx.options.config.pages.sign_in
    if custom:
        params = {"callbackUrl": ctx.callback_url}
        if error:
            params["error"] = error
        return InternalResponse(redirect=with_query(custom, params))
    message = signin_error_message(error, ctx.query.get("code")) if error else None
    return signin_page(ctx, message, status)


def signin_page(ctx: Context, message: str | None, status: int = 200) -> InternalResponse:
    """The built-in sign-in page, showing ``message`` when there is one.

    The providers come in three groups, in this order: the OAuth buttons; the email form,
    whose one address field serves the first email provider (a sign-in link) and the
    first passkey provider (autofill, sign-in without typing, sign-up); the credentials
    forms. The provider this browser last signed in with is marked."""
    email = ctx.query.get("email") or ctx.body.get("email")
    email = email if isinstance(email, str) else ""
    last_used = ctx.request.cookies.get(ctx.cookies.last_used.name)
    views = [
        provider_view(ctx, p, values={"email": email}, last_used=last_used)
        for p in ctx.options.providers.values()
        if not (isinstance(p, Credentials) and not p.credentials)
    ]
    emails = [v for v in views if v["type"] == "email"]
    passkeys = [v for v in views if v["type"] == "webauthn"]
    pairs = list(zip_longest(emails, passkeys))
    oauth = [v for v in views if v["type"] in ("oauth", "oidc")]
    return ctx.options.renderer.page(
        "signin.html",
        N_("Sign In"),
        status,
        providers=views,
        oauth=oauth,
        compact=len(oauth) >= COMPACT_FROM,
        email_forms=[{"provider": e, "passkey": k} for e, k in pairs],
        credentials=[v for v in views if v["type"] == "credentials"],
        error=message,
        notice=SIGNIN_NOTICES.get(str(ctx.query.get("notice"))),
        email=email,
        **form_context(ctx),
    )


SIGNIN_NOTICES = {
    "password-reset": N_(
        "Your new password is saved, and every other browser signed out. Sign in with it."
    ),
}
"""What the sign-in page says after a step that sends the user there (the query's
``notice``; other values show nothing)."""


async def signout(ctx: Context) -> InternalResponse:
    """``GET /signout``: a redirect to the app's sign-out page, else the built-in page;
    its form asks to sign out of the provider too (``federated``: the provider's name)
    when this browser signed in with one that has ``federated_logout``."""
    custom = ctx.options.config.pages.sign_out
    if custom:
        return InternalResponse(redirect=custom)
    found = signed_in_at(ctx)
    return ctx.options.renderer.page(
        "signout.html",
        N_("Sign Out"),
        action=ctx.action_url("signout"),
        federated=found.provider.name if found is not None else None,
        **form_context(ctx),
    )


async def verify_request(ctx: Context) -> InternalResponse:
    custom = ctx.options.config.pages.verify_request
    if custom:
        query = urlsplit(ctx.url).query
        return InternalResponse(redirect=custom + (f"?{query}" if query else ""))
    return ctx.options.renderer.page(
        "verify_request.html",
        N_("Verify Request"),
        site_url=ctx.origin,
        site_host=urlsplit(ctx.origin).netloc,
    )


async def error(ctx: Context) -> InternalResponse:
    value = ctx.query.get("error", "")
    custom = ctx.options.config.pages.error
    if custom:
        return InternalResponse(redirect=with_query(custom, {"error": value}))
    return ctx.options.renderer.error_page(
        value, sign_in_url=ctx.action_url("signin"), site_url=ctx.origin
    )
