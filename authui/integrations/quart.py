"""Quart integration: the auth routes as a blueprint, ``auth()`` in views and templates,
``@auth.required``, server-side ``sign_in``/``sign_out``/``update``, and the ``SignIn`` /
``SignOut`` template macros.

The extension object holds no per-app state: everything lives in
``app.extensions["authui"]``, so one ``AuthUI`` can serve several apps.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import weakref
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ParamSpec, TypeVar
from urllib.parse import urlencode, urlsplit

from markupsafe import Markup
from quart import Blueprint, Quart, Response, g, request

from authui.callbacks import invoke
from authui.config import AuthConfig, raw, skip_csrf_check
from authui.cookies import Cookie
from authui.core import Auth, to_response
from authui.csrf import create_csrf_state
from authui.env import DEFAULT_BASE_PATH, set_env_defaults
from authui.errors import AuthError
from authui.http import InternalResponse
from authui.http import Request as CoreRequest
from authui.http import Response as CoreResponse
from authui.i18n import translate
from authui.options import Options, resolve, validate_config
from authui.providers.credentials import Credentials

ConfigSource = AuthConfig | Callable[[Any], AuthConfig | Awaitable[AuthConfig]]
"""A configuration, or a function of the request returning one (sync or async)."""

P = ParamSpec("P")
R = TypeVar("R")
EXTENSION = "authui"
ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


@dataclass
class _AppState:
    """What ``AuthUI`` keeps per app in ``app.extensions["authui"]``."""

    source: ConfigSource
    base_path: str
    template_dir: str | None
    prepared: weakref.WeakKeyDictionary[AuthConfig, AuthConfig] = field(
        default_factory=weakref.WeakKeyDictionary
    )
    internal: weakref.WeakKeyDictionary[AuthConfig, AuthConfig] = field(
        default_factory=weakref.WeakKeyDictionary
    )

    def prepare(self, config: AuthConfig) -> AuthConfig:
        """The config with env defaults, this base path and the app's template folder."""
        prepared = self.prepared.get(config)
        if prepared is None:
            prepared = set_env_defaults(os.environ, config, suppress_base_path_warning=True)
            dirs = [*prepared.theme.template_dirs]
            if self.template_dir and self.template_dir not in dirs:
                dirs.append(self.template_dir)
            prepared = dataclasses.replace(
                prepared,
                base_path=self.base_path,
                theme=dataclasses.replace(prepared.theme, template_dirs=tuple(dirs)),
            )
            self.prepared[config] = prepared
        return prepared

    def internal_config(self, config: AuthConfig) -> AuthConfig:
        """The config for server-side calls: raw answers, no CSRF (the app is the caller)."""
        internal = self.internal.get(config)
        if internal is None:
            internal = dataclasses.replace(config, raw=raw, skip_csrf_check=skip_csrf_check)
            self.internal[config] = internal
        return internal


def _state() -> _AppState:
    from quart import current_app

    state: _AppState = current_app.extensions[EXTENSION]
    return state


async def current_config() -> AuthConfig:
    """The configuration for the current request (lazy configurations are called here)."""
    state = _state()
    source = state.source
    if isinstance(source, AuthConfig):
        config = source
    else:
        result = source(request)
        config = await result if isinstance(result, Awaitable) else result
    return state.prepare(config)


async def core_request(
    method: str | None = None, path: str | None = None, body: bytes | None = None
) -> CoreRequest:
    """The current request as an authui request; optionally another method, path, body."""
    url = request.url if path is None else request.host_url.rstrip("/") + path
    return CoreRequest.build(
        method or request.method,
        url,
        headers=list(request.headers.items()),
        body=(await request.get_data()) if body is None else body,
    )


def quart_response(response: CoreResponse) -> Response:
    """An authui response as a Quart response (every ``Set-Cookie`` kept)."""
    result = Response(response.body, status=response.status)
    result.headers.pop("Content-Type", None)
    for name, value in response.headers:
        result.headers.add(name, value)
    return result


def _pending_cookies() -> list[str]:
    if not hasattr(g, "authui_cookies"):
        g.authui_cookies = []
    cookies: list[str] = g.authui_cookies
    return cookies


def _keep_cookies(cookies: list[Cookie] | list[str]) -> None:
    """Remember cookies to set on whatever response the current view returns."""
    pending = _pending_cookies()
    pending.extend(c if isinstance(c, str) else c.serialize() for c in cookies)


async def _internal(path: str, body: Mapping[str, Any] | None = None) -> InternalResponse:
    """Call the core on behalf of the app (raw, no CSRF), with the browser's cookies."""
    config = _state().internal_config(await current_config())
    method = "GET" if body is None else "POST"
    data = json.dumps(body).encode() if body is not None else b""
    headers = [(k, v) for k, v in request.headers.items() if k.lower() in ("cookie", "host")]
    headers.append(("Content-Type", "application/json"))
    core = CoreRequest.build(
        method, request.host_url.rstrip("/") + path, headers=headers, body=data
    )
    answer = await Auth(core, config)
    if not isinstance(answer, InternalResponse):
        raise TypeError("internal calls answer raw")
    return answer


