"""Which ``Integration`` serves a configuration, and what one request knows of it.

``AuthApp``, ``handlers``, ``AuthMiddleware`` and ``get_session`` given the same
configuration object share one ``Integration`` (one base path, one prepared configuration).
``AuthMiddleware`` puts a ``RequestAuth`` in each request's scope: the prepared
configuration, the session once read, and the cookies to add to the response.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import HTTPConnection
from starlette.types import Scope

from authui.config import AuthConfig
from authui.cookies import Cookie
from authui.integrations.asgi import client_host, text_headers
from authui.integrations.calls import Caller
from authui.integrations.starlette.requests import url_of
from authui.integrations.state import ConfigSource, Integration, base_path_for
from authui.options import validate_config

SCOPE_KEY = "authui"
"""The scope entry holding the request's ``RequestAuth``."""

_INTEGRATIONS: weakref.WeakKeyDictionary[Any, Integration] = weakref.WeakKeyDictionary()
_EXPLICIT: weakref.WeakSet[Integration] = weakref.WeakSet()
"""Integrations whose base path was given, not defaulted."""


def integration_for(source: ConfigSource, base_path: str | None = None) -> Integration:
    """The integration serving ``source``, made (and a static configuration checked) on
    first use. A base path given here replaces a defaulted one (``AuthMiddleware`` built
    before ``AuthApp(config, base_path=…)``).

    Raises:
        ValueError: ``source`` is already served at another given base path.
        AuthError: The configuration is broken (say, no secret outside development mode).
    """
    path = base_path_for(source, base_path)
    integration = _INTEGRATIONS.get(source)
    if integration is not None and (base_path is None or path == integration.base_path):
        if base_path is not None:
            _EXPLICIT.add(integration)
        return integration
    if integration is None:
        integration = Integration(source, path)
    elif integration in _EXPLICIT:
        raise ValueError(
            f"this configuration is already served at {integration.base_path!r};"
            f" one configuration object has one base path, not also {path!r}"
        )
    else:
        integration.base_path = path
        integration.prepared.clear()
        integration.internal.clear()
    if isinstance(source, AuthConfig):
        validate_config(integration.prepare(source))
    _INTEGRATIONS[source] = integration
    if base_path is not None:
        _EXPLICIT.add(integration)
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
