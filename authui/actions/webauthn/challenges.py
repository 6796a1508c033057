"""A passkey ceremony's challenge, single-use on the server.

``issue`` records the challenge through the adapter (only its hash, with an expiry) and
seals it, with what the ceremony needs to remember, into the browser's challenge cookie.
``spend`` reads and spends that cookie, then consumes the record atomically: a challenge
verifies at most once, in every process of the app, even when an answer is sent again with
the very cookies it first came with. The cookie still matters: it ties the ceremony to the
browser that asked for it.

An adapter without ``create_challenge`` and ``use_challenge`` (or a database without their
table) gets single-use challenges in each process (``authui.spent``): the cookie carries
the challenge's expiry, and the process that takes the answer remembers the challenge as
used until then.
"""

from __future__ import annotations

import base64
import hashlib
import math
from datetime import UTC, datetime
from typing import Any

from authui.adapters.base import AdapterCalls, Challenge
from authui.context import Context
from authui.cookies import CHECK_MAX_AGE, Cookie, deletion
from authui.dates import in_seconds, now
from authui.errors import WebAuthnVerificationError
from authui.jwt import JWTDecodeError, decode
from authui.providers.webauthn import WebAuthnProvider
from authui.sealed import seal

NEEDED_FOR = "passkeys"


def challenge_key(provider: WebAuthnProvider, challenge: bytes) -> str:
    """The key a challenge is stored under: the SHA-256 hex digest of the provider id and
    the raw challenge bytes (the challenge itself is never stored)."""
    return hashlib.sha256(provider.id.encode() + b"\0" + challenge).hexdigest()


def challenge_lifetime(provider: WebAuthnProvider) -> int:
    """Seconds a challenge can be answered in: the provider's ``timeout`` (milliseconds,
    rounded up), at most as long as the challenge cookie lives."""
    return max(1, min(math.ceil(provider.timeout / 1000), CHECK_MAX_AGE))


async def issue(
    ctx: Context,
    provider: WebAuthnProvider,
    adapter: AdapterCalls,
    challenge: bytes,
    ceremony: dict[str, Any],
) -> Cookie:
    """Record ``challenge`` as unused until its lifetime ends; the challenge cookie holding
    it and ``ceremony`` (what the answer's check needs)."""
    record = Challenge(
        key=challenge_key(provider, challenge), expires=in_seconds(challenge_lifetime(provider))
    )
    if adapter.has("create_challenge"):
        await adapter.call("create_challenge", NEEDED_FOR, record)
    value = {
        **ceremony,
        "challenge": _b64url(challenge),
        "expires": int(record.expires.timestamp()),
    }
    return seal(ctx, ctx.cookies.webauthn_challenge, provider.id, value)


async def spend(
    ctx: Context, provider: WebAuthnProvider, adapter: AdapterCalls
) -> tuple[bytes, dict[str, Any]]:
    """The challenge of this browser's ceremony and what ``issue`` sealed with it; the
    cookie is spent and the challenge used up, whatever the answer turns out to be.

    Raises:
        WebAuthnVerificationError: There is no challenge cookie (spent already, expired,
            cookies blocked), it is unreadable or another provider's, or its challenge was
            used already or has expired.
    """
    sealed = _unseal(ctx, provider)
    value = sealed.get("challenge")
    if not isinstance(value, str):
        raise WebAuthnVerificationError("The passkey challenge cookie holds no challenge")
    try:
        challenge = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except ValueError as exc:
        raise WebAuthnVerificationError("The passkey challenge cookie is unreadable") from exc
    key = challenge_key(provider, challenge)
    if adapter.has("use_challenge"):
        record: Challenge | None = await adapter.call("use_challenge", NEEDED_FOR, key)
    else:
        record = _spent_here(ctx, key, sealed.get("expires"))
    if record is None:
        raise WebAuthnVerificationError(
            "The passkey challenge was used already: this answer, or another one to the "
            "same challenge, was sent before"
        )
    if record.expires <= now():
        raise WebAuthnVerificationError(
            f"The passkey challenge expired (answers are taken for "
            f"{challenge_lifetime(provider)} seconds)"
        )
    return challenge, sealed


def _spent_here(ctx: Context, key: str, expires: object) -> Challenge | None:
    """``use_challenge`` in this process: the challenge, unless this process saw it used."""
    if isinstance(expires, bool) or not isinstance(expires, int):
        raise WebAuthnVerificationError("The passkey challenge cookie holds no expiry")
    if not ctx.options.spent_challenges.spend(key, float(expires)):
        return None
    return Challenge(key=key, expires=datetime.fromtimestamp(expires, UTC))


def _unseal(ctx: Context, provider: WebAuthnProvider) -> dict[str, Any]:
    option = ctx.cookies.webauthn_challenge
    raw = ctx.request.cookies.get(option.name)
    if not raw:
        raise WebAuthnVerificationError(
            "No passkey challenge cookie: the ceremony was used already, took more than "
            f"{CHECK_MAX_AGE // 60} minutes, or cookies are blocked"
        )
    ctx.spent_cookies.append(deletion(option.name, option.options))
    try:
        sealed = decode(token=raw, secret=ctx.options.keys, salt=option.name) or {}
    except JWTDecodeError as exc:
        raise WebAuthnVerificationError(
            "The passkey challenge cookie is expired or unreadable", cause={"err": exc}
        ) from exc
    value = sealed.get("value")
    if sealed.get("provider") != provider.id or not isinstance(value, dict):
        raise WebAuthnVerificationError("The passkey challenge belongs to another provider")
    return value


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
