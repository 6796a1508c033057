"""``Auth(request, config)``: parse, check, initialise, dispatch, respond.

This is the whole framework-free core. Integrations turn their framework's request into an
``authui.http.Request``, await ``Auth``, and turn the ``authui.http.Response``
back. Nothing here keeps state between requests.
"""

from __future__ import annotations

import json
from urllib.parse import urlencode, urlsplit, urlunsplit

from authui import htmx
from authui.actions import dispatch
from authui.actions.audit import describe_refusal
from authui.actions.callback import inline_error
from authui.actions.csrf_token import NO_CACHE
from authui.actions.pages import signin_answer, signin_page
from authui.callbacks import invoke
from authui.config import AuthConfig
from authui.context import Context
from authui.cookies import Cookie
from authui.csrf import CsrfState, create_csrf_state
from authui.errors import (
    AuthError,
    BadRequest,
    CodedSignInError,
    ErrorPageLoop,
    InvalidCallbackUrl,
    InvalidHost,
    ServiceUnavailable,
    UnknownAction,
)
from authui.hosts import request_origin
from authui.http import (
    BadRequestBody,
    InternalResponse,
    JSONValue,
    Request,
    Response,
    wants_page,
)
from authui.options import Options, resolve
from authui.pages import error_message
from authui.pages.assets import CACHE_FOREVER, STATIC_PREFIX
from authui.proxies import public_url
from authui.sessions import strategy_for
from authui.urls import (
    ACTIONS_WITH_PROVIDER,
    is_auth_action,
    is_valid_callback_url,
    origin_of,
    safe_url,
)

RETURN_REDIRECT = "x-auth-return-redirect"
JSON_HEADER = ("Content-Type", "application/json")
PAGE_ACTIONS = frozenset({"signin", "signout", "error", "verify-request", "new-user", "passkeys"})
NO_CSRF = CsrfState(token="", verified=False, cookie_value=None)
"""The CSRF state of a session read on the app's behalf: nothing to check or issue."""
_JSON_BODY = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
"""Compact JSON as ``JSON.stringify`` writes it."""
INVALID_HOST_MESSAGE = "This site does not answer for the host this request was sent to."
INVALID_CALLBACK_URL_MESSAGE = "The callbackUrl must be a path or an absolute http(s) URL."
CONFIG_ERROR_MESSAGE = (
    "There was a problem with the server configuration. Check the server logs for more information."
)


async def Auth(request: Request, config: AuthConfig) -> Response | InternalResponse:
    """Answer one request to the auth routes.

    Args:
        request: The request; its URL's path must start with the configured base path.
        config: The configuration. Pass the same object every time: what it resolves to is
            computed once per object.

    Returns:
        The HTTP response; with ``config.raw`` set, the ``InternalResponse`` instead.

    Raises:
        AuthError: Only with ``config.raw`` set and no ``X-Auth-Return-Redirect`` header,
            for errors an integration should handle itself (e.g. a refused sign-in in a
            server-side form action).
    """
    options = resolve(config)
    internal = await _handle(request, options)
    if config.raw is not None:
        return internal
    return_redirect = RETURN_REDIRECT in request.headers
    if internal.redirect is not None and not return_redirect and htmx.is_htmx(request):
        internal = htmx.redirect(internal)
    return to_response(internal, return_redirect=return_redirect)


async def session_of(request: Request, config: AuthConfig) -> tuple[JSONValue, list[Cookie]]:
    """The session of ``request``, as ``GET <base>/session`` would answer it, and the
    session cookies to send back; for integrations reading the session on the app's behalf.

    Only the session check runs: no CSRF token, no callback URL, nothing serialised. A
    broken configuration, an unusable request URL or an outage of the database reads as no
    session (the first and the last are logged, as the routes log them; the cookie is
    kept, so the session is back with the database).
    """
    options = resolve(config)
    try:
        url, origin = _effective_url(request, options)
    except InvalidHost:
        return None, []
    problems = options.config_errors
    if problems:
        options.logger.error(problems[0])
        return None, []
    ctx = Context(
        request=request,
        options=options,
        action="session",
        provider_id=None,
        url=url,
        origin=origin,
        body={},
        cookies=options.cookies(url),
        csrf=NO_CSRF,
        callback_url=origin,
    )
    try:
        return await strategy_for(options).read(ctx)
    except ServiceUnavailable as outage:
        options.logger.error(outage)
        return None, []


