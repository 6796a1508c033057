"""authui for Quart: ``from authui.quart import AuthUI``.

``AuthUI`` is a Flask-style extension. ``init_app`` registers the auth routes as a
blueprint (the app's request hooks, signals and error handlers see them), ``auth()`` in
views and ``auth``/``user`` in templates, ``@auth.required``, the server-side
``sign_in``/``sign_out``/``update`` helpers and the ``SignIn``/``SignOut`` template
globals. It uses Quart's public hooks only: the app's state lives in
``app.extensions["authui"]`` (so one ``AuthUI`` can serve several apps), page overrides
come through the app's own Jinja loader, and ``app.asgi_app`` is wrapped in
``authui.integrations.asgi.AuthRoutes``, which refuses invalid hosts and, with
``fast_path=True``, answers authui's routes before Quart's routing.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, ParamSpec, TypeVar, overload

from markupsafe import Markup
from quart import Blueprint, Quart, Response, current_app, g, request

from authui.callbacks import invoke
from authui.config import AuthConfig
from authui.cookies import Cookie
from authui.core import Auth
from authui.errors import RefreshTokenError
from authui.http import Request as CoreRequest
from authui.http import Response as CoreResponse
from authui.http import wants_page
from authui.integrations import buttons, guard
from authui.integrations.account import AccountCalls
from authui.integrations.asgi import AuthRoutes, plain_url, text_headers
from authui.integrations.calls import Caller, cookie_names
from authui.integrations.state import ConfigSource, Integration, base_path_for
from authui.options import resolve, validate_config
from authui.pages.app_templates import PackTemplates, rendering_with

P = ParamSpec("P")
R = TypeVar("R")
ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
EXTENSION = "authui"
"""The integration's key in ``app.extensions``."""
BLUEPRINT = "authui"
"""The name of the blueprint holding the auth routes."""

__all__ = ["AuthUI", "current_config"]


# -- the current app and request ------------------------------------------------------------


def _integration() -> Integration:
    found: Integration = current_app.extensions[EXTENSION]
    return found


async def current_config() -> AuthConfig:
    """The configuration for the current request (a lazy configuration is called here)."""
    return await _integration().config_for(request)


def _url_and_headers() -> tuple[str, list[tuple[str, str]]]:
    """The current request's absolute URL and headers: read off the ASGI scope for a
    plain request (the common case, and much cheaper), else as Quart gives them."""
    scope = request.scope
    url = plain_url(scope)
    if url is not None:
        return url, text_headers(scope)
    return request.url, list(request.headers.items())


async def _core_request() -> CoreRequest:
    """The current request as an authui request; only a POST's body is read."""
    method = request.method
    url, headers = _url_and_headers()
    body = await request.get_data() if method == "POST" else b""
    return CoreRequest.build(method, url, headers=headers, body=body, client=request.remote_addr)


async def _caller() -> Caller:
    """The current request, for calls into the core on the app's behalf (once per request)."""
    store = g._get_current_object()
    found: Caller | None = store.get("authui_caller")
    if found is None:
        url, headers = _url_and_headers()
        integration = _integration()
        config = await integration.config_for(request)
        found = Caller(integration, config, url, headers, request.remote_addr)
        store.authui_caller = found
    return found


def _quart_response(response: CoreResponse) -> Response:
    """An authui response as a Quart response (every ``Set-Cookie`` kept)."""
    result = Response(response.body, status=response.status)
    result.headers.pop("Content-Type", None)
    for name, value in response.headers:
        result.headers.add(name, value)
    return result


def _keep_cookies(cookies: list[Cookie]) -> None:
    """Remember cookies to set on whatever response the current view returns."""
    if cookies:
        g.setdefault("authui_cookies", []).extend(c.serialize() for c in cookies)


async def _apply_cookies(response: Response) -> Response:
    """Set the cookies a view's ``auth()``/``update()``/macros produced; a cookie the
    response sets itself (say, ``sign_out``'s deletion of the session) wins."""
    pending = g.get("authui_cookies")
    if not pending or request.blueprint == BLUEPRINT:
        return response
    own = {c.split("=", 1)[0].strip() for c in response.headers.getlist("Set-Cookie")}
    for header in pending:
        if header.split("=", 1)[0] not in own:
            response.headers.add("Set-Cookie", header)
    return response


