"""Logging: the ``error``/``warn``/``debug`` levels of Auth.js, and ``info``/``warning`` for
what happens to users (sign-in, sign-out, refused and throttled sign-ins), over Python's
``logging``.

The default logger writes to the ``authui`` logger. Give ``AuthConfig(logger=…)`` any object
with some of the methods of ``Logger`` to send messages elsewhere: each level it lacks goes
to the default logger. Secrets never reach a logger: callers pass error objects, codes,
provider and user ids and client addresses, not tokens, cookie values, passwords or emails.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
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
    "any-host-trusted",
    "config-rebuilt",
    "database-tables-missing",
]

WARNING_TEXT: dict[str, str] = {
    "debug-enabled": "Debug logging is on. Turn it off in production: it logs user data.",
    "csrf-disabled": "CSRF checks are off (skip_csrf_check). Only framework integrations that "
    "check CSRF themselves may do this.",
    "env-url-basepath-redundant": "AUTH_URL has a path and base_path is set too; base_path wins.",
    "env-url-basepath-mismatch": "The path of AUTH_URL differs from base_path.",
    "experimental-webauthn": "WebAuthn support is experimental and may change.",
    "dev-secret-generated": "DEVELOPMENT MODE: no AUTH_SECRET is set, so a random secret was made "
    "up for this process (one for every configuration it serves). Sessions end when the process "
    "restarts and are not shared with other processes. Run `authui secret` and set AUTH_SECRET "
    "before deploying.",
    "weak-secret": "A secret is shorter than 32 characters. Run `authui secret` for a strong one.",
    "console-email": "An email provider prints its sign-in links on the console instead of "
    "sending them (ConsoleEmail), outside development mode: whoever reads the output can sign "
    "in as anyone. Use a real sender.",
    "any-host-trusted": "trust_host is on with neither AUTH_URL nor AUTH_TRUSTED_HOSTS: links in "
    "emails and redirects are built from whatever Host the client sends, so anyone can have a "
    "sign-in link for your users point at their own server. Set AUTH_URL to the public URL, or "
    "list your hosts in AUTH_TRUSTED_HOSTS.",
    "database-tables-missing": "The database has Auth.js's tables but lacks some of authui's "
    "(an Auth.js app made it, say). Until they are added, the limits on sign-in emails and the "
    "single use of passkey challenges hold in each process alone, and the account center's "
    "lists, password accounts and two-factor sign-in are off where their tables are missing. "
    "`authui db status --url URL` names them; `authui db init --adopt --url URL` adds them in "
    "one step and leaves Auth.js's tables as they are.",
    "config-rebuilt": "The configuration function returns a new AuthConfig for request after "
    "request. Each new object is resolved anew (page renderer, adapter, caches) and starts its "
    "in-process sign-in throttle counts from zero. Return the same object for the same tenant.",
}


class Logger(Protocol):
    """A logger for ``AuthConfig(logger=…)``: Auth.js's three levels. Each is optional at
    run time (a logger may have only some of them: authui sends the others to the default
    logger, ``StandardLogger``), and so are the ``info`` and ``warning`` levels of
    ``FullLogger``, which authui calls where the logger has them."""

    def error(self, error: AuthError) -> None:
        """Log an error; ``error.cause`` may hold the original exception under ``"err"``."""

    def warn(self, code: WarningCode) -> None:
        """Log a warning about the configuration."""

    def debug(self, message: str, metadata: Any = None) -> None:
        """Log a debug message; only called when ``AuthConfig.debug`` is true."""


class FullLogger(Logger, Protocol):
    """Every level authui logs at: ``Logger``'s, and ``info`` and ``warning`` for what
    happens to users. The loggers of authui (``StandardLogger``, and the ``FilteredLogger``
    every configuration logs through) have them all."""

    def info(self, message: str, metadata: Any = None) -> None:
        """Log what happened to a user: ``"sign-in"`` or ``"sign-out"``, with the provider,
        the user's id and the client's address in ``metadata``."""

    def warning(self, message: str, metadata: Any = None) -> None:
        """Log a refused sign-in: ``"sign-in-failed"`` or ``"sign-in-throttled"``, with the
        provider, the error type and the client's address in ``metadata``."""


_warned: set[tuple[str, str]] = set()
"""The warnings the default logger has written in this process: (logger name, code)."""


