"""What ``AuthApp``, ``handlers`` and ``AuthMiddleware`` hold for an app, and what one
request knows of it.

Each of them makes an ``Integration`` of the configuration it is given. Given the same
``AuthConfig`` object (and no other base path), they run the very same configuration, which
the core resolves once and keeps on the object: one renderer, one adapter, one set of
caches. ``AuthMiddleware`` puts a ``RequestAuth`` in each request's scope: the
configuration, the session once read, and the cookies to add to the response.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from starlette.requests import HTTPConnection
from starlette.types import Scope

from authui.config import AuthConfig
from authui.cookies import Cookie
from authui.integrations.asgi import client_host, text_headers
from authui.integrations.calls import Caller
from authui.integrations.state import ConfigSource, Integration, base_path_for
from authui.options import validate_config
from authui.starlette.requests import url_of

SCOPE_KEY = "authui"
"""The scope entry holding the request's ``RequestAuth``."""


def integration_for(source: ConfigSource, base_path: str | None = None) -> Integration:
    """An integration serving ``source`` at ``base_path`` (by default the configuration's);
    a static configuration is checked here.

    Raises:
        AuthError: The configuration is broken (say, no secret outside development mode).
    """
    integration = Integration(source, base_path_for(source, base_path))
    if integration.static is not None:
        validate_config(integration.static)
    return integration


@dataclass
class RequestAuth:
    """What ``AuthMiddleware`` knows about one request."""

    integration: Integration
    config: AuthConfig
    """The prepared configuration for this request."""
    session: dict[str, Any] | None = None
    loaded: bool = False
    """Whether ``session`` was read."""
    cookies: list[Cookie] = field(default_factory=list)
    """Cookies to set on the response (a rolling session's, the forms' CSRF cookie)."""
    csrf_token: str | None = None
    """The CSRF token of the forms the page's macros rendered."""

    def add_cookies(self, cookies: list[Cookie]) -> None:
        """Queue cookies for the response, replacing queued ones of the same name."""
        names = {c.name for c in cookies}
        self.cookies = [c for c in self.cookies if c.name not in names] + cookies

    @staticmethod
    def of(scope: Scope) -> RequestAuth | None:
        """The request's ``RequestAuth``, when ``AuthMiddleware`` runs."""
        found = scope.get(SCOPE_KEY)
        return found if isinstance(found, RequestAuth) else None

    async def load(self, connection: HTTPConnection) -> dict[str, Any] | None:
        """Read the session once; its refreshed cookies go on the response."""
        if not self.loaded:
            self.session, cookies = await caller(
                self.integration, self.config, connection
            ).session()
            self.add_cookies(cookies)
            self.loaded = True
        return self.session


def caller(integration: Integration, config: AuthConfig, connection: HTTPConnection) -> Caller:
    """A connection, for calls into the core on the app's behalf."""
    return Caller(
        integration,
        config,
        url_of(connection),
        text_headers(connection.scope),
        client_host(connection.scope),
    )


def need_middleware(what: str) -> RuntimeError:
    """The error for a helper that needs ``AuthMiddleware`` and runs without it."""
    return RuntimeError(
        f"{what} needs authui's AuthMiddleware around the app:"
        " app.add_middleware(AuthMiddleware, config=config)"
    )