def _plain_url_at_root(scope: Any) -> str | None:
    """``plain_url`` for a request served at the root (a ``root_path`` goes through Quart)."""
    return None if scope.get("root_path") else plain_url(scope)


# -- auth() and @auth.required ------------------------------------------------------------


class _Auth:
    """``await auth()`` gives the session (or ``None``); ``@auth.required`` protects views."""

    async def __call__(self) -> dict[str, Any] | None:
        """The session of the current request, read once per request."""
        store = g._get_current_object()  # one context lookup, not one per access
        if "authui_session" not in store:
            store.authui_session, cookies = await (await _caller()).session()
            _keep_cookies(cookies)
        session: dict[str, Any] | None = store.authui_session
        return session

    async def get_access_token(self, provider: str) -> str | None:
        """A valid access token of the signed-in user's account at ``provider``, to call
        its API: the stored one, or a new one when it has expired (one refresh however many
        requests ask at once, in any process); ``None`` when nobody is signed in.

        Raises:
            RefreshTokenError: The user has no account there, or it cannot be refreshed
                (no refresh token, or the provider refused it): send them to sign in with
                the provider again.
        """
        try:
            token, cookies = await (await _caller()).access_token(provider)
        except RefreshTokenError as error:
            _keep_cookies(list(error.cookies))  # the session says so from the next request on
            raise
        _keep_cookies(cookies)  # a JWT session keeping the tokens, re-issued after a refresh
        return token

    @overload
    def required(
        self, view: Callable[P, Awaitable[R]], *, mfa: bool = False
    ) -> Callable[P, Awaitable[R | Response]]: ...
    @overload
    def required(
        self, view: None = None, *, mfa: bool = False
    ) -> Callable[[Callable[P, Awaitable[R]]], Callable[P, Awaitable[R | Response]]]: ...
    def required(self, view: Callable[P, Awaitable[R]] | None = None, *, mfa: bool = False) -> Any:
        """Let only signed-in (and ``authorized``) users through: ``@auth.required``, or
        ``@auth.required(mfa=True)`` for views that also need a sign-in with two-step
        verification (the session's ``amr``: a second factor, a browser trusted after
        one, or a passkey).

        HTML requests are sent to the sign-in page with a ``callbackUrl`` back to this
        page (without two-step verification: to the account center's two-factor page);
        JSON requests get ``401`` (``403``). With ``callbacks.authorized`` set, its answer
        decides who is signed in enough: true lets the request through, false refuses, a
        response is returned.
        """

        def protect(view: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R | Response]]:
            @functools.wraps(view)
            async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R | Response:
                session = await self()
                caller = await _caller()
                config = caller.config
                check = config.callbacks.authorized
                verdict: Any = bool(session and session.get("user"))
                if check is not None:
                    verdict = await invoke(check, auth=session, request=request)
                if isinstance(verdict, Response):
                    return verdict
                if not verdict:
                    return _refuse(config)
                if mfa and not (await caller.facts()).multi_factor:
                    return _refuse_without_mfa()
                return await view(*args, **kwargs)

            return wrapper

        return protect if view is None else protect(view)


def _here() -> str:
    return request.full_path.rstrip("?") if request.query_string else request.path


def _refuse_without_mfa() -> Response:
    if not wants_page(request.headers.get("Accept"), request.content_type):
        return Response(
            json.dumps({"message": guard.mfa_message()}),
            status=403,
            content_type="application/json",
        )
    location = guard.mfa_location(_integration().base_path, _here())
    return Response("", status=302, headers={"Location": location})


def _refuse(config: AuthConfig) -> Response:
    if not wants_page(request.headers.get("Accept"), request.content_type):
        return Response(
            json.dumps({"message": guard.unauthorized_message()}),
            status=401,
            content_type="application/json",
            headers=dict([guard.CHALLENGE]),
        )
    location = guard.sign_in_location(config, _integration().base_path, _here())
    return Response("", status=302, headers={"Location": location})


# -- the extension ------------------------------------------------------------------------


