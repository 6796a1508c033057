"""Figma: OAuth 2 sign-in with a Figma account.

Register ``<origin>/auth/callback/figma`` as a callback URL of an OAuth app
(https://www.figma.com/developers/apps); ``AUTH_FIGMA_ID`` and ``AUTH_FIGMA_SECRET`` hold
its client id and secret.

Quirks:

- Figma requires ``state``; authui sends a fresh one with every sign-in and checks it
  (Auth.js fixes one value when the provider is made, which guards nothing). PKCE is sent
  too.
- The default scope is ``current_user:read``, which is what ``GET /v1/me`` needs. Auth.js
  asks for ``files:read``, a broad scope Figma has deprecated in favour of narrow ones
  (``file_content:read`` …); add those yourself if you call the REST API with the token.
- The token endpoint ``https://api.figma.com/v1/oauth/token`` takes the client
  credentials as HTTP Basic. Its answer carries ``user_id_string`` besides the tokens;
  access tokens last 90 days (``expires_in``) and come with a refresh token.
- The profile (``id``, ``handle``, ``email``, ``img_url``) has no verification flag, so
  the email is not vouched for and email linking stays off.
- Figma's errors are not OAuth-shaped: ``{"error": true, "status": 400, "message": …}``.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

API_URL = "https://api.figma.com"


def Figma(**options: Any) -> OAuthProvider:
    """Sign in with Figma. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "current_user:read file_content:read"}}``."""
    defaults: dict[str, Any] = {
        "id": "figma",
        "name": "Figma",
        "type": "oauth",
        "authorization": Endpoint(
            url="https://www.figma.com/oauth", params={"scope": "current_user:read"}
        ),
        "token": Endpoint(url=f"{API_URL}/v1/oauth/token"),
        "userinfo": Endpoint(url=f"{API_URL}/v1/me"),
        "checks": ("pkce", "state"),
        "profile": _profile,
        "style": ProviderStyle(brand_color="#ff7237", text="#000"),
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    return {
        "id": str(profile["id"]),
        "name": profile.get("handle") or None,
        "email": profile.get("email") or None,
        "image": profile.get("img_url") or None,
    }
