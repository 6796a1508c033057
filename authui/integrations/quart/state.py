"""Per-app and per-request state of the Quart integration, and the core calls."""

from __future__ import annotations

import dataclasses
import json
import os
import weakref
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from quart import Response, current_app, g, request

from authui.config import AuthConfig, raw, skip_csrf_check
from authui.cookies import Cookie
from authui.core import Auth
from authui.env import set_env_defaults
from authui.errors import AuthError
from authui.http import InternalResponse
from authui.http import Request as CoreRequest
from authui.http import Response as CoreResponse
from authui.logger import Logger, StandardLogger, WarningCode
from authui.options import resolve

ConfigSource = AuthConfig | Callable[[Any], AuthConfig | Awaitable[AuthConfig]]
"""A configuration, or a function of the request returning one (sync or async)."""

EXTENSION = "authui"


@dataclass
class AppState:
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
        """The config for server-side calls: raw answers, no CSRF (the app itself is the
        caller), and no repeat of the configuration warnings already logged for ``config``."""
        internal = self.internal.get(config)
        if internal is None:
            internal = dataclasses.replace(
                config,
                raw=raw,
                skip_csrf_check=skip_csrf_check,
                logger=WithoutWarnings(config.logger or StandardLogger()),
            )
            self.internal[config] = internal
        return internal


@dataclass(frozen=True, slots=True)
class WithoutWarnings:
    """A logger passing on errors and debug messages but not configuration warnings."""

    inner: Logger

    def error(self, error: AuthError) -> None:
        self.inner.error(error)

    def warn(self, code: WarningCode) -> None:
        return None

    def debug(self, message: str, metadata: Any = None) -> None:
        self.inner.debug(message, metadata)


def session_cookies(answer: InternalResponse, config: AuthConfig) -> list[Cookie]:
    """The session cookies of an internal answer (not the callback-url cookie the core
    sets for every request it sees)."""
    name = resolve(config).cookies(request.url).session_token.name
    return [c for c in answer.cookies if c.name.startswith(name)]


def app_state() -> AppState:
    """The integration's state for the current app."""
    state: AppState = current_app.extensions[EXTENSION]
    return state


async def current_config() -> AuthConfig:
    """The configuration for the current request (lazy configurations are called here)."""
    state = app_state()
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
        client=request.remote_addr,
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


def keep_cookies(cookies: list[Cookie] | list[str]) -> None:
    """Remember cookies to set on whatever response the current view returns."""
    pending = _pending_cookies()
    pending.extend(c if isinstance(c, str) else c.serialize() for c in cookies)


async def call_core(path: str, body: Mapping[str, Any] | None = None) -> InternalResponse:
    """Call the core on behalf of the app (raw, no CSRF), with the browser's cookies."""
    config = app_state().internal_config(await current_config())
    method = "GET" if body is None else "POST"
    data = json.dumps(body).encode() if body is not None else b""
    headers = [(k, v) for k, v in request.headers.items() if k.lower() in ("cookie", "host")]
    headers.append(("Content-Type", "application/json"))
    core = CoreRequest.build(
        method,
        request.host_url.rstrip("/") + path,
        headers=headers,
        body=data,
        client=request.remote_addr,
    )
    answer = await Auth(core, config)
    if not isinstance(answer, InternalResponse):
        raise TypeError("internal calls answer raw")
    return answer
