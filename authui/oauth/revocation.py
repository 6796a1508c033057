"""Token revocation (RFC 7009): telling a provider that a token is no longer wanted, so
that it stops working there too (an unlinked account's)."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx

from authui.oauth.client_auth import authenticate
from authui.oauth.discovery import DiscoveryCache
from authui.oauth.http import fetch
from authui.providers.oauth import OAuthProvider


class RevocationError(Exception):
    """The provider did not revoke the token; the message says why (never the token)."""


async def revocation_endpoint(provider: OAuthProvider, discovery: DiscoveryCache) -> str | None:
    """The provider's revocation endpoint: its ``revocation``, else its discovery
    document's ``revocation_endpoint``; ``None`` when it has neither."""
    if provider.revocation:
        return provider.revocation
    if not provider.issuer:
        return None
    try:
        document = await discovery.discover(provider)
    except Exception:
        return None
    endpoint = document.get("revocation_endpoint")
    if not isinstance(endpoint, str) or urlsplit(endpoint).scheme not in ("http", "https"):
        return None
    return endpoint


async def revoke(
    provider: OAuthProvider, endpoint: str, token: str, hint: str, issuer: str | None = None
) -> None:
    """Revoke ``token`` (``hint``: ``"refresh_token"`` or ``"access_token"``) at
    ``endpoint``, the client authenticated as at the token endpoint.

    Raises:
        RevocationError: The provider answered with an error, or could not be reached.
    """
    form = {"token": token, "token_type_hint": hint}
    headers = {
        "Content-Type": "application/x-www-form-urlencoded;charset=UTF-8",
        **authenticate(provider, endpoint, issuer or provider.issuer, form),
    }
    try:
        response = await fetch(
            provider, httpx.Request("POST", endpoint, headers=headers, data=form)
        )
    except httpx.HTTPError as exc:
        raise RevocationError(f"{endpoint} could not be reached: {type(exc).__name__}") from exc
    if not response.is_success:
        raise RevocationError(f"{endpoint} answered {response.status_code}")