class AuthUI:
    """authui for a Quart app.

    Args:
        app: The app; or call ``init_app`` later.
        config: An ``AuthConfig``, or a function of the request returning one (sync or
            async; return the same object for the same tenant, as each new object is
            resolved anew).
        base_path: Where the routes live; defaults to the config's ``base_path`` (or
            ``/auth``). Required knowledge for a lazy config, whose base path cannot be
            read before the first request.
        fast_path: Answer authui's routes before Quart's routing (a static configuration
            only): about twice as fast, but the app's request hooks, signals and error
            handlers do not run for them. Off by default: the routes are a blueprint.

    Example:
        ```python
        app = Quart(__name__)
        auth_ui = AuthUI(app, AuthConfig(providers=[Credentials(authorize=check)]))
        auth = auth_ui.auth

        @app.get("/me")
        @auth.required
        async def me():
            return await auth()
        ```
    """

    def __init__(
        self,
        app: Quart | None = None,
        config: ConfigSource | None = None,
        *,
        base_path: str | None = None,
        fast_path: bool = False,
    ):
        self._config = config
        self._base_path = base_path
        self._fast_path = fast_path
        self.auth = _Auth()
        self.account = AccountCalls(_caller, _keep_cookies)
        """The account center's actions for the current request's user (``await
        auth_ui.account.revoke_other_sessions()``; see ``authui.integrations.account``);
        the cookies they set go on the view's response."""
        if app is not None:
            self.init_app(app)

    def init_app(self, app: Quart) -> None:
        """Register the blueprint, the request hooks and the template globals on ``app``,
        and wrap ``app.asgi_app``.

        A static configuration is checked here: a broken one (say, no secret outside
        development mode) stops the app at start-up.
        """
        if self._config is None:
            raise TypeError("AuthUI needs a config: AuthUI(app, config)")
        base_path = base_path_for(self._config, self._base_path)
        integration = Integration(self._config, base_path, templates=app.jinja_env)
        app.extensions[EXTENSION] = integration
        if integration.static is not None:
            validate_config(integration.static)
        app.register_blueprint(self._blueprint(base_path))
        app.asgi_app = AuthRoutes(  # type: ignore[method-assign]
            app.asgi_app,
            integration,
            answer_routes=self._fast_path,
            url=_plain_url_at_root,
        )
        app.after_request(_apply_cookies)
        app.before_serving(integration.start)
        app.after_serving(integration.aclose)
        app.context_processor(self._template_context)
        app.add_template_global(sign_in_macro, "SignIn")
        app.add_template_global(sign_out_macro, "SignOut")
        app.add_template_global(stylesheets, "authui_stylesheets")
        app.add_template_global(static_url, "authui_static")
        app.add_template_global(html_attributes, "authui_html_attrs")

    def _blueprint(self, base_path: str) -> Blueprint:
        blueprint = Blueprint(BLUEPRINT, __name__, url_prefix=base_path)
        blueprint.jinja_loader = PackTemplates()  # "authui/layouts/app.html" for app pages

        async def handle(rest: str = "") -> Response:
            answer = await Auth(await _core_request(), await current_config())
            if not isinstance(answer, CoreResponse):
                raise TypeError("the app's config must not set raw")
            return _quart_response(answer)

        blueprint.add_url_rule("/", "index", handle, methods=ALL_METHODS)
        blueprint.add_url_rule("/<path:rest>", "handle", handle, methods=ALL_METHODS)
        return blueprint

    async def _template_context(self) -> dict[str, Any]:
        if request.blueprint == BLUEPRINT:
            return {}
        rendering_with(resolve(await current_config()).renderer)
        session = await self.auth()
        return {"auth": session, "user": (session or {}).get("user")}

    async def sign_in(
        self, provider: str | None = None, *, redirect_to: str | None = None, **params: str
    ) -> Response:
        """Start a sign-in from a view: a redirect response to return.

        Without a provider, the sign-in page. For credentials, ``params`` are the fields
        (a refused sign-in raises ``CredentialsSignin``); for other providers they are
        added to the authorization request (``prompt=…``, ``login_hint=…``). The target
        is ``redirect_to``, else the page the browser came from (``Referer``), else ``/``.

        Raises:
            AuthError: The sign-in failed (e.g. ``CredentialsSignin``).
        """
        return _quart_response(await (await _caller()).sign_in(provider, redirect_to, params))

    async def sign_out(
        self, *, redirect_to: str | None = None, federated: bool = False
    ) -> Response:
        """End the session from a view: a redirect response to return.

        ``federated``: sign out of the OpenID provider too, when the user signed in with
        one that has ``federated_logout``: the redirect goes to the provider's
        end_session endpoint, which sends the browser on to ``redirect_to`` afterwards.
        """
        answer = await (await _caller()).sign_out(redirect_to, federated=federated)
        g.pop("authui_session", None)
        return _quart_response(answer)

    async def update(self, data: Mapping[str, Any]) -> dict[str, Any] | None:
        """Update the session (``trigger="update"`` in the callbacks); returns the new one.

        The refreshed session cookie is set on the response of the current view.
        """
        g.authui_session, cookies = await (await _caller()).update(data)
        _keep_cookies(cookies)
        session: dict[str, Any] | None = g.authui_session
        return session


