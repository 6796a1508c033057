"""Password accounts: sign-up with email and password, sign-in, a forgotten password reset
by an emailed link, all on authui's own pages (``docs/how-to/passwords.md``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from authui.i18n import N_
from authui.passwords.hashing import Argon2
from authui.passwords.rules import PasswordRules
from authui.providers.credentials import Credentials


def _fields() -> dict[str, Mapping[str, Any]]:
    return {
        "email": {
            "label": N_("Email"),
            "type": "email",
            "autocomplete": "username",
            "required": True,
        },
        "password": {
            "label": N_("Password"),
            "type": "password",
            "autocomplete": "current-password",
            "required": True,
        },
    }


@dataclass(frozen=True, slots=True, kw_only=True)
class Password(Credentials):
    """Sign-in with an email address and a password that authui keeps (hashed with
    argon2id, in the adapter's ``authui_passwords``), with sign-up, email verification and
    "forgot password" pages. It is a credentials provider (``type`` ``"credentials"``), so
    Auth.js's client signs in with ``signIn("password", {email, password})``. It needs an
    adapter, and an email provider with a transport to send its links.

    Attributes:
        sign_up: Offer the sign-up page (off: passwords are set from the account center
            or by a reset only).
        verify_email: A new address must be confirmed by its emailed link before its
            password signs in.
        hashing: The argon2id parameters of new hashes; a stored hash made with others
            is replaced at the next sign-in.
        rules: What a new password must be.
        reset_max_age: Seconds a "forgot password" link works (once).
        verify_max_age: Seconds a sign-up's confirmation link works (once).
        signups_per_client: Sign-ups (and "forgot password" requests) per client and
            hour; each sends an email.
        emails_per_address: Emails per address and hour, whoever asks.
    """

    id: str = "password"
    name: str = "Password"
    credentials: Mapping[str, Mapping[str, Any]] = field(default_factory=_fields)
    sign_up: bool = True
    verify_email: bool = True
    hashing: Argon2 = field(default_factory=Argon2)
    rules: PasswordRules = field(default_factory=PasswordRules)
    reset_max_age: int = 3600
    verify_max_age: int = 24 * 3600
    signups_per_client: int = 10
    emails_per_address: int = 5
