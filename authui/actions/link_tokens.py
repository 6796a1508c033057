"""Using up the token of an emailed link (a sign-in link, an address change, a password
link): stored as ``sha256hex(token + secret)`` with the newest secret when the link was
made, so every configured secret is tried; found, it is deleted at once (single use,
atomically, by ``use_verification_token``)."""

from __future__ import annotations

from collections.abc import Sequence

from authui.adapters.base import AdapterCalls, VerificationToken
from authui.csrf import token_hash
from authui.dates import now
from authui.errors import Verification


async def use_link_token(
    adapter: AdapterCalls,
    needed_for: str,
    *,
    identifier: str,
    token: str,
    secrets: Sequence[str],
    name: str,
) -> VerificationToken:
    """Use up ``token`` of ``identifier``; ``name`` says what link it is, in the errors.

    Raises:
        Verification: It was used already, never issued (for this identifier), or has
            expired.
    """
    for secret in secrets:
        used: VerificationToken | None = await adapter.call(
            "use_verification_token", needed_for, identifier, token_hash(token, secret)
        )
        if used is not None:
            break
    else:
        raise Verification(f"The {name} was used already, or never issued")
    if used.expires < now():
        raise Verification(f"The {name} has expired")
    return used