class _Auth:
    """``await auth()`` gives the session (or ``None``); ``@auth.required`` protects views."""

    def __init__(self, owner: AuthUI):
        self._owner = owner

    async def __call__(self) -> dict[str, Any] | None:
        """The session of the current request, read once per request."""
        if "authui_session" not in g:
            path = f"{_state().base_path}/session"
            answer = await _internal(path)
            _keep_cookies(answer.cookies)
            g.authui_session = answer.body if isinstance(answer.body, dict) else None
        session: dict[str, Any] | None = g.authui_session
        return session

    def required(self, view: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R | Response]]:
        """Let only signed-in (and ``authorized``) users through.

        HTML requests are sent to the sign-in page with a ``callbackUrl`` back to this
        page; JSON requests get ``401``. With ``callbacks.authorized`` set, its answer
        decides: true lets the request through, false refuses, a response is returned.
        """

        @functools.wraps(view)
        async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R | Response:
            session = await self()
            config = await current_config()
            check = config.callbacks.authorized
            verdict: Any = bool(session and session.get("user"))
            if check is not None:
                verdict = await invoke(check, auth=session, request=request)
            if isinstance(verdict, Response):
                return verdict
            if not verdict:
                return _refuse(config)
            return await view(*args, **kwargs)

        return wrapper


def _redirect(location: str) -> Response:
    return Response("", status=302, headers={"Location": location})


def _wants_json() -> bool:
    accept = request.headers.get("Accept", "")
    return request.is_json or ("application/json" in accept and "text/html" not in accept)


def _refuse(config: AuthConfig) -> Response:
    if _wants_json():
        return Response(
            json.dumps({"message": translate("Sign in to access this resource.")}),
            status=401,
            content_type="application/json",
            headers={"WWW-Authenticate": 'Bearer realm="authui"'},
        )
    target = request.full_path.rstrip("?") if request.query_string else request.path
    page = config.pages.sign_in or f"{_state().base_path}/signin"
    separator = "&" if "?" in page else "?"
    return _redirect(f"{page}{separator}{urlencode({'callbackUrl': target})}")


class AuthUI:
    """authui for a Quart app.

    Args:
        app: The app; or call :meth:`init_app` later.
        config: An ``AuthConfig``, or a function of the request returning one (sync or
            async; return the same object for the same tenant, as each new object is
            resolved anew).
        base_path: Where the routes live; defaults to the config's ``base_path`` (or
            ``/auth``). Required knowledge for a lazy config, whose base path cannot be
            read before the first request.

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
    ):
        self._config = config
        self._base_path = base_path
        self.auth = _Auth(self)
        if app is not None:
            self.init_app(app)

    def init_app(self, app: Quart) -> None:
        """Register the blueprint, the request hooks and the template globals on ``app``.

        A static configuration is checked here: a broken one (say, no secret outside
        development mode) stops the app at start-up.
        """
        if self._config is None:
            raise TypeError("AuthUI needs a config: AuthUI(app, config)")
        base_path = self._base_path
        if base_path is None and isinstance(self._config, AuthConfig):
            base_path = set_env_defaults(os.environ, self._config).base_path
        base_path = "/" + (base_path or DEFAULT_BASE_PATH).strip("/")
        template_dir = (
            str(Path(app.root_path) / app.template_folder) if app.template_folder else None
        )
        state = _AppState(self._config, base_path, template_dir)
        app.extensions[EXTENSION] = state
        if isinstance(self._config, AuthConfig):
            validate_config(state.prepare(self._config))
        app.register_blueprint(self._blueprint(base_path))
        app.after_request(_apply_cookies)
        app.context_processor(self._template_context)
        app.add_template_global(sign_in_macro, "SignIn")
        app.add_template_global(sign_out_macro, "SignOut")
        app.add_template_global(stylesheets, "authui_stylesheets")

    def _blueprint(self, base_path: str) -> Blueprint:
        blueprint = Blueprint("authui", __name__, url_prefix=base_path)

        async def handle(rest: str = "") -> Response:
            answer = await Auth(await core_request(), await current_config())
            if not isinstance(answer, CoreResponse):
                raise TypeError("the app's config must not set raw")
            return quart_response(answer)

        blueprint.add_url_rule("/", "index", handle, methods=ALL_METHODS)
        blueprint.add_url_rule("/<path:rest>", "handle", handle, methods=ALL_METHODS)
        return blueprint

    async def _template_context(self) -> dict[str, Any]:
        if request.blueprint == "authui":
            return {}
        session = await self.auth()
        return {"auth": session, "user": (session or {}).get("user")}

    async def sign_in(
        self, provider: str | None = None, *, redirect_to: str | None = None, **params: str
    ) -> Response:
        """Start a sign-in from a view: a redirect response to return.

        Without a provider, the sign-in page. For credentials, ``params`` are the fields
        (a refused sign-in raises ``CredentialsSignin``); for other providers they are
        added to the authorization request (``prompt=…``, ``login_hint=…``).

        Raises:
            AuthError: The sign-in failed (e.g. ``CredentialsSignin``).
        """
        state = _state()
        callback_url = redirect_to or request.headers.get("Referer") or "/"
        if provider is None:
            query = urlencode({"callbackUrl": callback_url})
            return _redirect(f"{state.base_path}/signin?{query}")
        config = await current_config()
        options = resolve(config)
        target = options.provider(provider)
        if isinstance(target, Credentials):
            path, body = f"{state.base_path}/callback/{provider}", {**params}
        else:
            path = f"{state.base_path}/signin/{provider}"
            path += f"?{urlencode(params)}" if params else ""
            body = {}
        answer = await _internal(path, {**body, "callbackUrl": callback_url})
        return _as_redirect(answer)

    async def sign_out(self, *, redirect_to: str | None = None) -> Response:
        """End the session from a view: a redirect response to return."""
        callback_url = redirect_to or request.headers.get("Referer") or "/"
        answer = await _internal(f"{_state().base_path}/signout", {"callbackUrl": callback_url})
        g.pop("authui_session", None)
        return _as_redirect(answer)

    async def update(self, data: Mapping[str, Any]) -> dict[str, Any] | None:
        """Update the session (``trigger="update"`` in the callbacks); returns the new one.

        The refreshed session cookie is set on the response of the current view.
        """
        answer = await _internal(f"{_state().base_path}/session", {"data": dict(data)})
        _keep_cookies(answer.cookies)
        session = answer.body if isinstance(answer.body, dict) else None
        g.authui_session = session
        return session


def _as_redirect(answer: InternalResponse) -> Response:
    response = quart_response(to_response(answer))
    if answer.redirect is None:
        raise AuthError(f"Expected a redirect, got status {answer.status}")
    return response


async def _apply_cookies(response: Response) -> Response:
    """Set the cookies a view's ``auth()``/``update()``/macros produced."""
    if request.blueprint != "authui":
        for header in g.get("authui_cookies", []):
            response.headers.add("Set-Cookie", header)
    return response