def _json(status: int, data: object) -> InternalResponse:
    return InternalResponse(status=status, headers=[JSON_HEADER], body=data)


async def _handle(request: Request, options: Options) -> InternalResponse:
    config = options.config
    logger = options.logger
    try:
        url, origin = _effective_url(request, options)
    except InvalidHost as error:
        logger.error(error)
        return _invalid_host(request, options)
    try:
        path = urlsplit(url).path
        if path.startswith(options.base_path + STATIC_PREFIX) and request.method == "GET":
            return _static_file(path[len(options.base_path + STATIC_PREFIX) :], options)
        action, provider_id = _parse_path(path, request.method, options.base_path)
    except UnknownAction as error:
        logger.error(error)
        return _unroutable(request, options, origin)
    if len(request.body) > config.max_body_size:
        return _json(413, {"message": "The request body is too large."})
    try:
        body = request.form()
    except BadRequestBody as exc:
        return _json(400, {"message": str(exc)})

    cookies = options.cookies(url)
    problems = options.config_errors
    if problems:
        if problems[0] is not options.static_error:
            logger.error(problems[0])
        return _configuration_error(request, action, url, options)

    csrf = create_csrf_state(
        cookie_value=request.cookies.get(cookies.csrf_token.name),
        body_token=body.get("csrfToken"),
        is_post=request.method == "POST",
        keys=options.keys,
        disabled=config.skip_csrf_check is not None,
    )
    ctx = Context(
        request=request,
        options=options,
        action=action,
        provider_id=provider_id,
        url=url,
        origin=origin,
        body=body,
        cookies=cookies,
        csrf=csrf,
    )
    logger.debug("request", {"method": request.method, "action": action, "provider": provider_id})
    try:
        await _init(ctx)
        internal = await dispatch(ctx)
    except Exception as exc:
        return _error_response(ctx, exc)
    internal.cookies[:0] = [*ctx.spent_cookies, *ctx.set_cookies]
    return internal


def _static_file(served_name: str, options: Options) -> InternalResponse:
    asset = options.renderer.assets.find(served_name)
    if asset is None:
        return InternalResponse(
            status=404, headers=[("Content-Type", "text/plain")], body="Not found"
        )
    return InternalResponse(
        headers=[
            ("Content-Type", asset.content_type),
            ("Cache-Control", CACHE_FOREVER),
            ("X-Content-Type-Options", "nosniff"),
        ],
        body=asset.path.read_bytes(),
    )


def _effective_url(request: Request, options: Options) -> tuple[str, str]:
    """The request URL as the client asked for it (scheme and host as trusted proxies
    forwarded them), with the origin of ``AUTH_URL`` when one is configured; and that
    URL's origin.

    Raises:
        InvalidHost: The host is not valid, or not in ``trusted_hosts``; or the scheme is
            not http(s).
    """
    url = public_url(request.url, request.headers, options.config.trusted_proxies)
    origin = request_origin(url, options.trusted_hosts)
    if options.fixed_origin is None:
        return url, origin
    parts = urlsplit(url)
    fixed = urlsplit(options.fixed_origin)
    effective = urlunsplit((fixed.scheme, fixed.netloc, parts.path, parts.query, ""))
    return effective, options.fixed_origin


def _invalid_host(request: Request, options: Options) -> InternalResponse:
    """The 400 answer to a request for a host that is invalid or not trusted, with nothing
    built from that host (no link, no cookie): as for a request naming no action, the
    error page for a browser (its ``Accept`` names ``text/html``), JSON for any other
    client."""
    accept, content_type = request.headers.get("accept"), request.headers.get("content-type")
    if RETURN_REDIRECT in request.headers or not wants_page(accept, content_type):
        return _json(400, {"message": INVALID_HOST_MESSAGE})
    return options.renderer.error_page(InvalidHost.type, sign_in_url=None)


