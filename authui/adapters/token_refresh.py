"""What the adapters share for OAuth token refresh: the account fields a refresh changes
and their check (``update_account``), and the leases that let one process at a time refresh
an account's tokens (``claim_lease``)."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any, get_args

from authui.adapters.base import AccountType

ACCOUNT_TOKEN_FIELDS = (
    "access_token",
    "refresh_token",
    "expires_at",
    "id_token",
    "scope",
    "token_type",
    "session_state",
)
"""The OAuth token fields of ``AdapterAccount``, which a token refresh changes."""

_ACCOUNT_IDENTITY = frozenset({"user_id", "provider", "provider_account_id"})
_ACCOUNT_TYPES: tuple[object, ...] = get_args(AccountType)


def account_changes(changes: Mapping[str, Any]) -> dict[str, Any]:
    """``changes`` for ``update_account``, checked: a ``dict`` of the ``AdapterAccount``
    fields that may change (``type`` and ``ACCOUNT_TOKEN_FIELDS``), each to a value of its
    type or ``None``, except ``type``, which is one of ``AccountType``.

    Raises:
        ValueError: A name is not a field of accounts, or is one that identifies the
            account (``user_id``, ``provider``, ``provider_account_id``).
        TypeError: A value is not of the field's type (``expires_at``: an ``int``;
            the others: a ``str``).
    """
    checked = dict(changes)
    identity = sorted(_ACCOUNT_IDENTITY & checked.keys())
    if identity:
        raise ValueError(f"update_account cannot change {identity}: they identify the account")
    unknown = sorted(set(checked) - {"type", *ACCOUNT_TOKEN_FIELDS}, key=str)
    if unknown:
        raise ValueError(f"update_account: accounts have no field(s) {unknown}")
    for name, value in checked.items():
        if name == "type":
            if value not in _ACCOUNT_TYPES:
                raise TypeError(f"update_account: type must be one of {_ACCOUNT_TYPES}")
        elif value is None:
            continue
        elif name == "expires_at":
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"update_account: expires_at must be an int, not {value!r}")
        elif not isinstance(value, str):
            raise TypeError(f"update_account: {name} must be a str, not {type(value).__name__}")
    return checked


def lease_seconds(seconds: int) -> int:
    """``seconds`` for ``claim_lease``, checked.

    Raises:
        ValueError: ``seconds`` is not a positive integer.
    """
    if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds < 1:
        raise ValueError(f"lease seconds must be a positive integer, not {seconds!r}")
    return seconds


def new_lease_holder() -> str:
    """A new holder token for ``claim_lease``: 32 random URL-safe characters (192 bits),
    so that no two claims, in any process, ever share one."""
    return secrets.token_urlsafe(24)
