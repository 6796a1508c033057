"""``Auth(request, config)``: parse, check, initialise, dispatch, respond.

This is the whole framework-free core. Integrations turn their framework's request into an
``authui.http.Request``, await ``Auth``, and turn the ``authui.http.Response``
back. Nothing here keeps state between requests. What is answered when a request cannot be
served (an untrusted host, no such action, a broken configuration, a failed action) is in
``authui.failures``.
"""

from __future__ import annotations

import json
from typing import Literal, overload
from urllib.parse import urlsplit, urlunsplit

from authui import htmx
from authui.access_tokens import access_token
from authui.actions import dispatch
from authui.callbacks import invoke
from authui.config import AuthConfig
from authui.context import Context
from authui.cookies import Cookie
from authui.csrf import CsrfState, create_csrf_state
from authui.errors import (
    InvalidCallbackUrl,
    InvalidHost,
    ServiceUnavailable,
    UnknownAction,
)
from authui.failures import (
    RETURN_REDIRECT,
    action_failed,
    configuration_error,
    invalid_host,
    unroutable,
)
from authui.hosts import request_origin
from authui.http import (
    BadRequestBody,
    InternalResponse,
    JSONValue,
    Request,
    Response,
)
from authui.i18n import speaking
from authui.options import Options, ready, resolve
from authui.pages.assets import CACHE_FOREVER, STATIC_PREFIX
from authui.proxies import public_url
from authui.sessions import strategy_for
from authui.sessions.current import session_facts
from authui.sessions.facts import UNKNOWN, SignInFacts
from authui.urls import (
    ACTIONS_WITH_PROVIDER,
    is_auth_action,
    is_valid_callback_url,
    safe_url,
)

NO_CSRF = CsrfState(token="", verified=False, cookie_value=None)
"""The CSRF state of a session read on the app's behalf: nothing to check or issue."""
_JSON_BODY = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
"""Compact JSON as ``JSON.stringify`` writes it."""


@overload
async def Auth(
    request: Request, config: AuthConfig, *, for_app: Literal[True]
) -> InternalResponse: ...
@overload
async def Auth(
    request: Request, config: AuthConfig, *, for_app: bool = False
) -> Response | InternalResponse: ...
async def Auth(
    request: Request, config: AuthConfig, *, for_app: bool = False
) -> Response | InternalResponse:
    """Answer one request to the auth routes.

    Args:
        request: The request; its URL's path must start with the configured base path.
        config: The configuration. Pass the same object every time: what it resolves to is
            computed once per object.
        for_app: The app itself makes this call on a browser's behalf (an integration's
            server-side ``sign_in``, ``sign_out`` or ``update``): no CSRF check, and the
            raw ``InternalResponse``, as with ``config.raw`` and ``config.skip_csrf_check``
            but on the same configuration as the browser's own requests.

    Returns:
        The HTTP response; with ``config.raw`` set or ``for_app``, the
        ``InternalResponse`` instead.

    Raises:
        AuthError: Only with a raw answer and no ``X-Auth-Return-Redirect`` header,
            for errors an integration should handle itself (e.g. a refused sign-in in a
            server-side form action).
    """
    options = resolve(config)
    check_csrf = not for_app and config.skip_csrf_check is None
    raw = for_app or config.raw is not None
    language, picked = options.language(
        request.url, request.cookies, request.headers.get("accept-language")
    )
    page = _path_and_query(request.url) if request.method == "GET" else None
    with speaking(language, choices=options.languages.available, page=page):
        internal = await _handle(request, options, check_csrf=check_csrf, raw=raw)
    if picked:
        option = options.cookies(request.url).locale
        internal.cookies.append(Cookie(option.name, language.tag, option.options))
    if raw:
        return internal
    return_redirect = RETURN_REDIRECT in request.headers
    if not return_redirect:
        internal = htmx.answer(request, internal)
    return to_response(internal, return_redirect=return_redirect)


async def prepare(config: AuthConfig) -> None:
    """Ready ``config``'s adapter now rather than at the first request: it learns its data
    store (the SQL adapter: its tables and the type of ``users.id``), and what the
    configuration needs that the store lacks is logged at once, each feature with the
    command that adds its tables (``authui.options.ready``).

    The integrations call it at start-up for a static configuration. An app whose
    configurations are made per request (a configuration function) calls it at its own
    start-up for the ones it knows. A broken configuration is left to its requests to
    report; a store that cannot be reached, to the calls that need it.

    Raises:
        AdapterError: The adapter refused what it found (the SQL adapter given an
            ``id_type`` that is not the one ``users.id`` holds).
    """
    options = resolve(config)
    if not options.config_errors:
        await ready(options)


