"""Atlassian: OAuth 2 (3LO) sign-in with an Atlassian account (Jira, Confluence …).

Register ``<origin>/auth/callback/atlassian`` as the "Callback URL" of an OAuth 2.0
integration (developer.atlassian.com → Developer console → your app → Authorization),
and add the User Identity API with ``read:me``; ``AUTH_ATLASSIAN_ID`` and
``AUTH_ATLASSIAN_SECRET`` hold its client id and secret.

Quirks: Atlassian checks ``state``, not PKCE, and the authorization names the API
(``audience=api.atlassian.com``). The profile is ``GET https://api.atlassian.com/me``.
It does not say whether the email is verified.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides


def Atlassian(**options: Any) -> OAuthProvider:
    """Sign in with Atlassian. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "read:me offline_access", "prompt":
    "consent"}}`` for a refresh token."""
    defaults: dict[str, Any] = {
        "id": "atlassian",
        "name": "Atlassian",
        "type": "oauth",
        "authorization": Endpoint(
            url="https://auth.atlassian.com/authorize",
            params={"audience": "api.atlassian.com", "scope": "read:me"},
        ),
        "token": Endpoint(url="https://auth.atlassian.com/oauth/token"),
        "userinfo": Endpoint(url="https://api.atlassian.com/me"),
        "checks": ("state",),
        "profile": _profile,
        "style": ProviderStyle(brand_color="#fff", text="#0052cc"),
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    return {
        "id": str(profile["account_id"]),
        "name": profile.get("name"),
        "email": profile.get("email"),
        "image": profile.get("picture"),
    }
