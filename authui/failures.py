"""How a request that cannot be served is answered: a host that is not trusted, a path that
names no action, a broken configuration, and an action that failed.

An action's failure is logged and sends the user to the page its error's kind names
(reference §2.7), or, for an error with a status of its own (400, 429, 503), is answered on
the spot in the form the client reads: JSON, the htmx form, or the page.
"""

from __future__ import annotations

from authui import htmx
from authui.actions.account.outcome import Outcome, wants_json
from authui.actions.audit import describe_refusal
from authui.actions.callback import inline_error
from authui.actions.pages import signin_answer, signin_page
from authui.context import Context
from authui.errors import (
    AuthError,
    BadRequest,
    CodedSignInError,
    ErrorPageLoop,
    InvalidCallbackUrl,
    InvalidHost,
    UnknownAction,
)
from authui.http import NO_CACHE, InternalResponse, Request, wants_page
from authui.options import Options
from authui.pages import error_message
from authui.urls import origin_of, with_query

RETURN_REDIRECT = "x-auth-return-redirect"
PAGE_ACTIONS = frozenset(
    {
        "signin",
        "signout",
        "error",
        "verify-request",
        "new-user",
        "passkeys",
        "account",
        "password",
        "mfa",
    }
)
INVALID_HOST_MESSAGE = "This site does not answer for the host this request was sent to."
INVALID_CALLBACK_URL_MESSAGE = "The callbackUrl must be a path or an absolute http(s) URL."
CONFIG_ERROR_MESSAGE = (
    "There was a problem with the server configuration. Check the server logs for more information."
)


def invalid_host(request: Request, options: Options) -> InternalResponse:
    """The 400 answer to a request for a host that is invalid or not trusted, with nothing
    built from that host (no link, no cookie): as for a request naming no action, the
    error page for a browser (its ``Accept`` names ``text/html``), JSON for any other
    client."""
    accept, content_type = request.headers.get("accept"), request.headers.get("content-type")
    if RETURN_REDIRECT in request.headers or not wants_page(accept, content_type):
        return InternalResponse.json(400, {"message": INVALID_HOST_MESSAGE})
    return options.renderer.error_page(InvalidHost.type, sign_in_url=None)


def configuration_error(
    request: Request, action: str, url: str, options: Options
) -> InternalResponse:
    """The answer when the configuration is broken (reference §2.2 step 2)."""
    if request.method == "GET" and action in PAGE_ACTIONS:
        error_page = options.config.pages.error
        if error_page:
            if request.query.get("callbackUrl", "").startswith(error_page):
                options.logger.error(
                    ErrorPageLoop("The error page's callbackUrl points into the error page")
                )
            else:
                target = with_query(origin_of(url) + error_page, {"error": "Configuration"})
                return InternalResponse(redirect=target)
        return options.renderer.error_page("Configuration", sign_in_url=None)
    return InternalResponse.json(500, {"message": CONFIG_ERROR_MESSAGE})


def action_failed(ctx: Context, exc: Exception) -> InternalResponse:
    """Log an action's failure and send the user to the page its kind names (§2.7)."""
    error = exc if isinstance(exc, AuthError) else AuthError(cause={"err": exc})
    describe_refusal(ctx, error)
    ctx.options.logger.error(error)
    return_redirect = RETURN_REDIRECT in ctx.request.headers
    if ctx.raw and isinstance(exc, AuthError) and not return_redirect:
        raise exc
    if isinstance(error, UnknownAction):
        return unroutable(ctx.request, ctx.options, ctx.origin)
    if isinstance(error, InvalidCallbackUrl):
        return _refuse_callback_url(ctx)
    params = {"error": error.type if error.client_safe else "Configuration"}
    if isinstance(error, CodedSignInError):
        params["code"] = error.code
    pages = ctx.options.config.pages
    custom = pages.sign_in if error.kind == "signIn" else pages.error
    path = custom or f"{ctx.options.base_path}/{error.kind.lower()}"
    url = with_query(ctx.origin + path, params)
    if error.status is not None and error.client_safe:
        return _answer_now(ctx, error, url, custom=custom is not None)
    if ctx.method == "POST" and ctx.action == "session":
        return InternalResponse.json(400, None)
    if not return_redirect and (form := htmx.form(ctx.request, lambda: inline_error(ctx, error))):
        return form
    answer = (
        InternalResponse.json(200, {"url": url})
        if return_redirect
        else InternalResponse(redirect=url)
    )
    answer.cookies = list(ctx.spent_cookies)
    return answer


