"""authui's routes answered before Quart's routing, when nothing of the app's would run
around them.

Going through Quart (the request context, the blueprint's dispatch, werkzeug's response)
costs a Quart app about twice what the auth route itself costs. When the app has nothing
to run for a request (no request hooks or signal receivers besides authui's own, a
configuration object rather than a function of the request) and the request is plain
(its URL read off the scope), the answer is the same either way, so ``DirectConnection``
gives it straight from the core. Every other request, the app's own routes included, goes
through Quart as usual, except one with an invalid ``Host``: Quart would answer it with 500,
so it is answered with 400 here, whatever its path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypercorn.typing import ASGIReceiveCallable, ASGISendCallable
from quart import Quart, signals
from quart.asgi import ASGIHTTPConnection

from authui.config import AuthConfig
from authui.errors import InvalidHost
from authui.http import Response
from authui.integrations.asgi import (
    answer_scope,
    host_error,
    invalid_host_response,
    is_own_route,
    plain_url,
    raw_url,
    send_response,
)
from authui.integrations.quart.state import BLUEPRINT, EXTENSION, apply_cookies
from authui.integrations.state import Integration

_REQUEST_SIGNALS = (
    signals.request_started,
    signals.request_finished,
    signals.request_tearing_down,
    signals.got_request_exception,
    signals.appcontext_pushed,
    signals.appcontext_popped,
    signals.appcontext_tearing_down,
)
"""The signals Quart sends around a request; a receiver of any of them means the app
wants to see every request."""


class DirectConnection(ASGIHTTPConnection):
    """Quart's HTTP connection handler, answering authui's own routes itself when going
    through Quart would run nothing of the app's (``AuthUI`` installs it as the app's
    ``asgi_http_class`` when the app has Quart's default one)."""

    async def __call__(self, receive: ASGIReceiveCallable, send: ASGISendCallable) -> None:
        error = host_error(self.scope)
        if error is not None:
            await send_response(send, await _refusal(self.app, self.scope, receive, error))
            return
        direct = _direct(self.app, self.scope)
        if direct is None:
            await super().__call__(receive, send)
            return
        config, url = direct
        await send_response(send, await answer_scope(self.scope, receive, url, config))


async def _refusal(
    app: Quart, scope: Mapping[str, Any], receive: ASGIReceiveCallable, error: InvalidHost
) -> Response:
    """The answer to a request with an invalid ``Host``, whatever its path: Quart would
    answer it with 500 (werkzeug's IDNA encoding fails on a label of 64 characters or an
    empty one) or with an empty host. The core's 400 (a page or JSON) for a static
    configuration, else a JSON 400."""
    state = app.extensions.get(EXTENSION)
    if isinstance(state, Integration) and isinstance(state.source, AuthConfig):
        return await answer_scope(scope, receive, raw_url(scope), state.prepare(state.source))
    return invalid_host_response(error)


def _direct(app: Quart, scope: Mapping[str, Any]) -> tuple[AuthConfig, str] | None:
    """The configuration and URL to answer ``scope`` with, directly; ``None`` when the
    request must go through Quart."""
    state = app.extensions.get(EXTENSION)
    if (
        not isinstance(state, Integration)
        or not is_own_route(scope["path"], state.base_path)
        or not isinstance(state.source, AuthConfig)
        or scope.get("root_path")
        or _app_sees_requests(app)
    ):
        return None
    url = plain_url(scope)
    return None if url is None else (state.prepare(state.source), url)


def _app_sees_requests(app: Quart) -> bool:
    """Whether the app has something of its own to run around a request to the auth
    routes: request hooks (the app's or on authui's blueprint) other than authui's cookie
    hook, URL preprocessors, app-context teardowns, receivers of the request signals, or
    routing by host name."""
    keys = (None, BLUEPRINT)
    tables = (app.before_request_funcs, app.teardown_request_funcs, app.url_value_preprocessors)
    if any(table.get(key) for table in tables for key in keys):
        return True
    after = [f for key in keys for f in app.after_request_funcs.get(key, ())]
    if any(f is not apply_cookies for f in after) or app.teardown_appcontext_funcs:
        return True
    if app.url_map.host_matching or app.config.get("SERVER_NAME"):
        return True
    return any(signal.receivers for signal in _REQUEST_SIGNALS)
