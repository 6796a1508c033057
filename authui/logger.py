"""Logging: the ``error``/``warn``/``debug`` levels of Auth.js over Python's ``logging``.

The default logger writes to the ``authui`` logger. Give ``AuthConfig(logger=…)`` any object
with the three methods of ``Logger`` to send messages elsewhere. Secrets never reach a
logger: callers pass error objects and codes, not tokens or cookie values.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from authui.errors import AuthError

WarningCode = Literal[
    "debug-enabled",
    "csrf-disabled",
    "env-url-basepath-redundant",
    "env-url-basepath-mismatch",
    "experimental-webauthn",
    "dev-secret-generated",
    "weak-secret",
    "console-email",
]

WARNING_TEXT: dict[str, str] = {
    "debug-enabled": "Debug logging is on. Turn it off in production: it logs user data.",
    "csrf-disabled": "CSRF checks are off (skip_csrf_check). Only framework integrations that "
    "check CSRF themselves may do this.",
    "env-url-basepath-redundant": "AUTH_URL has a path and base_path is set too; base_path wins.",
    "env-url-basepath-mismatch": "The path of AUTH_URL differs from base_path.",
    "experimental-webauthn": "WebAuthn support is experimental and may change.",
    "dev-secret-generated": "DEVELOPMENT MODE: no AUTH_SECRET is set, so a random secret was made "
    "up for this process. Sessions end when the process restarts and are not shared with other "
    "processes. Run `authui secret` and set AUTH_SECRET before deploying.",
    "weak-secret": "A secret is shorter than 32 characters. Run `authui secret` for a strong one.",
    "console-email": "An email provider prints its sign-in links on the console instead of "
    "sending them (ConsoleEmail), outside development mode: whoever reads the output can sign "
    "in as anyone. Use a real sender.",
}


class Logger(Protocol):
    """What authui needs from a logger."""

    def error(self, error: AuthError) -> None:
        """Log an error; ``error.cause`` may hold the original exception under ``"err"``."""

    def warn(self, code: WarningCode) -> None:
        """Log a warning about the configuration."""

    def debug(self, message: str, metadata: Any = None) -> None:
        """Log a debug message; only called when ``AuthConfig.debug`` is true."""


@dataclass(frozen=True, slots=True)
class StandardLogger:
    """The default logger: writes to ``logging.getLogger("authui")``."""

    name: str = "authui"

    def error(self, error: AuthError) -> None:
        log = logging.getLogger(self.name)
        original = error.cause.get("err")
        details = {k: v for k, v in error.cause.items() if k != "err"}
        exc_info = original if isinstance(original, BaseException) else None
        log.error("[auth][error] %s: %s", error.type, error, exc_info=exc_info)
        if details:
            log.error("[auth][details]: %s", json.dumps(details, default=str))

    def warn(self, code: WarningCode) -> None:
        logging.getLogger(self.name).warning(
            "[auth][warn][%s] %s", code, WARNING_TEXT.get(code, "")
        )

    def debug(self, message: str, metadata: Any = None) -> None:
        logging.getLogger(self.name).debug(
            "[auth][debug]: %s %s", message, json.dumps(metadata, default=str)
        )


@dataclass(frozen=True, slots=True)
class FilteredLogger:
    """Drops debug messages unless debug logging is on."""

    inner: Logger
    debug_enabled: bool

    def error(self, error: AuthError) -> None:
        self.inner.error(error)

    def warn(self, code: WarningCode) -> None:
        self.inner.warn(code)

    def debug(self, message: str, metadata: Any = None) -> None:
        if self.debug_enabled:
            self.inner.debug(message, metadata)