def _parse_path(path: str, method: str, base_path: str) -> tuple[str, str | None]:
    if method not in ("GET", "POST"):
        raise UnknownAction(f"Unsupported HTTP method {method!r}; only GET and POST")
    prefix = base_path.rstrip("/") + "/"
    if not path.startswith(prefix):
        raise UnknownAction(f"Cannot parse action at {path!r}: it is outside {base_path!r}")
    segments = [s for s in path[len(prefix) :].split("/") if s]
    if not 1 <= len(segments) <= 2:
        raise UnknownAction(f"Cannot parse action at {path!r}")
    action = segments[0]
    provider_id = segments[1] if len(segments) == 2 else None
    if provider_id == "undefined":
        provider_id = None
    if not is_auth_action(action) or (provider_id and action not in ACTIONS_WITH_PROVIDER):
        raise UnknownAction(f"Cannot parse action at {path!r}")
    return action, provider_id


async def _init(ctx: Context) -> None:
    """Queue the CSRF cookie and resolve the callback URL (body, query, then cookie).

    A ``callbackUrl`` query parameter or cookie that is neither a path nor an http(s) URL
    is the client's error and is passed over: the cookie is replaced, and the parameter
    refuses the request once the cookies are queued (``_refuse_callback_url``).

    Raises:
        InvalidCallbackUrl: The query parameter is no path or http(s) URL.
    """
    options = ctx.options
    if ctx.csrf.cookie_value is not None:
        option = ctx.cookies.csrf_token
        ctx.set_cookies.append(Cookie(option.name, ctx.csrf.cookie_value, option.options))
    query_value = ctx.query.get("callbackUrl")
    refused = bool(query_value and not is_valid_callback_url(query_value))
    requested = ctx.body.get("callbackUrl") or (None if refused else query_value)
    cookie_value = ctx.request.cookies.get(ctx.cookies.callback_url.name)
    if cookie_value and not is_valid_callback_url(cookie_value):
        options.logger.error(InvalidCallbackUrl("Invalid callback URL in the cookie: replaced"))
        cookie_value = None
    callback_url = ctx.origin
    candidate = requested if isinstance(requested, str) and requested else cookie_value
    if candidate:
        callback_url = str(
            await invoke(options.redirect_callback, url=candidate, base_url=ctx.origin)
        )
    ctx.callback_url = safe_url(callback_url)
    if ctx.callback_url != cookie_value:
        option = ctx.cookies.callback_url
        ctx.set_cookies.append(Cookie(option.name, ctx.callback_url, option.options))
    if refused:
        raise InvalidCallbackUrl("Invalid callback URL in the query")


def to_response(internal: InternalResponse, *, return_redirect: bool = False) -> Response:
    """Serialise an internal response. With ``return_redirect``, a redirect becomes
    ``200 {"url": …}`` keeping every header (the ``X-Auth-Return-Redirect`` contract)."""
    headers = list(internal.headers)
    headers += [("Set-Cookie", cookie.serialize()) for cookie in internal.cookies]
    if internal.redirect is not None:
        location = safe_url(internal.redirect)
        headers.append(("Location", location))
        if return_redirect:
            headers = [(k, v) for k, v in headers if k.lower() != "content-type"]
            return Response.json(200, {"url": location}, headers)
        return Response(302, headers)
    body = internal.body
    content_type = next((v for k, v in headers if k.lower() == "content-type"), "")
    if isinstance(body, bytes):
        data = body
    elif isinstance(body, str) and "json" not in content_type:
        data = body.encode()
    elif body is None and not content_type:
        data = b""
    else:
        data = _JSON_BODY.encode(body).encode()
    return Response(internal.status, headers, data)


