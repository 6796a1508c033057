"""Refreshing an OAuth access token: whether one may still be sent, and the provider's
answer to a refresh token, a failure of which is a ``RefreshTokenError``."""

from __future__ import annotations

import time

import httpx

from authui.errors import AuthError, RefreshTokenError
from authui.oauth.discovery import DiscoveryCache, DiscoveryError
from authui.oauth.http import ProviderHTTPError
from authui.oauth.tokens import TokenError, refresh
from authui.providers.oauth import OAuthProvider, TokenSet

REFRESH_SKEW = 60
"""Seconds before ``expires_at`` that an access token counts as expired already: the
request it goes with still has time to reach the provider's API."""


def still_valid(
    access_token: object, expires_at: object, skew: int = REFRESH_SKEW, now: float | None = None
) -> bool:
    """Whether an access token may still be sent: there is one, and it expires more than
    ``skew`` seconds from now (an unknown expiry counts as valid: the provider said
    nothing about it)."""
    if not isinstance(access_token, str) or not access_token:
        return False
    if not isinstance(expires_at, int | float) or isinstance(expires_at, bool):
        return expires_at is None
    moment = time.time() if now is None else now
    return expires_at - skew > moment


async def refreshed(discovery: DiscoveryCache, provider: OAuthProvider, token: str) -> TokenSet:
    """The provider's answer to a refresh with ``token``.

    Raises:
        RefreshTokenError: The provider refused it, or could not be reached or found.
    """
    try:
        found = await discovery.endpoints(provider, need=("token",))
        return await refresh(provider, found, token)
    except AuthError:
        raise
    except (ProviderHTTPError, TokenError, DiscoveryError, httpx.HTTPError) as exc:
        raise RefreshTokenError(
            f"The {provider.id} token endpoint refused the refresh: {exc}"
        ) from exc
