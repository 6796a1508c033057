"""Start-up checks of password accounts (``Password``) and second factors
(``MfaOptions``), for ``authui.checks.assert_config``."""

from __future__ import annotations

import importlib.util
from functools import cache

from authui.config import AuthConfig
from authui.errors import AuthError, InvalidProvider, MissingAdapter
from authui.providers.email import EmailProvider
from authui.providers.password import Password

PASSWORD_METHODS = (
    "get_user",
    "get_user_by_email",
    "create_user",
    "update_user",
    "delete_user",
    "create_verification_token",
    "use_verification_token",
    "get_password",
    "set_password",
)
"""What password accounts need from an adapter: users, their links, their hashes."""

MFA_PACKAGES = ("pyotp", "segno")

MFA_METHODS = ("get_mfa", "save_mfa", "use_totp_step")
"""What two-step verification needs from an adapter: the enrolments, each TOTP code once."""


@cache
def installed(*packages: str) -> bool:
    """Whether every one of ``packages`` can be imported."""
    return all(importlib.util.find_spec(p) is not None for p in packages)


def password_errors(config: AuthConfig) -> list[AuthError]:
    """A password provider's needs: one such provider at most, its packages
    (``authui[passwords]``), an adapter, an email provider with a transport for its
    links, positive lifetimes and limits."""
    passwords = [p for p in config.providers if isinstance(p, Password)]
    if not passwords:
        return []
    errors: list[AuthError] = []
    if len(passwords) > 1:
        errors.append(InvalidProvider("Only one Password provider may be configured"))
    provider = passwords[0]
    if not installed("argon2", "zxcvbn"):
        errors.append(
            InvalidProvider(
                f"Password provider {provider.id!r} needs argon2-cffi and zxcvbn, which are "
                "not installed: pip install 'authui[passwords]'"
            )
        )
    if config.adapter is None:
        errors.append(MissingAdapter("Password accounts need an adapter to keep the passwords"))
    sender = any(isinstance(p, EmailProvider) and p.transport is not None for p in config.providers)
    if not sender:
        errors.append(
            InvalidProvider(
                f"Password provider {provider.id!r} needs an email provider with a transport, "
                "to send its confirmation and reset links"
            )
        )
    for name in ("reset_max_age", "verify_max_age", "signups_per_client", "emails_per_address"):
        value = getattr(provider, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            errors.append(InvalidProvider(f"Password.{name} must be a positive integer"))
    return errors


def mfa_errors(config: AuthConfig) -> list[AuthError]:
    """``MfaOptions`` that cannot work: a negative or fractional ``trust_days``."""
    days = config.mfa.trust_days
    if isinstance(days, bool) or not isinstance(days, int) or days < 0:
        return [AuthError("MfaOptions.trust_days must be an integer of 0 or more")]
    return []
