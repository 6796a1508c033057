"""``AuthUI``: the Quart extension, ``auth()`` and ``@auth.required``."""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from quart import Blueprint, Quart, Response, g, request
from quart.asgi import ASGIHTTPConnection

from authui.callbacks import invoke
from authui.config import AuthConfig
from authui.core import Auth
from authui.http import Response as CoreResponse
from authui.http import wants_page
from authui.integrations import guard
from authui.integrations.quart.direct import DirectConnection
from authui.integrations.quart.state import (
    BLUEPRINT,
    EXTENSION,
    app_state,
    apply_cookies,
    caller,
    core_request,
    current_config,
    keep_cookies,
    quart_response,
)
from authui.integrations.quart.templates import (
    sign_in_macro,
    sign_out_macro,
    static_url,
    stylesheets,
)
from authui.integrations.state import ConfigSource, Integration, base_path_for
from authui.options import validate_config

P = ParamSpec("P")
R = TypeVar("R")
ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


class _Auth:
    """``await auth()`` gives the session (or ``None``); ``@auth.required`` protects views."""

    async def __call__(self) -> dict[str, Any] | None:
        """The session of the current request, read once per request."""
        store = g._get_current_object()  # one context lookup, not one per access
        if "authui_session" not in store:
            store.authui_session, cookies = await (await caller()).session()
            keep_cookies(cookies)
        session: dict[str, Any] | None = store.authui_session
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
            config = (await caller()).config
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


def _refuse(config: AuthConfig) -> Response:
    if not wants_page(request.headers.get("Accept"), request.content_type):
        return Response(
            json.dumps({"message": guard.unauthorized_message()}),
            status=401,
            content_type="application/json",
            headers=dict([guard.CHALLENGE]),
        )
    target = request.full_path.rstrip("?") if request.query_string else request.path
    return _redirect(guard.sign_in_location(config, app_state().base_path, target))


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
        self.auth = _Auth()
        if app is not None:
            self.init_app(app)

    def init_app(self, app: Quart) -> None:
        """Register the blueprint, the request hooks and the template globals on ``app``.

        A static configuration is checked here: a broken one (say, no secret outside
        development mode) stops the app at start-up.
        """
        if self._config is None:
            raise TypeError("AuthUI needs a config: AuthUI(app, config)")
        base_path = base_path_for(self._config, self._base_path)
        template_dir = (
            str(Path(app.root_path) / app.template_folder) if app.template_folder else None
        )
        state = Integration(self._config, base_path, template_dir)
        app.extensions[EXTENSION] = state
        if isinstance(self._config, AuthConfig):
            validate_config(state.prepare(self._config))
        app.register_blueprint(self._blueprint(base_path))
        if app.asgi_http_class is ASGIHTTPConnection:
            app.asgi_http_class = DirectConnection
        app.after_request(apply_cookies)
        app.after_serving(state.aclose)
        app.context_processor(self._template_context)
        app.add_template_global(sign_in_macro, "SignIn")
        app.add_template_global(sign_out_macro, "SignOut")
        app.add_template_global(stylesheets, "authui_stylesheets")
        app.add_template_global(static_url, "authui_static")

    def _blueprint(self, base_path: str) -> Blueprint:
        blueprint = Blueprint(BLUEPRINT, __name__, url_prefix=base_path)

        async def handle(rest: str = "") -> Response:
            answer = await Auth(await core_request(), await current_config())
            if not isinstance(answer, CoreResponse):
                raise TypeError("the app's config must not set raw")
            return quart_response(answer)

        blueprint.add_url_rule("/", "index", handle, methods=ALL_METHODS)
        blueprint.add_url_rule("/<path:rest>", "handle", handle, methods=ALL_METHODS)
        return blueprint

    async def _template_context(self) -> dict[str, Any]:
        if request.blueprint == BLUEPRINT:
            return {}
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
        return quart_response(await (await caller()).sign_in(provider, redirect_to, params))

    async def sign_out(self, *, redirect_to: str | None = None) -> Response:
        """End the session from a view: a redirect response to return."""
        answer = await (await caller()).sign_out(redirect_to)
        g.pop("authui_session", None)
        return quart_response(answer)

    async def update(self, data: Mapping[str, Any]) -> dict[str, Any] | None:
        """Update the session (``trigger="update"`` in the callbacks); returns the new one.

        The refreshed session cookie is set on the response of the current view.
        """
        g.authui_session, cookies = await (await caller()).update(data)
        keep_cookies(cookies)
        session: dict[str, Any] | None = g.authui_session
        return session
