"""GET and POST /callback/<provider>: finish a sign-in."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from authui.actions.email import accept_link, read_link
from authui.actions.finish import finish_sign_in
from authui.actions.oauth.callback import complete, forward_from_proxy
from authui.actions.oauth.linking import decide
from authui.actions.password.signin import sign_in as password_sign_in
from authui.actions.views import form_context, passkey_beside, provider_view
from authui.actions.webauthn import authentication, registration
from authui.actions.webauthn.ceremony import read_answer
from authui.actions.webauthn.challenges import NEEDED_FOR as PASSKEYS
from authui.adapters.base import AdapterUser, require_adapter, user_record
from authui.callbacks import invoke_positional
from authui.context import Context
from authui.errors import (
    AuthError,
    CallbackRouteError,
    CredentialsSignin,
    InvalidProvider,
    MissingAuthorize,
    MissingCSRF,
    WebAuthnVerificationError,
)
from authui.http import InternalResponse
from authui.i18n import N_
from authui.pages import error_message
from authui.providers.credentials import Credentials
from authui.providers.email import EmailProvider
from authui.providers.oauth import OAuthProvider
from authui.providers.password import Password
from authui.providers.webauthn import WebAuthnProvider


async def get(ctx: Context) -> InternalResponse:
    provider = ctx.provider
    if isinstance(provider, OAuthProvider):
        return await _oauth(ctx, provider)
    if isinstance(provider, EmailProvider):
        if provider.one_click:
            return await accept_link(ctx, provider, ctx.query)
        return _confirm_link(ctx, provider)
    raise InvalidProvider(f"GET callbacks are not supported for {provider.type!r} providers")


async def post(ctx: Context) -> InternalResponse:
    provider = ctx.provider
    if isinstance(provider, OAuthProvider):
        return await _oauth(ctx, provider)
    if isinstance(provider, WebAuthnProvider):
        if not ctx.csrf.verified:
            raise MissingCSRF("CSRF token was missing during a passkey sign-in")
        return await _passkey(ctx, provider)
    if isinstance(provider, EmailProvider):
        if not ctx.csrf.verified:
            raise MissingCSRF("CSRF token was missing when confirming a sign-in link")
        return await accept_link(ctx, provider, ctx.body)
    if isinstance(provider, Credentials):
        if not ctx.csrf.verified:
            raise MissingCSRF("CSRF token was missing during a credentials sign-in")
        try:
            if isinstance(provider, Password):
                return await password_sign_in(ctx, provider)
            return await _credentials(ctx, provider)
        except AuthError:
            raise
        except Exception as exc:
            raise CallbackRouteError(cause={"err": exc, "provider": provider.id}) from exc
    raise InvalidProvider(f"POST callbacks are not supported for {provider.type!r} providers")


async def _oauth(ctx: Context, provider: OAuthProvider) -> InternalResponse:
    """An OAuth provider's answer: forwarded when this is the redirect proxy, else the
    round trip completed, the linking rules applied and the user signed in."""
    forward = forward_from_proxy(ctx, provider)
    if forward is not None:
        return InternalResponse(redirect=forward)
    try:
        authorized = await complete(ctx, provider)
        linking = await decide(ctx, provider, authorized)
    except AuthError:
        raise
    except Exception as exc:
        raise CallbackRouteError(
            f"Sign-in with {provider.id} failed: {exc}", cause={"err": exc, "provider": provider.id}
        ) from exc
    return await finish_sign_in(
        ctx,
        user=linking.user,
        account=authorized.account,
        profile=authorized.profile,
        is_new_user=linking.is_new_user,
        store=linking.store,
        keep_session=linking.signed_in,
        proves_identity=linking.proves_identity,
    )


async def _passkey(ctx: Context, provider: WebAuthnProvider) -> InternalResponse:
    """Verify the browser's passkey answer and sign in (registering the passkey first, for
    ``register``).

    Raises:
        WebAuthnVerificationError: A bad, replayed, unverified or unknown answer.
        AccountNotLinked: A passkey of, or for, another user than the signed-in one.
    """
    action = ctx.body.get("action")
    if action not in ("register", "authenticate"):
        raise WebAuthnVerificationError(
            "The passkey answer's action must be register or authenticate"
        )
    credential = read_answer(ctx)
    adapter = require_adapter(ctx.options.adapter, PASSKEYS)
    if action == "authenticate":
        return await authentication.verify(ctx, provider, adapter, credential)
    return await registration.verify(ctx, provider, adapter, credential)


def _confirm_link(ctx: Context, provider: EmailProvider) -> InternalResponse:
    """The page a sign-in link opens: it names the address and the site, and its button
    posts the link's token and address on (in the body, never in a URL) to sign in.
    Nothing is used up before that, so a mail scanner opening the link spends nothing.

    Raises:
        Verification: The link has no token or address, or its address is not valid.
    """
    token, address = read_link(provider, ctx.query)
    return ctx.options.renderer.page(
        "confirm_signin.html",
        N_("Confirm Sign In"),
        action=ctx.action_url("callback", provider.id),
        token=token,
        email=ctx.query["email"],
        address=address,
        site_url=ctx.origin,
        site_host=urlsplit(ctx.origin).netloc,
        **form_context(ctx),
    )


def inline_error(ctx: Context, error: AuthError) -> InternalResponse | None:
    """For htmx: a refused credentials sign-in or email request answered with its form, the
    message shown and the typed values (never passwords) kept; ``None`` otherwise."""
    if ctx.method != "POST" or error.kind != "signIn" or not error.client_safe:
        return None
    provider = ctx.options.providers.get(ctx.provider_id or "")
    if isinstance(provider, Credentials) and ctx.action == "callback":
        template = "forms/credentials.html"
    elif isinstance(provider, EmailProvider) and ctx.action == "signin":
        template = "forms/email.html"
    else:
        return None
    message = error_message(error)
    view = provider_view(ctx, provider, values=ctx.body, error=message)
    beside = passkey_beside(ctx, provider)
    passkey = provider_view(ctx, beside) if beside is not None else None
    email = ctx.body.get("email") if isinstance(ctx.body.get("email"), str) else ""
    answer = ctx.options.renderer.fragment(
        template, provider=view, passkey=passkey, email=email, **form_context(ctx)
    )
    answer.cookies = list(ctx.set_cookies)  # a CSRF token issued now must reach the browser
    return answer


async def _credentials(ctx: Context, provider: Credentials) -> InternalResponse:
    if provider.authorize is None:
        raise MissingAuthorize(f"Credentials provider {provider.id!r} has no authorize function")
    result = await invoke_positional(provider.authorize, dict(ctx.body), ctx.request)
    if result is None:
        raise CredentialsSignin()
    if not isinstance(result, Mapping):
        raise TypeError(f"authorize must return a mapping or None, not {type(result).__name__}")
    user: dict[str, Any] = dict(result)
    user["id"] = str(user["id"]) if user.get("id") is not None else str(uuid.uuid4())
    new_user: AdapterUser | None = None
    if ctx.options.adapter is not None:
        found = await stored_user(ctx, user)
        if found is not None:
            user = user_record(found)
        else:
            new_user = unsaved_user(user)
    account = {"providerAccountId": user["id"], "type": "credentials", "provider": provider.id}
    return await finish_sign_in(
        ctx,
        user=user,
        account=account,
        credentials=dict(ctx.body),
        is_new_user=False,
        new_user=new_user,
    )


async def stored_user(ctx: Context, user: dict[str, Any]) -> AdapterUser | None:
    """The stored user for a credentials sign-in with an adapter: by id, else by email.
    Nothing is written here: a new user is stored only once ``sign_in`` allows it."""
    needed_for = "credentials sign-in with an adapter"
    adapter = require_adapter(ctx.options.adapter, needed_for)
    found: AdapterUser | None = await adapter.call("get_user", needed_for, user["id"])
    email = user.get("email")
    if found is None and isinstance(email, str) and email:
        found = await adapter.call("get_user_by_email", needed_for, email.lower())
    return found


def unsaved_user(user: dict[str, Any]) -> AdapterUser:
    """The record a new credentials user will be stored as.

    Raises:
        AuthError: ``authorize`` returned no email for a user the adapter does not know.
    """
    email = user.get("email")
    if not isinstance(email, str) or not email:
        raise AuthError(
            "With an adapter, authorize must return an email or the id of a stored user"
        )
    return AdapterUser(
        id=user["id"], email=email.lower(), name=user.get("name"), image=user.get("image")
    )
