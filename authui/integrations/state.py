"""What every integration keeps for one mounted configuration, framework-free.

An ``Integration`` knows where the routes live (the base path) and turns the application's
configuration (an ``AuthConfig``, or a function of the request returning one) into the
configuration the core runs with: environment defaults applied, the base path and template
folders set, each computed once per configuration object.
"""

from __future__ import annotations

import dataclasses
import os
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from authui.config import AuthConfig, raw, skip_csrf_check
from authui.env import DEFAULT_BASE_PATH, set_env_defaults
from authui.logger import FilteredLogger, StandardLogger
from authui.options import aclose

ConfigSource = AuthConfig | Callable[[Any], AuthConfig | Awaitable[AuthConfig]]
"""A configuration, or a function of the request returning one (sync or async)."""


def base_path_for(source: ConfigSource, base_path: str | None = None) -> str:
    """The base path an integration serves: ``base_path`` if given, else the static
    configuration's (``AUTH_URL``'s path included), else ``/auth``."""
    if base_path is None and isinstance(source, AuthConfig):
        base_path = set_env_defaults(os.environ, source).base_path
    return "/" + (base_path or DEFAULT_BASE_PATH).strip("/")


@dataclass(eq=False)
class Integration:
    """One configuration source served at one base path.

    Args:
        source: The configuration, or a function of the request returning one.
        base_path: Where the routes live, e.g. ``/auth``.
        template_dir: The application's template folder; its ``authui/…`` templates
            override the theme pack's.
    """

    source: ConfigSource
    base_path: str
    template_dir: str | None = None
    prepared: weakref.WeakKeyDictionary[AuthConfig, AuthConfig] = field(
        default_factory=weakref.WeakKeyDictionary
    )
    internal: weakref.WeakKeyDictionary[AuthConfig, AuthConfig] = field(
        default_factory=weakref.WeakKeyDictionary
    )

    async def config_for(self, request: Any) -> AuthConfig:
        """The prepared configuration for ``request`` (a lazy source is called with it)."""
        source = self.source
        if isinstance(source, AuthConfig):
            return self.prepare(source)
        result = source(request)
        config = await result if isinstance(result, Awaitable) else result
        return self.prepare(config)

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
        """The config for server-side calls: raw answers, no CSRF (the app itself is the
        caller), and no repeat of the configuration warnings already logged for ``config``."""
        internal = self.internal.get(config)
        if internal is None:
            internal = dataclasses.replace(
                config,
                raw=raw,
                skip_csrf_check=skip_csrf_check,
                logger=FilteredLogger(
                    config.logger or StandardLogger(), debug_enabled=True, warnings_enabled=False
                ),
            )
            self.internal[config] = internal
        return internal

    async def aclose(self) -> None:
        """Close the adapters authui made from database URLs for this integration."""
        for config in list(self.prepared.values()):
            await aclose(config)
