"""FreshBooks: OAuth 2 sign-in with a FreshBooks account.

Create an app in the FreshBooks developer portal (https://my.freshbooks.com/#/developer)
with ``<origin>/auth/callback/freshbooks`` as a Redirect URI (FreshBooks accepts only
``https`` redirect URIs) and the scope ``user:profile:read``; ``AUTH_FRESHBOOKS_ID`` and
``AUTH_FRESHBOOKS_SECRET`` hold its Client ID and Client Secret.

Quirks:

- The user goes to ``https://auth.freshbooks.com/oauth/authorize``, the address
  FreshBooks documents (Auth.js uses the older ``/service/auth/oauth/authorize``).
  The button says "FreshBooks", the brand's spelling (Auth.js: "Freshbooks").
- The scope is ``user:profile:read``, the one ``/users/me`` needs. Auth.js sends no
  scope of its own and so falls back to ``openid profile email``, which are not
  FreshBooks scopes. Every scope asked for must be enabled in the app's settings.
- FreshBooks documents the client id and secret in the token request's body, so the
  client authenticates with ``client_secret_post``.
- The profile is ``GET https://api.freshbooks.com/auth/api/v1/users/me``, wrapped in
  ``response``. The name is ``first_name last_name`` (what is there of it); FreshBooks
  has no picture. ``confirmed_at`` is set once the user confirmed their email, and
  ``email_verified`` reads it.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

API_URL = "https://api.freshbooks.com"


def FreshBooks(**options: Any) -> OAuthProvider:
    """Sign in with FreshBooks. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "user:profile:read user:clients:read"}}``."""
    defaults: dict[str, Any] = {
        "id": "freshbooks",
        "name": "FreshBooks",
        "type": "oauth",
        "authorization": Endpoint(
            url="https://auth.freshbooks.com/oauth/authorize",
            params={"scope": "user:profile:read"},
        ),
        "token": Endpoint(url=f"{API_URL}/auth/oauth/token"),
        "userinfo": Endpoint(url=f"{API_URL}/auth/api/v1/users/me"),
        "client_auth": "client_secret_post",
        "profile": _profile,
        "email_verified": _email_verified,
        "style": ProviderStyle(brand_color="#0075dd", text="#fff"),
    }
    return with_overrides(defaults, options)


def _identity(profile: Profile) -> dict[str, Any]:
    identity = profile.get("response")
    return identity if isinstance(identity, dict) else {}


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    identity = _identity(profile)
    names = (identity.get("first_name"), identity.get("last_name"))
    return {
        "id": str(identity["id"]),
        "name": " ".join(n.strip() for n in names if isinstance(n, str) and n.strip()) or None,
        "email": identity.get("email") or None,
        "image": None,
    }


def _email_verified(profile: Profile) -> bool:
    identity = _identity(profile)
    return bool(identity.get("confirmed_at")) and bool(identity.get("email"))
