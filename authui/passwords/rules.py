"""Which passwords are accepted: long enough, not too long, not one of the most common,
not the account's own address or name, and whatever the app's own rule says.

The common passwords are the 30,000 most frequent of leaked password lists, as the
zxcvbn package ships them (its ``frequency_lists``): a password that is one of them, or
one of them with digits or symbols added at its end, is refused.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from authui.callbacks import invoke
from authui.i18n import translate, translate_given, translate_plural

AppRule = Callable[..., Awaitable[str | None] | str | None]
"""``rule(password, user)`` → a message saying why the password is refused, or ``None``
(shown in the user's language when a catalogue translates it: the app's own, see
``AuthConfig.translations``).
``user`` is a mapping with the account's ``email`` and ``name`` (``name`` may be
``None``)."""

_TAIL = re.compile(r"[\d\W_]+$")


@cache
def common_passwords() -> frozenset[str]:
    """The most common passwords, lower-cased (loaded once, from zxcvbn's lists)."""
    from zxcvbn.frequency_lists import FREQUENCY_LISTS  # type: ignore[import-untyped]

    return frozenset(word.lower() for word in FREQUENCY_LISTS["passwords"])


def is_common(password: str) -> bool:
    """Whether ``password`` is a common one, or one with digits or symbols after it."""
    lowered = password.lower()
    if lowered in common_passwords():
        return True
    stem = _TAIL.sub("", lowered)
    return bool(stem) and stem in common_passwords()


@dataclass(frozen=True, slots=True, kw_only=True)
class PasswordRules:
    """What a new password must be (sign-up, reset, change).

    Attributes:
        min_length: Fewest characters (8, as NIST SP 800-63B asks at least).
        max_length: Most characters (argon2 hashes any length; the limit keeps a request
            from costing more than it should).
        refuse_common: Refuse the most common passwords (see the module's docstring).
        rule: The app's own rule, run after the others (see ``AppRule``).

    Raises:
        ValueError: ``min_length`` below 1 or above ``max_length``.
    """

    min_length: int = 8
    max_length: int = 256
    refuse_common: bool = True
    rule: AppRule | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.min_length <= self.max_length:
            raise ValueError("PasswordRules needs 1 <= min_length <= max_length")

    async def problems(self, password: str, user: Mapping[str, Any]) -> list[str]:
        """Why ``password`` is refused for ``user`` (``email``, ``name``); empty when it
        is accepted."""
        if len(password) < self.min_length:
            return [
                translate_plural(
                    "Use at least {n} character.", "Use at least {n} characters.", self.min_length
                )
            ]
        if len(password) > self.max_length:
            return [
                translate_plural(
                    "Use at most {n} character.", "Use at most {n} characters.", self.max_length
                )
            ]
        lowered = password.strip().lower()
        own = [str(user.get(k) or "").strip().lower() for k in ("email", "name")]
        email = own[0]
        if lowered in own or (email and lowered == email.split("@")[0]):
            return [translate("Do not use your own address or name as your password.")]
        if self.refuse_common and is_common(password):
            return [translate("This password is too common: it is among the first guessed.")]
        if self.rule is not None:
            message = await invoke(self.rule, password=password, user=dict(user))
            if message:
                return [translate_given(str(message))]
        return []
