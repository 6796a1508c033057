"""Bungie: OAuth 2 sign-in with a Bungie.net account (Destiny).

Create an application at bungie.net/en/Application with the OAuth client type
"Confidential" and ``<origin>/auth/callback/bungie`` as its redirect URL (Bungie wants
HTTPS, also in development). ``AUTH_BUNGIE_ID`` and ``AUTH_BUNGIE_SECRET`` hold its
OAuth client id and secret. Every Bungie.net API call also needs the application's API
key: pass it as ``Bungie(api_key=…)`` or set ``AUTH_BUNGIE_KEY``.

Quirks:

- Bungie.net has no OAuth scopes (the application's settings hold them); authui sends
  none. The authorization URL carries ``reauth=true``, as Auth.js's does.
- The token request authenticates with HTTP Basic. Bungie.net does not support PKCE, so
  the round trip is protected by ``state``. The token answer names the account in
  ``membership_id``; access tokens last an hour, refresh tokens 90 days.
- The profile is ``GET /Platform/User/GetMembershipsForCurrentUser/`` with the
  ``X-API-Key`` header. Bungie.net wraps it: the user is ``Response.bungieNetUser``, and
  an answer whose ``ErrorCode`` is not 1 is a failure. No email address is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import (
    Endpoint,
    OAuthProvider,
    Profile,
    TokenSet,
    UserinfoCall,
    with_overrides,
)

SITE_URL = "https://www.bungie.net"
API_URL = f"{SITE_URL}/Platform"
SUCCESS = 1
"""Bungie.net's ``ErrorCode`` for a successful call."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BungieProvider(OAuthProvider):
    """An ``OAuthProvider`` with the application's API key.

    Attributes:
        api_key: Sent as ``X-API-Key`` with the profile request (``AUTH_BUNGIE_KEY``).
    """

    api_key: str | None = None


def Bungie(*, api_key: str | None = None, **options: Any) -> BungieProvider:
    """Sign in with Bungie.net.

    Args:
        api_key: The application's API key, sent as ``X-API-Key`` with the profile
            request; also accepted as ``options={"api_key": …}`` or from
            ``AUTH_BUNGIE_KEY``. Required.
        **options: Override any ``OAuthProvider`` setting.
    """
    given = dict(options.get("options") or {})
    key = api_key or given.pop("api_key", None)
    if "options" in options:
        options = {**options, "options": given}
    defaults: dict[str, Any] = {
        "id": "bungie",
        "name": "Bungie",
        "type": "oauth",
        "authorization": Endpoint(url=f"{SITE_URL}/en/OAuth/Authorize", params={"reauth": "true"}),
        "token": Endpoint(url=f"{SITE_URL}/platform/app/oauth/token/"),
        "userinfo": Endpoint(
            url=f"{API_URL}/User/GetMembershipsForCurrentUser/", request=_userinfo
        ),
        "checks": ("state",),
        "profile": _profile,
        "style": ProviderStyle(brand_color="#000", text="#fff"),
    }
    return with_overrides({**defaults, "api_key": key}, options, BungieProvider)


async def _userinfo(call: UserinfoCall) -> Profile:
    """The signed-in user's memberships, with the API key Bungie.net asks of every call."""
    key = getattr(call.provider, "api_key", None)
    if not key:
        raise ValueError(
            "Bungie.net needs the application's API key: Bungie(api_key=...) or AUTH_BUNGIE_KEY"
        )
    url = call.provider.userinfo.url or f"{API_URL}/User/GetMembershipsForCurrentUser/"
    answer: Profile = dict(await call.get_json(url, **{"X-API-Key": str(key)}))
    user = (answer.get("Response") or {}).get("bungieNetUser")
    if answer.get("ErrorCode") != SUCCESS or not isinstance(user, dict):
        status, message = answer.get("ErrorStatus"), answer.get("Message")
        raise ValueError(f"Bungie.net answered {status}: {message}")
    return answer


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    user = profile["Response"]["bungieNetUser"]
    path = user.get("profilePicturePath")
    image = None
    if isinstance(path, str) and path:
        image = path if path.startswith("https://") else f"{SITE_URL}/{path.lstrip('/')}"
    return {
        "id": str(user["membershipId"]),
        "name": user.get("displayName") or user.get("uniqueName") or None,
        "email": None,
        "image": image,
    }