def reset_warnings() -> None:
    """Let the default logger write each warning once more, as in a new process (for test
    suites, whose tests each check what a fresh start logs)."""
    _warned.clear()


REFUSAL = "refusal"
"""The key of ``AuthError.cause`` that holds a refused sign-in's log event and metadata."""


@dataclass(frozen=True, slots=True)
class StandardLogger:
    """The default logger: writes to ``logging.getLogger("authui")``.

    - ``error``: one line, ``[auth][error] <type>: <message>``, with the error's details;
      a refused sign-in (wrong password, throttled, …) is one ``warning`` instead
      (``sign-in-failed``, ``sign-in-throttled``: see ``authui.actions.audit``);
      the original exception's traceback follows only for errors that are not client-safe
      (a bug or a configuration problem). A client's bad input or an outage is one line.
    - ``warn``: ``[auth][warn][<code>] <text>``, each code once per process, however many
      configurations report it.
    - ``info``/``warning``/``debug``: ``[auth][<level>][<message>] <metadata as JSON>``.
    """

    name: str = "authui"

    def error(self, error: AuthError) -> None:
        refusal = error.cause.get(REFUSAL)
        if isinstance(refusal, tuple):  # a refused sign-in: one warning, as the user saw it
            self.warning(*refusal)
            return
        original = error.cause.get("err")
        details = {k: v for k, v in error.cause.items() if k != "err"}
        line = f"[auth][error] {error.type}: {error}"
        if details:
            line += f" [auth][details]: {json.dumps(details, default=str)}"
        exc_info = None
        if isinstance(original, BaseException):
            if error.client_safe:
                line += f" [auth][cause]: {type(original).__name__}: {original}"
            else:
                exc_info = original
        logging.getLogger(self.name).error("%s", line, exc_info=exc_info)

    def warn(self, code: WarningCode) -> None:
        if (self.name, code) in _warned:
            return
        _warned.add((self.name, code))
        logging.getLogger(self.name).warning(
            "[auth][warn][%s] %s", code, WARNING_TEXT.get(code, "")
        )

    def debug(self, message: str, metadata: Any = None) -> None:
        logging.getLogger(self.name).debug(
            "[auth][debug]: %s %s", message, json.dumps(metadata, default=str)
        )

    def info(self, message: str, metadata: Any = None) -> None:
        logging.getLogger(self.name).info(
            "[auth][info][%s] %s", message, json.dumps(metadata, default=str)
        )

    def warning(self, message: str, metadata: Any = None) -> None:
        logging.getLogger(self.name).warning(
            "[auth][warning][%s] %s", message, json.dumps(metadata, default=str)
        )


DEFAULT_LOGGER = StandardLogger()
"""Where the levels a configured logger lacks go."""


def show_debug_output(name: str = DEFAULT_LOGGER.name) -> None:
    """What ``AuthConfig(debug=True)`` does to Python's logging: the ``name`` logger is set
    to ``DEBUG`` and, when neither it nor the root logger has a handler, gets one writing
    to standard error. (An app that configures logging keeps its handlers.)"""
    log = logging.getLogger(name)
    log.setLevel(logging.DEBUG)
    if not log.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
        log.addHandler(handler)


@dataclass(frozen=True, slots=True)
class FilteredLogger:
    """The logger authui calls: the configured one, each level it lacks taken from the
    default logger, and debug messages dropped unless debug logging is on (configuration
    warnings too with ``warnings_enabled=False``: for a copy of a configuration whose
    warnings were already logged)."""

    inner: Logger
    debug_enabled: bool
    warnings_enabled: bool = True

    def _level(self, name: str) -> Callable[..., None]:
        method: Callable[..., None] | None = getattr(self.inner, name, None)
        fallback: Callable[..., None] = getattr(DEFAULT_LOGGER, name)
        return method if callable(method) else fallback

    def error(self, error: AuthError) -> None:
        self._level("error")(error)

    def warn(self, code: WarningCode) -> None:
        if self.warnings_enabled:
            self._level("warn")(code)

    def debug(self, message: str, metadata: Any = None) -> None:
        if self.debug_enabled:
            self._level("debug")(message, metadata)

    def info(self, message: str, metadata: Any = None) -> None:
        self._level("info")(message, metadata)

    def warning(self, message: str, metadata: Any = None) -> None:
        self._level("warning")(message, metadata)
