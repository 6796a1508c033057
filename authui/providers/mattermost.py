"""Mattermost: OAuth 2 sign-in with an account on a Mattermost server.

An administrator turns on *Enable OAuth 2.0 Service Provider* (System Console →
Integrations → Integration Management); then, in a team, Integrations → OAuth 2.0
Applications → Add OAuth 2.0 Application, with ``<origin>/auth/callback/mattermost`` as
its callback URL. ``AUTH_MATTERMOST_ID`` and ``AUTH_MATTERMOST_SECRET`` hold the client
id and secret, ``AUTH_MATTERMOST_ISSUER`` the server's URL (e.g.
``https://chat.example.com``).

Quirks:

- The endpoints are paths under the server URL: ``/oauth/authorize``,
  ``/oauth/access_token`` and ``/api/v4/users/me`` (the profile).
- Mattermost reads the client id and secret from the token request's form
  (``client_secret_post``) and does not read a PKCE verifier, so the round trip is
  protected by ``state``. It has no scopes: the authorization request sends none.
- The name is the ``username`` (always set), else the first and last names. Mattermost
  gives no picture URL that works without a session, so there is no image. Its
  ``email_verified`` says whether the address is verified; email linking relies on it.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, Profile, TokenSet
from authui.providers.server import ServerProvider, server_provider

PATHS = {
    "authorization": "/oauth/authorize",
    "token": "/oauth/access_token",
    "userinfo": "/api/v4/users/me",
}
"""Mattermost's endpoints, under the server URL."""


def Mattermost(**options: Any) -> ServerProvider:
    """Sign in with Mattermost. Pass ``issuer=`` (the server's URL) or set
    ``AUTH_MATTERMOST_ISSUER``; keyword arguments override any ``OAuthProvider``
    setting."""
    defaults: dict[str, Any] = {
        "id": "mattermost",
        "name": "Mattermost",
        "type": "oauth",
        "issuer": None,
        "authorization": Endpoint(),
        "checks": ("state",),
        "client_auth": "client_secret_post",
        "profile": _profile,
        "style": ProviderStyle(brand_color="#000", text="#fff"),
    }
    return server_provider(defaults, options, PATHS)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    names = (profile.get("first_name"), profile.get("last_name"))
    full_name = " ".join(p.strip() for p in names if isinstance(p, str) and p.strip())
    return {
        "id": str(profile["id"]),
        "name": profile.get("username") or full_name or None,
        "email": profile.get("email") or None,
        "image": None,
    }