def _answer_now(ctx: Context, error: AuthError, url: str, *, custom: bool) -> InternalResponse:
    """An error with a status of its own (400, 429, 503), answered on the spot rather than
    by a redirect that would lose the status: ``{"url"}`` for API clients, ``null`` from
    the session endpoint (a JSON one: next-auth's ``getSession`` reads any answer that is
    not OK as no session), ``{"error", "url"}`` from the passkey options, the account
    center's ``{failed, fieldErrors, formErrors}`` to its API clients, the form for
    htmx (else ``HX-Redirect`` to the page), else the built-in page; the app's own page is
    reached by a redirect. ``Retry-After`` goes with every form of it."""
    assert error.status is not None
    status = error.status
    if RETURN_REDIRECT in ctx.request.headers:
        answer = InternalResponse.json(status, {"url": url})
    elif ctx.action == "session":
        answer = InternalResponse.json(status, None, NO_CACHE)
    elif ctx.action == "webauthn-options":  # fetched by webauthn.js, which shows "error"
        answer = InternalResponse.json(status, {"error": error_message(error), "url": url})
    elif ctx.action == "account" and wants_json(ctx):  # the account center's JSON shape
        refusal = Outcome(failed=True, form_errors=[error_message(error)])
        answer = InternalResponse.json(status, refusal.json())
    elif swapped := htmx.failure(ctx.request, lambda: inline_error(ctx, error), url, status):
        answer = swapped
    elif custom:
        answer = InternalResponse(redirect=url)
    elif error.kind == "signIn":
        answer = signin_page(ctx, error_message(error), status)
    else:
        answer = ctx.options.renderer.error_page(
            error.type, sign_in_url=ctx.action_url("signin"), site_url=ctx.origin
        )
        answer.status = status
    if error.retry_after is not None:
        answer.headers.append(("Retry-After", str(error.retry_after)))
    answer.cookies = [*ctx.spent_cookies, *ctx.set_cookies]
    return answer


def unroutable(request: Request, options: Options, origin: str) -> InternalResponse:
    """The 400 answer to a request that names no action authui has (an unknown action,
    method or path, a provider where the action takes none): there is no action to go by,
    so a browser (its ``Accept`` names ``text/html``) gets the ``BadRequest`` page and any
    other client Auth.js's JSON ``"Bad request."``. No cookie is set."""
    accept, content_type = request.headers.get("accept"), request.headers.get("content-type")
    if RETURN_REDIRECT in request.headers or not wants_page(accept, content_type):
        return InternalResponse.json(400, "Bad request.")
    return _bad_request_page(options, origin)


def _refuse_callback_url(ctx: Context) -> InternalResponse:
    """The 400 answer to a ``callbackUrl`` query parameter that is no path or http(s) URL,
    for a GET of a page action as for configuration errors: the sign-in page still (the
    parameter passed over, so the user can sign in), the ``BadRequest`` page for the other
    pages; JSON for every other request."""
    if (
        ctx.method != "GET"
        or ctx.action not in PAGE_ACTIONS
        or RETURN_REDIRECT in ctx.request.headers
    ):
        answer = InternalResponse.json(400, {"message": INVALID_CALLBACK_URL_MESSAGE})
    elif ctx.action == "signin" and ctx.provider_id is None:
        answer = signin_answer(ctx, status=400)
    else:
        answer = _bad_request_page(ctx.options, ctx.origin)
    answer.cookies = [*ctx.spent_cookies, *ctx.set_cookies]
    return answer


def _bad_request_page(options: Options, origin: str) -> InternalResponse:
    """The ``BadRequest`` error page (400), or a redirect to the app's own error page."""
    custom = options.config.pages.error
    if custom:
        return InternalResponse(redirect=with_query(origin + custom, {"error": BadRequest.type}))
    return options.renderer.error_page(BadRequest.type, sign_in_url=None, site_url=origin)
