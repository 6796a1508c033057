"""The CSRF double-submit token.

The cookie holds ``<token>|<sha256hex(token + secret)>``, the Auth.js format. A request is
verified when it is a POST whose body field ``csrfToken`` equals the token of a cookie whose
hash checks out. The hash is made with the newest secret and checked against every secret
in the rotation list (and against Auth.js's comma-joined form of the list), so rotating
secrets does not break forms that are already open. Auth.js hashes with the joined list,
which invalidates every token at a rotation.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass


def token_hash(token: str, secret: str) -> str:
    """``sha256hex(token + secret)``, the Auth.js CSRF and verification-token hash."""
    return hashlib.sha256(f"{token}{secret}".encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class CsrfState:
    """The CSRF outcome of one request.

    Attributes:
        token: The token the client should send back.
        verified: True when this request carried the token in its body.
        cookie_value: A new cookie value to set, or ``None`` when the request's is good.
    """

    token: str
    verified: bool
    cookie_value: str | None


def _candidate_secrets(keys: Sequence[str]) -> list[str]:
    return [*keys, ",".join(keys)] if len(keys) > 1 else list(keys)


def create_csrf_state(
    *,
    cookie_value: str | None,
    body_token: object,
    is_post: bool,
    keys: Sequence[str],
    disabled: bool = False,
) -> CsrfState:
    """Check the request's CSRF cookie and body token, or issue a new token.

    Args:
        cookie_value: The decoded CSRF cookie from the request, if any.
        body_token: The body's ``csrfToken`` field (any type; only a matching string counts).
        is_post: Whether the request is a POST.
        keys: The secrets, newest first.
        disabled: ``skip_csrf_check`` is configured: every request counts as verified and
            no token is issued.
    """
    if disabled:
        return CsrfState(token="", verified=True, cookie_value=None)
    if cookie_value:
        token, _, digest = cookie_value.partition("|")
        if (
            token
            and digest
            and any(
                hmac.compare_digest(digest.encode(), token_hash(token, key).encode())
                for key in _candidate_secrets(keys)
            )
        ):
            verified = (
                is_post
                and isinstance(body_token, str)
                and hmac.compare_digest(body_token.encode(), token.encode())
            )
            return CsrfState(token=token, verified=verified, cookie_value=None)
    token = secrets.token_hex(32)
    return CsrfState(
        token=token, verified=False, cookie_value=f"{token}|{token_hash(token, keys[0])}"
    )
