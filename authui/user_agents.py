"""What a ``User-Agent`` header says in words: "Chrome on Linux", for the account center's
lists of sessions and sign-ins (parsed by ``ua-parser``, the rules of uap-core)."""

from __future__ import annotations

import functools

from authui.adapters.account import MAX_CLIENT, MAX_USER_AGENT
from authui.i18n import translate

_UNKNOWN = ("Other", "")


def kept_user_agent(value: str | None) -> str | None:
    """The header as stored: cut to ``MAX_USER_AGENT`` characters; ``None`` for none."""
    return value[:MAX_USER_AGENT] if value else None


def kept_client(address: str | None) -> str | None:
    """A client's address as stored: cut to ``MAX_CLIENT`` characters (a forwarded header
    may hold anything); ``None`` for none."""
    return address[:MAX_CLIENT] if address else None


@functools.lru_cache(maxsize=512)
def _parsed(user_agent: str) -> tuple[str | None, str | None]:
    """The browser's and the system's names in a ``User-Agent`` (``None``: unknown); kept
    per header, in no language (names are never translated)."""
    from ua_parser import parse  # the rules load on first use (~0.1 s), not at import

    found = parse(user_agent)
    browser = found.user_agent.family if found.user_agent else None
    system = found.os.family if found.os else None
    return (
        None if browser in _UNKNOWN else browser,
        None if system in _UNKNOWN else system,
    )


def describe(user_agent: str | None) -> str:
    """The browser and system of a ``User-Agent`` in the request's language: ``"Chrome on
    Linux"``, ``"Mobile Safari on iOS"``, ``"Firefox"`` when the system is unknown,
    ``"Unknown browser"`` when neither is known (or there is no header)."""
    browser, system = _parsed(user_agent) if user_agent else (None, None)
    if browser and system:
        return translate("{browser} on {system}", browser=browser, system=system)
    if browser:
        return browser
    if system:
        return translate("A browser on {system}", system=system)
    return translate("Unknown browser")
