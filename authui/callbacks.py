"""Calling user callbacks and events, and the default callbacks."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from authui.errors import EventError
from authui.logger import Logger


@lru_cache(maxsize=512)
def _accepted(fn: Callable[..., Any]) -> frozenset[str] | None:
    """Keyword names ``fn`` accepts, or ``None`` when it takes ``**kwargs``."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    return frozenset(p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


async def invoke(fn: Callable[..., Any], **kwargs: Any) -> Any:
    """Call a sync or async user function with the keyword arguments it declares."""
    accepted = _accepted(fn)
    if accepted is not None:
        kwargs = {k: v for k, v in kwargs.items() if k in accepted}
    result = fn(**kwargs)
    if inspect.isawaitable(result):
        result = await result
    return result


@lru_cache(maxsize=512)
def _positional_count(fn: Callable[..., Any]) -> int:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 2
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return 2
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)


async def invoke_positional(fn: Callable[..., Any], *args: Any) -> Any:
    """Call a sync or async user function with as many leading ``args`` as it takes."""
    result = fn(*args[: _positional_count(fn)])
    if inspect.isawaitable(result):
        result = await result
    return result


async def emit(handler: Callable[..., Any] | None, logger: Logger, **kwargs: Any) -> None:
    """Run an event handler; a failure is logged as ``EventError`` and swallowed."""
    if handler is None:
        return
    try:
        await invoke(handler, **kwargs)
    except Exception as exc:
        logger.error(EventError(cause={"err": exc}))


def default_session(*, session: dict[str, Any], **_: Any) -> dict[str, Any]:
    """Expose the session as it is (name, email, image and expiry)."""
    return session


def default_jwt(*, token: dict[str, Any], **_: Any) -> dict[str, Any]:
    """Keep the token as it is."""
    return token


def default_sign_in(**_: Any) -> bool:
    """Allow every sign-in."""
    return True
