"""Mastodon: OAuth 2 sign-in with an account on one Mastodon server.

On the server, open Preferences → Development → New application, give it the ``read``
scope and ``<origin>/auth/callback/mastodon`` as its redirect URI. ``AUTH_MASTODON_ID``
and ``AUTH_MASTODON_SECRET`` hold its client key and secret, ``AUTH_MASTODON_ISSUER`` the
server's URL (e.g. ``https://mastodon.social``).

Quirks:

- Every Mastodon server is its own authorization server: the provider signs in accounts
  of the one server its issuer names, and the account id is unique on that server only.
  The endpoints are paths under the server URL: ``/oauth/authorize``, ``/oauth/token``
  and ``/api/v1/accounts/verify_credentials`` (the profile).
- Mastodon supports PKCE since 4.3; older servers ignore it, so ``state`` is checked too.
- The profile has no email address. The name is the ``username``, as in Auth.js; the
  image is ``avatar_static`` (a server's default picture when the user has none).
- Access tokens do not expire; the token answer has no ``expires_in``.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, Profile, TokenSet
from authui.providers.server import ServerProvider, server_provider

PATHS = {
    "authorization": "/oauth/authorize",
    "token": "/oauth/token",
    "userinfo": "/api/v1/accounts/verify_credentials",
}
"""Mastodon's endpoints, under the server URL."""


def Mastodon(**options: Any) -> ServerProvider:
    """Sign in with Mastodon. Pass ``issuer=`` (the server's URL) or set
    ``AUTH_MASTODON_ISSUER``; keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "profile"}}``."""
    defaults: dict[str, Any] = {
        "id": "mastodon",
        "name": "Mastodon",
        "type": "oauth",
        "issuer": None,
        "authorization": Endpoint(params={"scope": "read"}),
        "checks": ("pkce", "state"),
        "profile": _profile,
        # Mastodon's darker brand purple, on which white text reads (7.3:1).
        "style": ProviderStyle(brand_color="#563ACC", text="#fff"),
    }
    return server_provider(defaults, options, PATHS)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    return {
        "id": str(profile["id"]),
        "name": profile.get("username") or None,
        "email": None,
        "image": profile.get("avatar_static") or profile.get("avatar") or None,
    }