async def session_of(request: Request, config: AuthConfig) -> tuple[JSONValue, list[Cookie]]:
    """The session of ``request``, as ``GET <base>/session`` would answer it, and the
    session cookies to send back; for integrations reading the session on the app's behalf.

    Only the session check runs: no CSRF token, no callback URL, nothing serialised. A
    broken configuration, an unusable request URL or an outage of the database reads as no
    session (the first and the last are logged, as the routes log them; the cookie is
    kept, so the session is back with the database).
    """
    ctx = _app_context(request, resolve(config))
    if ctx is None:
        return None, []
    try:
        await ready(ctx.options)
        return await strategy_for(ctx.options).read(ctx)
    except ServiceUnavailable as outage:
        ctx.options.logger.error(outage)
        return None, []


async def access_token_of(
    request: Request, config: AuthConfig, provider_id: str
) -> tuple[str | None, list[Cookie]]:
    """A valid access token of the signed-in user's account at ``provider_id``, refreshed
    when it has expired (``authui.access_tokens``), or ``None`` when nobody is signed in;
    and the cookies to set (a JWT session keeping the tokens is re-issued after a refresh).
    For integrations acting on the app's behalf: never a route (no browser may fetch
    tokens).

    Raises:
        RefreshTokenError: The user has no account there, or its token cannot be refreshed
            (its ``cookies``: a JWT session re-issued with the failure recorded).
        InvalidProvider: ``provider_id`` is no OAuth provider of the configuration.
        MissingAdapter: The configuration has no adapter (tokens are kept in the accounts
            table).
    """
    ctx = _app_context(request, resolve(config))
    if ctx is None:
        return None, []
    await ready(ctx.options)
    return await access_token(ctx, provider_id)


async def facts_of(request: Request, config: AuthConfig) -> SignInFacts:
    """When and how the user of ``request``'s session signed in (``auth_time``, ``amr``),
    for integrations checking a view's needs (``@auth.required(mfa=True)``); ``UNKNOWN``
    without a session. An outage of the database reads as unknown (logged)."""
    ctx = _app_context(request, resolve(config))
    if ctx is None:
        return UNKNOWN
    try:
        await ready(ctx.options)
        return await session_facts(ctx)
    except ServiceUnavailable as outage:
        ctx.options.logger.error(outage)
        return UNKNOWN


def _app_context(request: Request, options: Options) -> Context | None:
    """The context of a call an integration makes for the app (no action, no CSRF); ``None``
    when the request's host is not served or the configuration is broken (logged)."""
    try:
        url, origin = _effective_url(request, options)
    except InvalidHost:
        return None
    problems = options.config_errors
    if problems:
        options.logger.error(problems[0])
        return None
    return Context(
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


async def _handle(
    request: Request, options: Options, *, check_csrf: bool, raw: bool
) -> InternalResponse:
    config = options.config
    logger = options.logger
    try:
        url, origin = _effective_url(request, options)
    except InvalidHost as error:
        logger.error(error)
        return invalid_host(request, options)
    try:
        path = urlsplit(url).path
        if path.startswith(options.base_path + STATIC_PREFIX) and request.method == "GET":
            return _static_file(path[len(options.base_path + STATIC_PREFIX) :], options)
        action, provider_id = _parse_path(path, request.method, options.base_path)
    except UnknownAction as error:
        logger.error(error)
        return unroutable(request, options, origin)
    if len(request.body) > config.max_body_size:
        return InternalResponse.json(413, {"message": "The request body is too large."})
    try:
        body = request.form()
    except BadRequestBody as exc:
        return InternalResponse.json(400, {"message": str(exc)})

    cookies = options.cookies(url)
    problems = options.config_errors
    if problems:
        if problems[0] is not options.static_error:
            logger.error(problems[0])
        return configuration_error(request, action, url, options)

    csrf = create_csrf_state(
        cookie_value=request.cookies.get(cookies.csrf_token.name),
        body_token=body.get("csrfToken"),
        is_post=request.method == "POST",
        keys=options.keys,
        disabled=not check_csrf,
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
        raw=raw,
    )
    logger.debug("request", {"method": request.method, "action": action, "provider": provider_id})
    try:
        await ready(options)
        await _init(ctx)
        internal = await dispatch(ctx)
    except Exception as exc:
        return action_failed(ctx, exc)
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
        body=asset.body,
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


def _path_and_query(url: str) -> str:
    """The path and query of an absolute URL, read without parsing its host (a request
    for an invalid host still gets its error page)."""
    rest = url.partition("://")[2] or url
    return "/" + rest.partition("/")[2].partition("#")[0]


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
