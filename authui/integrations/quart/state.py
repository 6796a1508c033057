"""Per-app and per-request state of the Quart integration, and the core calls."""

from __future__ import annotations

from quart import Response, current_app, g, request

from authui.config import AuthConfig
from authui.cookies import Cookie
from authui.http import Request as CoreRequest
from authui.http import Response as CoreResponse
from authui.integrations.asgi import plain_url, text_headers
from authui.integrations.calls import Caller
from authui.integrations.state import Integration

EXTENSION = "authui"
"""The integration's key in ``app.extensions``."""
BLUEPRINT = "authui"
"""The name of the blueprint holding the auth routes."""


def app_state() -> Integration:
    """The integration's state for the current app (``app.extensions["authui"]``)."""
    state: Integration = current_app.extensions[EXTENSION]
    return state


async def current_config() -> AuthConfig:
    """The configuration for the current request (lazy configurations are called here)."""
    return await app_state().config_for(request)


def _url_and_headers() -> tuple[str, list[tuple[str, str]]]:
    """The current request's absolute URL and headers: read off the ASGI scope for a
    plain request (the common case, and much cheaper), else as Quart gives them."""
    url = plain_url(request.scope)
    if url is not None:
        return url, text_headers(request.scope)
    return request.url, list(request.headers.items())


async def core_request() -> CoreRequest:
    """The current request as an authui request; only a POST's body is read (the core
    reads no other)."""
    method = request.method
    url, headers = _url_and_headers()
    return CoreRequest.build(
        method,
        url,
        headers=headers,
        body=await request.get_data() if method == "POST" else b"",
        client=request.remote_addr,
    )


def quart_response(response: CoreResponse) -> Response:
    """An authui response as a Quart response (every ``Set-Cookie`` kept)."""
    result = Response(response.body, status=response.status)
    result.headers.pop("Content-Type", None)
    for name, value in response.headers:
        result.headers.add(name, value)
    return result


def keep_cookies(cookies: list[Cookie]) -> None:
    """Remember cookies to set on whatever response the current view returns."""
    if cookies:
        g.setdefault("authui_cookies", []).extend(c.serialize() for c in cookies)


async def caller() -> Caller:
    """The current request, for calls into the core on the app's behalf (made once per
    request)."""
    store = g._get_current_object()
    found: Caller | None = store.get("authui_caller")
    if found is None:
        url, headers = _url_and_headers()
        found = Caller(app_state(), await current_config(), url, headers, request.remote_addr)
        store.authui_caller = found
    return found


async def apply_cookies(response: Response) -> Response:
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
