"""What every integration keeps for one app, framework-free: its configuration source,
where the routes live, and the configuration the core runs with.

One app has one ``Integration`` and, for a static configuration, one configuration object
the core resolves once (``AuthConfig.resolved``: one renderer, one adapter, one set of
caches). The configuration is the one the app passed, unless the integration must adjust
it (a base path other than the configuration's, the app's own Jinja environment for page
overrides): then one adjusted copy per configuration object, made at its first use.
"""

from __future__ import annotations

import dataclasses
import os
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from jinja2 import Environment

from authui.config import AuthConfig
from authui.core import prepare
from authui.env import DEFAULT_BASE_PATH, set_env_defaults
from authui.errors import AuthError
from authui.options import aclose, resolve

ConfigSource = AuthConfig | Callable[[Any], AuthConfig | Awaitable[AuthConfig]]
"""A configuration, or a function of the request returning one (sync or async)."""

REBUILT_AFTER = 10
"""How many configurations a lazy source may return and drop (made for one request, then
gone) before the ``config-rebuilt`` warning: an app that keeps one object per tenant drops
none, however many tenants it has."""


def base_path_for(source: ConfigSource, base_path: str | None = None) -> str:
    """The base path an integration serves: ``base_path`` if given, else the static
    configuration's (``AUTH_URL``'s path included), else ``/auth``."""
    if base_path is None and isinstance(source, AuthConfig):
        return _own_base_path(source)
    return "/" + (base_path or DEFAULT_BASE_PATH).strip("/")


def _own_base_path(config: AuthConfig) -> str:
    """The base path ``config`` resolves to (without resolving it when it is not yet)."""
    if config.resolved is not None:
        return resolve(config).base_path
    completed = set_env_defaults(os.environ, config, suppress_base_path_warning=True)
    return "/" + (completed.base_path or DEFAULT_BASE_PATH).strip("/")


@dataclass(eq=False)
class Integration:
    """One app's configuration source, served at one base path.

    Args:
        source: The configuration, or a function of the request returning one.
        base_path: Where the routes live, e.g. ``/auth``.
        templates: The app's own Jinja environment: its templates ``authui/<page>.html``
            replace the pack's, with the app's filters and globals (Quart's).
    """

    source: ConfigSource
    base_path: str
    templates: Environment | None = None
    _adjusted: weakref.WeakKeyDictionary[AuthConfig, AuthConfig] = field(
        default_factory=weakref.WeakKeyDictionary, repr=False
    )
    _served: weakref.WeakSet[AuthConfig] = field(default_factory=weakref.WeakSet, repr=False)
    _made: int = field(default=0, repr=False)
    """How many distinct configuration objects a lazy source has returned."""

    @property
    def static(self) -> AuthConfig | None:
        """The configuration the core runs with, when it does not depend on the request."""
        source = self.source
        return self.prepare(source) if isinstance(source, AuthConfig) else None

    async def config_for(self, request: Any) -> AuthConfig:
        """The configuration for ``request`` (a lazy source is called with it)."""
        source = self.source
        if isinstance(source, AuthConfig):
            return self.prepare(source)
        result = source(request)
        config = self.prepare(await result if isinstance(result, Awaitable) else result)
        if config not in self._served:
            self._served.add(config)
            self._made += 1
            if self._made - len(self._served) >= REBUILT_AFTER:
                resolve(config).logger.warn("config-rebuilt")
        return config

    def prepare(self, config: AuthConfig) -> AuthConfig:
        """``config`` itself, or its copy with this base path and the app's templates."""
        if self.templates is None and _own_base_path(config) == self.base_path:
            return config
        adjusted = self._adjusted.get(config)
        if adjusted is None:
            theme = config.theme
            if self.templates is not None:
                theme = dataclasses.replace(theme, environment=self.templates)
            adjusted = dataclasses.replace(config, base_path=self.base_path, theme=theme)
            self._adjusted[config] = adjusted
        return adjusted

    async def start(self) -> None:
        """At the app's start: let a static configuration's adapter learn its data store
        (``authui.options.ready``), so that what it lacks is logged before the first
        request. A failure (the database is down) is logged, and the first request tries
        again."""
        static = self.static
        if static is None:
            return
        try:
            await prepare(static)
        except AuthError as error:
            resolve(static).logger.error(error)

    async def aclose(self) -> None:
        """Close the adapters authui made from database URLs for this app's
        configurations."""
        static = self.static
        for config in [static] if static is not None else list(self._served):
            await aclose(config)
