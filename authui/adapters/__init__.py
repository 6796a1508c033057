"""Adapters: where users, accounts, database sessions, tokens and passkeys are kept, and
what the account center keeps beside them."""

from __future__ import annotations

from authui.adapters.account import PasskeyChanges as PasskeyChanges
from authui.adapters.account import PasskeyDetails as PasskeyDetails
from authui.adapters.account import SecurityEvent as SecurityEvent
from authui.adapters.account import SessionDetails as SessionDetails
from authui.adapters.account import UserSession as UserSession
from authui.adapters.base import Adapter as Adapter
from authui.adapters.base import AdapterAccount as AdapterAccount
from authui.adapters.base import AdapterAuthenticator as AdapterAuthenticator
from authui.adapters.base import AdapterSession as AdapterSession
from authui.adapters.base import AdapterUser as AdapterUser
from authui.adapters.base import Challenge as Challenge
from authui.adapters.base import UserChanges as UserChanges
from authui.adapters.base import VerificationToken as VerificationToken
from authui.adapters.factors import MfaEnrolment as MfaEnrolment
from authui.adapters.factors import PasswordRecord as PasswordRecord
from authui.adapters.factors import TrustedBrowser as TrustedBrowser
from authui.adapters.memory import MemoryAdapter as MemoryAdapter

__all__ = [
    "Adapter",
    "AdapterAccount",
    "AdapterAuthenticator",
    "AdapterSession",
    "AdapterUser",
    "Challenge",
    "MemoryAdapter",
    "MfaEnrolment",
    "PasskeyChanges",
    "PasskeyDetails",
    "PasswordRecord",
    "SecurityEvent",
    "SessionDetails",
    "TrustedBrowser",
    "UserChanges",
    "UserSession",
    "VerificationToken",
]