# -- template globals ---------------------------------------------------------------------


async def _csrf_token() -> str:
    """The CSRF token for forms in the app's own pages; issues the cookie when needed."""
    if "authui_csrf" not in g:
        options = resolve(await current_config())
        table = cookie_names(options, request.url, request.headers.items())
        name = table.csrf_token.name
        g.authui_csrf, cookie = buttons.forms_csrf(options, table, request.cookies.get(name))
        if cookie is not None:
            _keep_cookies([cookie])
    token: str = g.authui_csrf
    return token


def _page() -> buttons.PageRequest:
    current = request.full_path.rstrip("?") if request.query_string else request.path
    return buttons.PageRequest(
        url=request.url,
        host=request.host,
        current=current,
        cookies=request.cookies,
        accept_language=request.headers.get("accept-language"),
    )


async def sign_in_macro(
    provider: str | None = None,
    sign_in_page: str | None = None,
    redirect_to: str | None = None,
    label: str | None = None,
    inline: bool = False,
) -> Markup:
    """``{{ SignIn() }}``: a sign-in button for app templates.

    With a provider that starts from a button (OAuth, email), a form posting to it with
    the CSRF token; otherwise a link to the sign-in page. ``inline``: as wide as its
    label. Quart renders templates asynchronously, so the call needs no ``await`` in the
    template.
    """
    return buttons.sign_in_button(
        resolve(await current_config()),
        _page(),
        await _csrf_token(),
        provider=provider,
        sign_in_page=sign_in_page,
        redirect_to=redirect_to,
        label=label,
        inline=inline,
    )


async def sign_out_macro(
    sign_out_page: str | None = None,
    redirect_to: str | None = None,
    label: str | None = None,
    inline: bool = False,
    federated: bool = False,
) -> Markup:
    """``{{ SignOut() }}``: a sign-out button (a form with the CSRF token) for app
    templates; ``inline``: as wide as its label; ``federated``: sign out of the OpenID
    provider too (``federated_logout``)."""
    return buttons.sign_out_button(
        resolve(await current_config()),
        _page(),
        await _csrf_token(),
        sign_out_page=sign_out_page,
        redirect_to=redirect_to,
        label=label,
        inline=inline,
        federated=federated,
    )


async def stylesheets() -> list[str]:
    """``{{ authui_stylesheets() }}``: URLs of the active theme pack's stylesheets, so the
    app's own pages can share the look of the auth pages."""
    return list(resolve(await current_config()).renderer.stylesheets)


async def html_attributes() -> Markup:
    """``<html {{ authui_html_attrs() }}>``: the attributes the theme pack styles the
    document by (the request's language and its direction, its class and the configured
    colour scheme), as on the auth pages."""
    options = resolve(await current_config())
    return options.renderer.html_attributes(buttons.page_language(options, _page()))


async def static_url(name: str) -> str:
    """``{{ authui_static("authui.js") }}``: the cache-busted URL of an authui static file
    (``authui.js``, the htmx file, a pack's stylesheet)."""
    return resolve(await current_config()).renderer.assets.url(name)
