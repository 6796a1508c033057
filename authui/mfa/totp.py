"""Time-based one-time passwords (RFC 6238) through pyotp (``pip install authui[mfa]``):
6 digits, 30-second steps, SHA-1, as every authenticator app reads them from an
``otpauth://`` URI.

A code is accepted for its own step and the one before and after it (clocks drift, and
typing takes time), and each step once: the adapter records the last step used
(``use_totp_step``), so a code seen over a shoulder or replayed is refused.

The secret is stored sealed (encrypted with the app's secret, as cookies are) so a copy of
the database alone does not give the codes.
"""

from __future__ import annotations

import hmac
import time
from collections.abc import Sequence

from authui.jwt import JWTDecodeError, decode, encode

DIGITS = 6
STEP_SECONDS = 30
DRIFT_STEPS = 1
"""Steps accepted before and after the current one."""
_SEALED_FOR = "authui.totp-secret"
_KEPT_SECONDS = 100 * 365 * 86400
"""A sealed secret's expiry: as long as the enrolment lasts (it is deleted with it)."""


def new_secret() -> str:
    """A new random secret: 160 bits, in base32 (RFC 4226's recommended length)."""
    import pyotp

    return pyotp.random_base32(32)


def provisioning_uri(secret: str, account: str, issuer: str) -> str:
    """The ``otpauth://totp/…`` URI an authenticator app reads (from the QR code)."""
    import pyotp

    return pyotp.TOTP(secret, digits=DIGITS, interval=STEP_SECONDS).provisioning_uri(
        name=account, issuer_name=issuer
    )


def grouped(secret: str) -> str:
    """The secret in groups of four characters, for typing into an app by hand."""
    return " ".join(secret[i : i + 4] for i in range(0, len(secret), 4))


def current_step(at: float | None = None) -> int:
    """The number of the 30-second step at ``at`` (now by default)."""
    return int((time.time() if at is None else at) // STEP_SECONDS)


def code_at(secret: str, step: int) -> str:
    """The code of ``step``."""
    import pyotp

    return pyotp.TOTP(secret, digits=DIGITS, interval=STEP_SECONDS).at(step * STEP_SECONDS)


def normalized(code: object) -> str | None:
    """A typed code without spaces or dashes, when it is six digits; else ``None``."""
    if not isinstance(code, str):
        return None
    digits = "".join(code.split()).replace("-", "")
    return digits if len(digits) == DIGITS and digits.isascii() and digits.isdigit() else None


def matching_step(secret: str, code: object, at: float | None = None) -> int | None:
    """The step whose code ``code`` is, among the current step and ``DRIFT_STEPS`` on
    each side (the latest first); ``None`` when it is none of them. Every step is
    compared, in constant time, whatever matches."""
    typed = normalized(code)
    now = current_step(at)
    found: int | None = None
    for step in range(now + DRIFT_STEPS, now - DRIFT_STEPS - 1, -1):
        same = hmac.compare_digest(code_at(secret, step), typed or "")
        if same and found is None:
            found = step
    return found if typed is not None else None


def seal_secret(keys: Sequence[str], secret: str) -> str:
    """``secret`` encrypted with the newest of the app's ``keys``, for storage."""
    return encode(
        token={"totp": secret}, secret=list(keys), salt=_SEALED_FOR, max_age=_KEPT_SECONDS
    )


def open_secret(keys: Sequence[str], sealed: str) -> str | None:
    """The secret ``seal_secret`` sealed, with any of ``keys``; ``None`` when none opens
    it (the secret it was sealed with is gone)."""
    try:
        opened = decode(token=sealed, secret=list(keys), salt=_SEALED_FOR)
    except JWTDecodeError:
        return None
    secret = (opened or {}).get("totp")
    return secret if isinstance(secret, str) else None
