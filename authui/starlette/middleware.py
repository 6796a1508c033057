"""``AuthMiddleware``: the auth routes, the session as ``request.state.auth``, and
protected paths."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette.requests import HTTPConnection, Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from authui.callbacks import invoke
from authui.http import Response, wants_page
from authui.integrations import guard
from authui.integrations.asgi import AuthRoutes, plain_url, raw_headers, send_response
from authui.integrations.state import ConfigSource, Integration
from authui.starlette.requests import url_of
from authui.starlette.state import SCOPE_KEY, RequestAuth, integration_for


class AuthMiddleware:
    """Pure ASGI middleware: reads each request's session once, makes it
    ``request.state.auth``, guards the ``protect`` prefixes, and sets the cookies authui
    produced during the request (a rolling session's, the forms' CSRF cookie).

    It answers authui's own routes under the base path itself (``<base>/session``,
    ``/csrf``, ``/signin``, ``/callback/…``, the pages and their static files), as a
    mounted ``AuthApp`` would, without the app's router: with the middleware in place,
    mounting ``AuthApp`` is not needed (and does no harm). Other paths under the base
    path, and WebSockets, go on to the app.

    For a path under ``protect``: with ``callbacks.authorized`` set its answer decides
    (``authorized(auth=session, request=request)``: true lets the request through, false
    refuses, a Starlette response is sent as it is); without it, a signed-in user is
    needed. Refused browsers go to the sign-in page with a ``callbackUrl`` back; other
    callers get ``401`` JSON; a WebSocket is closed with code 1008.

    A request whose ``Host`` header is not a valid host (an empty label, a label of 64
    characters, a bad port, non-ASCII) is answered with 400 whatever its path, a WebSocket
    closed with 1008.

    At shutdown (the ASGI lifespan) it closes the adapters authui made from database URLs.

    Args:
        app: The app to wrap.
        config: An ``AuthConfig``, or a function of the request returning one; pass the
            same object as to ``AuthApp``.
        protect: Path prefixes that need a signed-in (or ``authorized``) user, as the
            app's routes see them (without a ``--root-path`` prefix).
        base_path: The auth routes' base path, if not the configuration's.
    """

    def __init__(
        self,
        app: ASGIApp,
        config: ConfigSource,
        *,
        protect: Sequence[str] = (),
        base_path: str | None = None,
    ):
        self.app = app
        self.integration: Integration = integration_for(config, base_path)
        self.protect = tuple("/" + p.strip("/") for p in protect)
        self._routes = AuthRoutes(
            self._with_session,
            self.integration,
            answer_routes=True,
            connection=HTTPConnection,
            url=_url_of_scope,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, self._closing(send))
            return
        await self._routes(scope, receive, send)

    async def _with_session(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A request ``AuthRoutes`` did not answer: the session read, the path guarded."""
        if scope["type"] not in ("http", "websocket") or self._is_auth_route(scope["path"]):
            await self.app(scope, receive, send)
            return
        connection = HTTPConnection(scope)
        here = RequestAuth(self.integration, await self.integration.config_for(connection))
        scope[SCOPE_KEY] = here
        session = await here.load(connection)
        connection.state.auth = session
        if self._is_protected(_route_path(scope)) and not await self._let_in(
            connection, session, scope, receive, send
        ):
            return
        await self.app(scope, receive, _with_cookies(send, here))

    def _is_auth_route(self, path: str) -> bool:
        base = self.integration.base_path
        return path == base or path.startswith(base + "/")

    def _is_protected(self, path: str) -> bool:
        return any(path == p or path.startswith(p.rstrip("/") + "/") for p in self.protect)

    async def _let_in(
        self,
        connection: HTTPConnection,
        session: dict[str, Any] | None,
        scope: Scope,
        receive: Receive,
        send: Send,
    ) -> bool:
        """Whether the request may go on; if not, the refusal is sent."""
        here = RequestAuth.of(scope)
        assert here is not None
        check = here.config.callbacks.authorized
        verdict: Any = bool(session and session.get("user"))
        if check is not None:
            request = Request(scope, receive) if scope["type"] == "http" else connection
            verdict = await invoke(check, auth=session, request=request)
        if callable(verdict):  # a response of the app's own
            await verdict(scope, receive, _with_cookies(send, here))
            return False
        if verdict:
            return True
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
        else:
            await self._refuse(connection, here, send)
        return False

    async def _refuse(self, connection: HTTPConnection, here: RequestAuth, send: Send) -> None:
        headers = connection.headers
        if wants_page(headers.get("accept"), headers.get("content-type")):
            query = connection.url.query
            target = connection.url.path + (f"?{query}" if query else "")
            location = guard.sign_in_location(here.config, self.integration.base_path, target)
            response = Response(302, [("Location", location)])
        else:
            message = {"message": guard.unauthorized_message()}
            response = Response.json(401, message, [guard.CHALLENGE])
        response.headers += [("Set-Cookie", c.serialize()) for c in here.cookies]
        await send_response(send, response)

    def _closing(self, send: Send) -> Send:
        """``send`` for the lifespan: the adapter learns its data store before start-up
        completes (``Integration.start``), and closes before shutdown completes."""

        async def closing_send(message: Message) -> None:
            if message["type"] == "lifespan.startup.complete":
                await self.integration.start()
            elif message["type"] == "lifespan.shutdown.complete":
                await self.integration.aclose()
            await send(message)

        return closing_send


def _url_of_scope(scope: Scope) -> str:
    """The request's absolute URL, as Starlette reconstructs it when it is not plain."""
    return plain_url(scope) or url_of(HTTPConnection(scope))


def _route_path(scope: Scope) -> str:
    """The path the app's routes see: without the server's ``root_path`` (a proxy's
    prefix), as Starlette routes it."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root):
        return path[len(root) :] or "/"
    return path


def _with_cookies(send: Send, here: RequestAuth) -> Send:
    """``send`` adding the request's pending cookies to the response's headers; a cookie
    the response sets itself (say, ``sign_out``'s deletion of the session) wins."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start" and here.cookies:
            headers = [*message.get("headers", [])]
            own = {
                value.split(b"=", 1)[0].strip().decode("latin-1")
                for name, value in headers
                if name.lower() == b"set-cookie"
            }
            pending = [c for c in here.cookies if c.name not in own]
            headers += raw_headers([("Set-Cookie", c.serialize()) for c in pending])
            here.cookies.clear()
            message = {**message, "headers": headers}
        await send(message)

    return sending
