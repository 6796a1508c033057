"""Password accounts and multi-factor authentication: the records authui keeps of a user's
password, second factors and trusted browsers, with the checks every adapter makes before
it stores them.

A user may hold a password (``PasswordRecord``: its hash, a PHC string such as
``$argon2id$v=19$m=…,t=…,p=…$salt$hash``, never the password), an enrolment in
multi-factor authentication (``MfaEnrolment``: a TOTP secret, kept encrypted by authui and
opaque to the store, the last TOTP time step accepted, and whether a passkey counts as the
second factor), single-use recovery codes (kept as hashes, hex SHA-256, at most
``RECOVERY_CODES_KEPT``), and browsers where the second factor is not asked again for a
while (``TrustedBrowser``). The adapter methods that keep them are optional (see
``authui.adapters.base.Adapter``); each adapter keeps them apart from Auth.js's tables or
keys, so an Auth.js app sharing the store never sees them.

The checks raise ``ValueError`` for a value a store cannot keep, before anything is
written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from authui.adapters.account import MAX_CLIENT, MAX_USER_AGENT

#: The longest password hash, a PHC string (``$argon2id$v=19$m=…,t=…,p=…$salt$hash``).
MAX_PASSWORD_HASH = 512
#: The longest TOTP secret: authui stores it encrypted, an opaque string to the store.
MAX_TOTP_SECRET = 1024
#: The longest id of a trusted browser.
MAX_BROWSER_ID = 64
#: The longest hash of a recovery code (hex SHA-256 has 64 characters).
MAX_RECOVERY_CODE_HASH = 64
#: How many recovery codes a user holds at most.
RECOVERY_CODES_KEPT = 20
#: The largest TOTP time step a store keeps (a signed 64-bit integer, SQL's ``BIGINT``).
MAX_TOTP_STEP = 2**63 - 1


@dataclass(frozen=True, slots=True, kw_only=True)
class PasswordRecord:
    """A user's password as authui keeps it: its ``hash`` (a PHC string of at most 512
    characters) and when it was last ``updated``. A user has one password at most."""

    user_id: str
    hash: str
    updated: datetime


@dataclass(frozen=True, slots=True, kw_only=True)
class MfaEnrolment:
    """A user's enrolment in multi-factor authentication.

    ``totp_secret`` is the TOTP secret as authui stores it (encrypted; at most 1024
    characters), ``None`` without an authenticator app; ``totp_last_step`` the last time
    step a TOTP code was accepted for (``use_totp_step``), so that no code is accepted
    twice; ``passkey`` whether a passkey counts as the second factor.
    """

    user_id: str
    created: datetime
    totp_secret: str | None = None
    totp_last_step: int | None = None
    passkey: bool = False

    @property
    def on(self) -> bool:
        """Whether multi-factor authentication is on for the user: a TOTP secret is set,
        or a passkey counts as the second factor."""
        return self.totp_secret is not None or self.passkey


@dataclass(frozen=True, slots=True, kw_only=True)
class TrustedBrowser:
    """A browser where the user's second factor is not asked again until ``expires``.

    ``browser_id`` (1 to 64 characters) is what the browser's cookie names; ``user_agent``
    (at most 512 characters) and ``client`` (its IP address, at most 64) say which browser
    it is, for the user's list.
    """

    browser_id: str
    user_id: str
    created: datetime
    expires: datetime
    user_agent: str | None = None
    client: str | None = None


def check_password(record: PasswordRecord) -> None:
    """Check ``record`` for ``set_password``.

    Raises:
        ValueError: The hash is empty or longer than ``MAX_PASSWORD_HASH``.
    """
    if not 1 <= len(record.hash) <= MAX_PASSWORD_HASH:
        raise ValueError(f"a password hash has 1 to {MAX_PASSWORD_HASH} characters")


def check_mfa_enrolment(enrolment: MfaEnrolment) -> None:
    """Check ``enrolment`` for ``save_mfa``.

    Raises:
        ValueError: ``totp_secret`` is empty or longer than ``MAX_TOTP_SECRET``, or
            ``totp_last_step`` is neither ``None`` nor an integer from 0 to
            ``MAX_TOTP_STEP``.
    """
    secret = enrolment.totp_secret
    if secret is not None and not 1 <= len(secret) <= MAX_TOTP_SECRET:
        raise ValueError(f"totp_secret has 1 to {MAX_TOTP_SECRET} characters")
    if enrolment.totp_last_step is not None:
        totp_step(enrolment.totp_last_step)


def totp_step(step: int) -> int:
    """``step`` for ``use_totp_step`` (and an enrolment's ``totp_last_step``), checked.

    Raises:
        ValueError: ``step`` is not an integer from 0 to ``MAX_TOTP_STEP``.
    """
    if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= MAX_TOTP_STEP:
        raise ValueError(f"a TOTP step is an integer from 0 to {MAX_TOTP_STEP}, not {step!r}")
    return step


def recovery_code_hashes(code_hashes: Sequence[str]) -> tuple[str, ...]:
    """``code_hashes`` for ``replace_recovery_codes``, checked: 1 to
    ``RECOVERY_CODES_KEPT`` strings of 1 to ``MAX_RECOVERY_CODE_HASH`` characters, each
    once.

    Raises:
        ValueError: There are none or too many, one is not such a string (or
            ``code_hashes`` is itself a string), or one is there twice.
    """
    if isinstance(code_hashes, str):
        raise ValueError("code_hashes is a sequence of hashes, not a str")
    hashes = tuple(code_hashes)
    if not 1 <= len(hashes) <= RECOVERY_CODES_KEPT:
        raise ValueError(f"a user holds 1 to {RECOVERY_CODES_KEPT} recovery codes")
    for code_hash in hashes:
        if not isinstance(code_hash, str) or not 1 <= len(code_hash) <= MAX_RECOVERY_CODE_HASH:
            raise ValueError(
                f"a recovery code hash is a str of 1 to {MAX_RECOVERY_CODE_HASH} characters"
            )
    if len(set(hashes)) != len(hashes):
        raise ValueError("the recovery code hashes are not all different")
    return hashes


def check_trusted_browser(browser: TrustedBrowser) -> None:
    """Check ``browser`` for ``save_trusted_browser``.

    Raises:
        ValueError: ``browser_id`` is empty or longer than ``MAX_BROWSER_ID``, or
            ``user_agent`` or ``client`` is too long (``MAX_USER_AGENT``, ``MAX_CLIENT``
            of ``authui.adapters.account``).
    """
    if not 1 <= len(browser.browser_id) <= MAX_BROWSER_ID:
        raise ValueError(f"browser_id has 1 to {MAX_BROWSER_ID} characters")
    for name, value, most in (
        ("user_agent", browser.user_agent, MAX_USER_AGENT),
        ("client", browser.client, MAX_CLIENT),
    ):
        if value is not None and len(value) > most:
            raise ValueError(f"{name} has at most {most} characters")


def browser_order(browser: TrustedBrowser) -> tuple[float, str]:
    """How ``list_trusted_browsers`` orders a user's browsers: newest ``created`` first,
    by ``browser_id`` where that ties."""
    return -browser.created.timestamp(), browser.browser_id
