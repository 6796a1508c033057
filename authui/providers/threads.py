"""Threads: OAuth 2 sign-in with a Threads account, through Meta's Threads API.

Create a Meta app with the Threads use case (Meta for Developers → your app → Use cases →
Access the Threads API → Settings) and enter ``<origin>/auth/callback/threads`` as a
"Redirect Callback URL". ``AUTH_THREADS_ID`` and ``AUTH_THREADS_SECRET`` hold the
*Threads* app ID and app secret shown there (not the Meta app's own ID).

Quirks:

- The profile is ``GET https://graph.threads.net/v1.0/me`` with the fields ``id``,
  ``username``, ``name`` and ``threads_profile_picture_url``; the answer is a flat
  object. The name is the display name, else the username. Threads shares no email
  address.
- Threads takes the client secret in the token request's form (``client_secret_post``)
  and documents ``state``, not PKCE, so the round trip is protected by ``state``.
- The token answer has no ``token_type`` and no ``expires_in``: the access token is
  short-lived (one hour) and can be exchanged for a 60-day one with Threads'
  ``th_exchange_token`` grant, which authui does not do.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

GRAPH_URL = "https://graph.threads.net"
PROFILE_FIELDS = "id,username,name,threads_profile_picture_url"
"""The profile fields asked of ``/me``."""


def Threads(**options: Any) -> OAuthProvider:
    """Sign in with Threads. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "threads_basic,threads_content_publish"}}``
    (Threads separates scopes with commas)."""
    defaults: dict[str, Any] = {
        "id": "threads",
        "name": "Threads",
        "type": "oauth",
        "authorization": Endpoint(
            url="https://threads.net/oauth/authorize", params={"scope": "threads_basic"}
        ),
        "token": Endpoint(url=f"{GRAPH_URL}/oauth/access_token"),
        "userinfo": Endpoint(url=f"{GRAPH_URL}/v1.0/me?fields={PROFILE_FIELDS}"),
        "checks": ("state",),
        "client_auth": "client_secret_post",
        "profile": _profile,
        "style": ProviderStyle(brand_color="#000", text="#fff"),
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    return {
        "id": str(profile["id"]),
        "name": profile.get("name") or profile.get("username") or None,
        "email": None,
        "image": profile.get("threads_profile_picture_url") or None,
    }
