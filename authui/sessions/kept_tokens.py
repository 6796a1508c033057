"""Provider tokens kept in a JWT session (``JWTOptions.provider_tokens``): the access token
of the sign-in's provider, refreshed when it has expired, and the cookie re-issued with the
new tokens, or with ``error: "RefreshTokenError"`` when the refresh fails.

Without an adapter there is no store that every process sees, so a refresh is shared within
the process: concurrent requests carrying the same refresh token (two tabs, a burst of API
calls) make one call to the provider, and the answer is kept a short while for requests that
still carry the old cookie (a provider that rotates refresh tokens would refuse it, and may
revoke the grant). Several processes may each refresh once: apps with more than one process
that talk to such a provider should use an adapter (``authui.access_tokens``).
"""

from __future__ import annotations

import asyncio
import hashlib
import time
import weakref

from authui.context import Context
from authui.cookies import Cookie
from authui.dates import in_seconds
from authui.errors import RefreshTokenError
from authui.jwt import JWT
from authui.oauth.discovery import DiscoveryCache
from authui.oauth.refreshing import refreshed, still_valid
from authui.providers.oauth import OAuthProvider, TokenSet
from authui.sessions.jwt import decode_token, encode_token, write_token

KEEP_SECONDS = 60
"""How long a refresh's answer stays with this process, for requests with the old cookie."""

_refreshes: weakref.WeakKeyDictionary[
    DiscoveryCache, dict[str, tuple[float, asyncio.Task[TokenSet]]]
] = weakref.WeakKeyDictionary()
"""Refreshes of this process, per resolved configuration (its discovery cache) and by their
refresh token's hash: when each may be dropped, and the refresh."""


async def kept_access_token(
    ctx: Context, provider: OAuthProvider, skew: int
) -> tuple[str | None, list[Cookie]]:
    """The JWT's valid access token at ``provider``, refreshed (and the cookie re-issued)
    when it has expired; ``None`` without a session.

    Raises:
        RefreshTokenError: The session did not sign in with ``provider``, has no refresh
            token, or the provider refused it; ``cookies`` records the failure.
    """
    chunks = ctx.session_chunks()
    if not chunks.value:
        return None, []
    try:
        token = await decode_token(ctx, chunks.value)
    except Exception:
        return None, []  # an unreadable session is no session (its check says why)
    if not token:
        return None, []
    if token.get("provider") != provider.id:
        raise RefreshTokenError(f"The session holds no {provider.id} tokens")
    if still_valid(token.get("access_token"), token.get("expires_at"), skew):
        return str(token["access_token"]), []
    refresh_token = token.get("refresh_token")
    try:
        if not isinstance(refresh_token, str) or not refresh_token:
            raise RefreshTokenError(f"The session's {provider.id} tokens have no refresh token")
        answer = await _shared_refresh(ctx.options.discovery, provider, refresh_token)
    except RefreshTokenError as error:
        error.cookies = tuple(await _reissue(ctx, {**token, "error": "RefreshTokenError"}))
        raise
    renewed: JWT = {k: v for k, v in token.items() if k != "error"}
    renewed["access_token"] = answer["access_token"]
    renewed["expires_at"] = answer.get("expires_at")
    if answer.get("refresh_token"):
        renewed["refresh_token"] = answer["refresh_token"]
    return str(answer["access_token"]), await _reissue(ctx, renewed)


async def _reissue(ctx: Context, token: JWT) -> list[Cookie]:
    """The session cookie(s) holding ``token``, with a new expiry."""
    expires = in_seconds(ctx.options.config.session.max_age)
    return write_token(ctx, ctx.session_chunks(), await encode_token(ctx, token), expires)


async def _shared_refresh(
    discovery: DiscoveryCache, provider: OAuthProvider, refresh_token: str
) -> TokenSet:
    """One refresh per refresh token in this process: later callers await the first's."""
    now = time.monotonic()
    mine = _refreshes.setdefault(discovery, {})
    for key in [k for k, (until, task) in mine.items() if until < now and task.done()]:
        del mine[key]
    key = hashlib.sha256(f"{provider.id}\0{refresh_token}".encode()).hexdigest()
    found = mine.get(key)
    if found is None:
        task = asyncio.ensure_future(refreshed(discovery, provider, refresh_token))
        found = mine[key] = (now + KEEP_SECONDS, task)
    return await asyncio.shield(found[1])
