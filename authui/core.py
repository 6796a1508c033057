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
from authui.actions.callback import inline_error
from authui.callbacks import invoke
from authui.checks import callback_url_errors
from authui.config import AuthConfig
from authui.context import Context
from authui.cookies import Cookie
from authui.csrf import CsrfState, create_csrf_state
from authui.errors import AuthError, CodedSignInError, ErrorPageLoop, UnknownAction
from authui.http import BadRequestBody, InternalResponse, JSONValue, Request, Response
from authui.options import Options, resolve
from authui.pages.assets import CACHE_FOREVER, STATIC_PREFIX
from authui.sessions import strategy_for
from authui.urls import ACTIONS_WITH_PROVIDER, is_auth_action, origin_of, safe_url

RETURN_REDIRECT = "x-auth-return-redirect"
JSON_HEADER = ("Content-Type", "application/json")
PAGE_ACTIONS = frozenset({"signin", "signout", "error", "verify-request", "new-user", "passkeys"})
NO_CSRF = CsrfState(token="", verified=False, cookie_value=None)
"""The CSRF state of a session read on the app's behalf: nothing to check or issue."""
_JSON_BODY = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
"""Compact JSON as ``JSON.stringify`` writes it."""
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
    broken configuration or an unusable request URL reads as no session (the first is
    logged, as the routes log it).
    """
    options = resolve(config)
    try:
        url, origin = _effective_url(request.url, options)
    except ValueError:
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
    return await strategy_for(options).read(ctx)


def _json(status: int, data: object) -> InternalResponse:
    return InternalResponse(status=status, headers=[JSON_HEADER], body=data)


async def _handle(request: Request, options: Options) -> InternalResponse:
    config = options.config
    logger = options.logger
    try:
        url, origin = _effective_url(request.url, options)
        path = urlsplit(url).path
        if path.startswith(options.base_path + STATIC_PREFIX) and request.method == "GET":
            return _static_file(path[len(options.base_path + STATIC_PREFIX) :], options)
        action, provider_id = _parse_path(path, request.method, options.base_path)
    except UnknownAction as error:
        logger.error(error)
        return _json(400, "Bad request.")
    except ValueError:
        return _json(400, {"message": "The request URL is malformed."})
    if len(request.body) > config.max_body_size:
        return _json(413, {"message": "The request body is too large."})
    try:
        body = request.form()
    except BadRequestBody as exc:
        return _json(400, {"message": str(exc)})

    cookies = options.cookies(url)
    problems = options.config_errors
    problems += callback_url_errors(request, cookies.callback_url.name)
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


def _effective_url(url: str, options: Options) -> tuple[str, str]:
    """The request URL, with the origin of ``AUTH_URL`` when one is configured, and that
    URL's origin.

    Raises:
        ValueError: ``url`` is not an absolute http(s) URL with a valid host and port.
    """
    origin = origin_of(url)  # validates scheme, host and port
    if options.fixed_origin is None:
        return url, origin
    parts = urlsplit(url)
    fixed = urlsplit(options.fixed_origin)
    effective = urlunsplit((fixed.scheme, fixed.netloc, parts.path, parts.query, ""))
    return effective, options.fixed_origin


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
    """Queue the CSRF cookie and resolve the callback URL (body, query, then cookie)."""
    options = ctx.options
    if ctx.csrf.cookie_value is not None:
        option = ctx.cookies.csrf_token
        ctx.set_cookies.append(Cookie(option.name, ctx.csrf.cookie_value, option.options))
    requested = ctx.body.get("callbackUrl") or ctx.query.get("callbackUrl")
    cookie_value = ctx.request.cookies.get(ctx.cookies.callback_url.name)
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
    ctx.options.logger.error(error)
    return_redirect = RETURN_REDIRECT in ctx.request.headers
    if ctx.options.config.raw is not None and isinstance(exc, AuthError) and not return_redirect:
        raise exc
    if ctx.method == "POST" and ctx.action == "session":
        return _json(400, None)
    if htmx.is_htmx(ctx.request) and not return_redirect:
        inline = inline_error(ctx, error)
        if inline is not None:
            return htmx.fragment(inline)
    params = {"error": error.type if error.client_safe else "Configuration"}
    if isinstance(error, CodedSignInError):
        params["code"] = error.code
    pages = ctx.options.config.pages
    custom = pages.sign_in if error.kind == "signIn" else pages.error
    path = custom or f"{ctx.options.base_path}/{error.kind.lower()}"
    url = _with_query(ctx.origin + path, params)
    answer = _json(200, {"url": url}) if return_redirect else InternalResponse(redirect=url)
    answer.cookies = list(ctx.spent_cookies)
    return answer
