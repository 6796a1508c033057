"""Pipedrive: OAuth 2 sign-in with a Pipedrive account, through a Pipedrive app.

Create an app in Pipedrive's Developer Hub (a private app will do) and enter
``<origin>/auth/callback/pipedrive`` as its callback URL; ``AUTH_PIPEDRIVE_ID`` and
``AUTH_PIPEDRIVE_SECRET`` hold its client ID and client secret. The app's scopes are
chosen in the Developer Hub, not in the authorization request; the profile needs only
the always-granted ``base`` scope.

Quirks:

- The token answer carries ``api_domain``, the company's own API address
  (``https://<company>.pipedrive.com``), which Pipedrive asks apps to use with OAuth
  tokens. The profile is ``GET <api_domain>/api/v1/users/me``, or
  ``https://api.pipedrive.com/v1/users/me`` when the answer has no ``api_domain``.
- The profile is wrapped: ``{"success": true, "data": {…}}``. The account id is
  ``data.id`` (a number, stored as a string); ``icon_url`` is ``null`` for users
  without a picture.
- Pipedrive documents ``state``, not PKCE, so the round trip is protected by ``state``.
  The client authenticates with HTTP Basic, as Pipedrive documents.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from authui.providers.oauth import (
    Endpoint,
    OAuthProvider,
    Profile,
    TokenSet,
    UserinfoCall,
    with_overrides,
)

OAUTH_URL = "https://oauth.pipedrive.com"
USERINFO_URL = "https://api.pipedrive.com/v1/users/me"


def Pipedrive(**options: Any) -> OAuthProvider:
    """Sign in with Pipedrive. Keyword arguments override any ``OAuthProvider`` setting."""
    defaults: dict[str, Any] = {
        "id": "pipedrive",
        "name": "Pipedrive",
        "type": "oauth",
        "authorization": Endpoint(url=f"{OAUTH_URL}/oauth/authorize"),
        "token": Endpoint(url=f"{OAUTH_URL}/oauth/token"),
        "userinfo": Endpoint(url=USERINFO_URL, request=_userinfo),
        "checks": ("state",),
        "profile": _profile,
    }
    return with_overrides(defaults, options)


def company_api_url(tokens: TokenSet) -> str | None:
    """``<api_domain>/api/v1``, when the token answer names an https Pipedrive domain."""
    domain = tokens.get("api_domain")
    if not isinstance(domain, str):
        return None
    parts = urlsplit(domain)
    host = parts.hostname or ""
    if parts.scheme != "https" or not (host == "pipedrive.com" or host.endswith(".pipedrive.com")):
        return None
    return f"https://{parts.netloc}/api/v1"


async def _userinfo(call: UserinfoCall) -> Profile:
    """``/users/me`` at the company's API domain, else at the configured URL."""
    company = company_api_url(call.tokens)
    url = f"{company}/users/me" if company else call.provider.userinfo.url or USERINFO_URL
    return dict(await call.get_json(url))


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    data = profile["data"]
    return {
        "id": str(data["id"]),
        "name": data.get("name") or None,
        "email": data.get("email") or None,
        "image": data.get("icon_url") or None,
    }
