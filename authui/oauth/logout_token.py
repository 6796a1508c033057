"""The logout token of OpenID Connect Back-Channel Logout 1.0: what an OpenID provider
POSTs to the app when a user signs out there, checked before any session is ended."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from authui.oauth.discovery import DiscoveryCache
from authui.oauth.tokens import ID_TOKEN_LEEWAY, TokenError, verified_jwt
from authui.providers.oauth import OAuthProvider

LOGOUT_EVENT = "http://schemas.openid.net/event/backchannel-logout"
"""The member of ``events`` that makes a JWT a logout token."""

ACCEPTED_TYPES = frozenset({"logout+jwt", "application/logout+jwt", "jwt"})
"""``typ`` headers a logout token may carry: the explicit type the spec recommends, or the
plain ``JWT`` many providers send (the event and the absent ``nonce`` tell it from an
id_token); another explicit type (``at+jwt``, ...) is another kind of token."""

MAX_AGE = 10 * 60
"""Seconds after its ``iat`` that a logout token is accepted: it is sent as the user signs
out, so an older one is a replay (each ``jti`` is also accepted only once)."""


@dataclass(frozen=True, slots=True)
class LogoutRequest:
    """Whose sign-out a verified logout token announces.

    Attributes:
        issuer: The provider's issuer (``iss``).
        subject: The user at the provider (``sub``), when the token names one.
        session_id: The provider's session (``sid``), when the token names one.
        token_id: The token's ``jti``, to accept it once.
        issued_at: Its ``iat``.
    """

    issuer: str
    subject: str | None
    session_id: str | None
    token_id: str
    issued_at: int


async def logout_request(
    provider: OAuthProvider, raw: str, discovery: DiscoveryCache, *, now: float | None = None
) -> LogoutRequest:
    """Verify a logout token as Back-Channel Logout 1.0 §2.6 asks: signed by the provider
    (its JWKS, or the client secret for HS*), typed ``logout+jwt`` (or plain ``JWT``) when
    typed at all, ``iss`` the provider's issuer, ``aud`` this client, ``iat`` recent, ``exp`` (if
    any) not passed, the back-channel logout event, a ``sub`` or a ``sid``, a ``jti``, and
    no ``nonce`` (which would make an id_token pass for a logout token).

    Raises:
        TokenError: The token fails one of these checks; the message says which.
        DiscoveryError: The provider's keys cannot be had.
    """
    found = await discovery.endpoints(provider, need=("jwks_uri",))
    token = await verified_jwt(provider, found, raw, discovery, what="logout token")
    typ = token.header.get("typ")
    if typ is not None and str(typ).lower() not in ACCEPTED_TYPES:
        raise TokenError(f"The logout token is typed {typ!r}, not logout+jwt")
    claims: dict[str, Any] = dict(token.claims)
    issuer = found.issuer or provider.issuer or ""
    if str(claims.get("iss", "")).rstrip("/") != issuer.rstrip("/"):
        raise TokenError(f"The logout token's iss {claims.get('iss')!r} is not {issuer!r}")
    audience = claims.get("aud")
    audiences = audience if isinstance(audience, list) else [audience]
    if provider.client_id not in audiences:
        raise TokenError("The logout token is not for this client (aud)")
    moment = time.time() if now is None else now
    issued_at = claims.get("iat")
    if not isinstance(issued_at, int | float) or isinstance(issued_at, bool):
        raise TokenError("The logout token has no iat")
    if issued_at > moment + ID_TOKEN_LEEWAY or issued_at < moment - MAX_AGE - ID_TOKEN_LEEWAY:
        raise TokenError("The logout token's iat is not recent: a replay, or a wrong clock")
    expires = claims.get("exp")
    if isinstance(expires, int | float) and expires < moment - ID_TOKEN_LEEWAY:
        raise TokenError("The logout token has expired")
    events = claims.get("events")
    if not isinstance(events, dict) or not isinstance(events.get(LOGOUT_EVENT), dict):
        raise TokenError("The logout token lacks the back-channel logout event")
    if "nonce" in claims:
        raise TokenError("A logout token must not have a nonce (is this an id_token?)")
    subject, session_id = claims.get("sub"), claims.get("sid")
    if not isinstance(subject, str) and not isinstance(session_id, str):
        raise TokenError("The logout token names neither a sub nor a sid")
    token_id = claims.get("jti")
    if not isinstance(token_id, str) or not token_id:
        raise TokenError("The logout token has no jti")
    return LogoutRequest(
        issuer=str(claims["iss"]),
        subject=subject if isinstance(subject, str) else None,
        session_id=session_id if isinstance(session_id, str) else None,
        token_id=token_id,
        issued_at=int(issued_at),
    )
