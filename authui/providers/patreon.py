"""Patreon: OAuth 2 sign-in with a Patreon account.

Register ``<origin>/auth/callback/patreon`` as a redirect URI of an OAuth client (Patreon
→ Creator settings → Developers → Clients & API keys); ``AUTH_PATREON_ID`` and
``AUTH_PATREON_SECRET`` hold its client id and secret.

Quirks:

- The profile is API v2's ``GET /api/oauth2/v2/identity``, a JSON:API document
  (``{"data": {"id", "type": "user", "attributes": {…}}}``). v2 returns only the
  attributes named in ``fields[user]``, so the userinfo URL names them. Auth.js reads
  API v1's ``current_user`` instead, which Patreon no longer develops; the ``identity
  identity[email]`` scopes both ask for are v2 scopes.
- Patreon takes the client secret in the token request's form (``client_secret_post``)
  and documents ``state``, not PKCE, so the round trip is protected by ``state``.
- ``email`` needs the ``identity[email]`` scope; ``is_email_verified`` says whether the
  address is verified, and email linking relies on it.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

PATREON_URL = "https://www.patreon.com"
USER_FIELDS = "email,first_name,full_name,image_url,is_email_verified,vanity"
"""The user attributes asked of the identity endpoint."""
USERINFO_URL = f"{PATREON_URL}/api/oauth2/v2/identity?fields%5Buser%5D={USER_FIELDS}"


def Patreon(**options: Any) -> OAuthProvider:
    """Sign in with Patreon. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "identity identity[email]
    identity.memberships"}}``."""
    defaults: dict[str, Any] = {
        "id": "patreon",
        "name": "Patreon",
        "type": "oauth",
        "authorization": Endpoint(
            url=f"{PATREON_URL}/oauth2/authorize",
            params={"scope": "identity identity[email]"},
        ),
        "token": Endpoint(url=f"{PATREON_URL}/api/oauth2/token"),
        "userinfo": Endpoint(url=USERINFO_URL),
        "checks": ("state",),
        "client_auth": "client_secret_post",
        "profile": _profile,
        "email_verified": _email_verified,
        "style": ProviderStyle(brand_color="#000000", text="#ffffff"),
    }
    return with_overrides(defaults, options)


def _attributes(profile: Profile) -> dict[str, Any]:
    attributes = profile["data"].get("attributes")
    return attributes if isinstance(attributes, dict) else {}


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    attributes = _attributes(profile)
    return {
        "id": str(profile["data"]["id"]),
        "name": attributes.get("full_name") or attributes.get("vanity") or None,
        "email": attributes.get("email") or None,
        "image": attributes.get("image_url") or None,
    }


def _email_verified(profile: Profile) -> bool:
    attributes = _attributes(profile)
    return attributes.get("is_email_verified") is True and bool(attributes.get("email"))