def _configuration_error(
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
                target = _with_query(origin_of(url) + error_page, {"error": "Configuration"})
                return InternalResponse(redirect=target)
        return options.renderer.error_page("Configuration", sign_in_url=None)
    return _json(500, {"message": CONFIG_ERROR_MESSAGE})


def _with_query(url: str, params: dict[str, str]) -> str:
    return url + ("&" if "?" in url else "?") + urlencode(params)


def _error_response(ctx: Context, exc: Exception) -> InternalResponse:
    """Log an action's failure and send the user to the page its kind names (§2.7)."""
    error = exc if isinstance(exc, AuthError) else AuthError(cause={"err": exc})
    describe_refusal(ctx, error)
    ctx.options.logger.error(error)
    return_redirect = RETURN_REDIRECT in ctx.request.headers
    if ctx.options.config.raw is not None and isinstance(exc, AuthError) and not return_redirect:
        raise exc
    if isinstance(error, UnknownAction):
        return _unroutable(ctx.request, ctx.options, ctx.origin)
    if isinstance(error, InvalidCallbackUrl):
        return _refuse_callback_url(ctx)
    params = {"error": error.type if error.client_safe else "Configuration"}
    if isinstance(error, CodedSignInError):
        params["code"] = error.code
    pages = ctx.options.config.pages
    custom = pages.sign_in if error.kind == "signIn" else pages.error
    path = custom or f"{ctx.options.base_path}/{error.kind.lower()}"
    url = _with_query(ctx.origin + path, params)
    if error.status is not None and error.client_safe:
        return _answer_now(ctx, error, url, custom=custom is not None)
    if ctx.method == "POST" and ctx.action == "session":
        return _json(400, None)
    if htmx.is_htmx(ctx.request) and not return_redirect:
        inline = inline_error(ctx, error)
        if inline is not None:
            return htmx.fragment(inline)
    answer = _json(200, {"url": url}) if return_redirect else InternalResponse(redirect=url)
    answer.cookies = list(ctx.spent_cookies)
    return answer


def _answer_now(ctx: Context, error: AuthError, url: str, *, custom: bool) -> InternalResponse:
    """An error with a status of its own (400, 429, 503), answered on the spot rather than
    by a redirect that would lose the status: ``{"url"}`` for API clients, ``null`` from
    the session endpoint (a JSON one: next-auth's ``getSession`` reads any answer that is
    not OK as no session), ``{"error", "url"}`` from the passkey options, the form for
    htmx (else ``HX-Redirect`` to the page), else the built-in page; the app's own page is
    reached by a redirect. ``Retry-After`` goes with every form of it."""
    assert error.status is not None
    status = error.status
    if RETURN_REDIRECT in ctx.request.headers:
        answer = _json(status, {"url": url})
    elif ctx.action == "session":
        answer = _json(status, None)
        answer.headers += NO_CACHE
    elif ctx.action == "webauthn-options":  # fetched by webauthn.js, which shows "error"
        answer = _json(status, {"error": error_message(error), "url": url})
    elif htmx.is_htmx(ctx.request) and (inline := inline_error(ctx, error)) is not None:
        answer = htmx.fragment(inline)
        answer.status = status
    elif htmx.is_htmx(ctx.request):  # htmx swaps in no error answer: the browser goes there
        answer = htmx.redirect(InternalResponse(redirect=url))
        answer.status = status
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


def _unroutable(request: Request, options: Options, origin: str) -> InternalResponse:
    """The 400 answer to a request that names no action authui has (an unknown action,
    method or path, a provider where the action takes none): there is no action to go by,
    so a browser (its ``Accept`` names ``text/html``) gets the ``BadRequest`` page and any
    other client Auth.js's JSON ``"Bad request."``. No cookie is set."""
    accept, content_type = request.headers.get("accept"), request.headers.get("content-type")
    if RETURN_REDIRECT in request.headers or not wants_page(accept, content_type):
        return _json(400, "Bad request.")
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
        answer = _json(400, {"message": INVALID_CALLBACK_URL_MESSAGE})
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
        return InternalResponse(redirect=_with_query(origin + custom, {"error": BadRequest.type}))
    return options.renderer.error_page(BadRequest.type, sign_in_url=None, site_url=origin)
