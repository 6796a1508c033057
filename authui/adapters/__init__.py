"""Adapters: where users, accounts, database sessions, tokens and passkeys are kept."""

from __future__ import annotations

from authui.adapters.base import Adapter as Adapter
from authui.adapters.base import AdapterAccount as AdapterAccount
from authui.adapters.base import AdapterAuthenticator as AdapterAuthenticator
from authui.adapters.base import AdapterSession as AdapterSession
from authui.adapters.base import AdapterUser as AdapterUser
from authui.adapters.base import Challenge as Challenge
from authui.adapters.base import UserChanges as UserChanges
from authui.adapters.base import VerificationToken as VerificationToken
from authui.adapters.memory import MemoryAdapter as MemoryAdapter

__all__ = [
    "Adapter",
    "AdapterAccount",
    "AdapterAuthenticator",
    "AdapterSession",
    "AdapterUser",
    "Challenge",
    "MemoryAdapter",
    "UserChanges",
    "VerificationToken",
]