async def _csrf_token() -> str:
    """The CSRF token for forms in the app's own pages; issues the cookie when needed."""
    if "authui_csrf" in g:
        token: str = g.authui_csrf
        return token
    config = await current_config()
    options: Options = resolve(config)
    cookies = options.cookies(request.url)
    state = create_csrf_state(
        cookie_value=request.cookies.get(cookies.csrf_token.name),
        body_token=None,
        is_post=False,
        keys=options.keys,
    )
    if state.cookie_value is not None:
        option = cookies.csrf_token
        _keep_cookies([Cookie(option.name, state.cookie_value, option.options)])
    g.authui_csrf = state.token
    return state.token


def _same_origin_path(url: str | None) -> str:
    """A redirect target for macros: the given path, or the current page."""
    if url and url.startswith("/") and not url.startswith("//"):
        return url
    if url:
        parts = urlsplit(url)
        if parts.netloc == request.host:
            return url
    return request.full_path.rstrip("?") if request.query_string else request.path


async def sign_in_macro(
    provider: str | None = None,
    sign_in_page: str | None = None,
    redirect_to: str | None = None,
    label: str | None = None,
) -> Markup:
    """``{{ SignIn() }}``: a sign-in button for app templates.

    With a provider that starts from a button (OAuth, email), a form posting to it with
    the CSRF token; otherwise a link to the sign-in page. Quart renders templates
    asynchronously, so the call needs no ``await`` in the template.
    """
    state = _state()
    config = await current_config()
    options = resolve(config)
    callback_url = _same_origin_path(redirect_to)
    context: dict[str, Any] = {"callback_url": callback_url, "csrf_token": await _csrf_token()}
    target = options.providers.get(provider) if provider else None
    if target is None or isinstance(target, Credentials):
        page = sign_in_page or config.pages.sign_in or f"{state.base_path}/signin"
        separator = "&" if "?" in page else "?"
        context.update(
            action=None, href=f"{page}{separator}{urlencode({'callbackUrl': callback_url})}"
        )
        context["label"] = label or translate("Sign in")
    else:
        context.update(action=f"{state.base_path}/signin/{target.id}", href=None)
        context["label"] = label or translate("Sign in with {name}", name=target.name)
    return options.renderer.snippet("snippets/sign_in.html", **context)


async def sign_out_macro(
    sign_out_page: str | None = None, redirect_to: str | None = None
) -> Markup:
    """``{{ SignOut() }}``: a sign-out button (a form with the CSRF token) for app templates."""
    state = _state()
    options = resolve(await current_config())
    context = {
        "action": sign_out_page or f"{state.base_path}/signout",
        "callback_url": _same_origin_path(redirect_to),
        "csrf_token": await _csrf_token(),
        "label": translate("Sign out"),
    }
    return options.renderer.snippet("snippets/sign_out.html", **context)


async def stylesheets() -> list[str]:
    """``{{ authui_stylesheets() }}``: URLs of the active theme pack's stylesheets, so the
    app's own pages can share the look of the auth pages."""
    return list(resolve(await current_config()).renderer.stylesheets)
