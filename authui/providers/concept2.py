"""Concept2: OAuth 2 sign-in with a Concept2 Logbook account.

Ask Concept2 for an API key for your application (https://log.concept2.com/developers),
with ``<origin>/auth/callback/concept2`` as its redirect URI; ``AUTH_CONCEPT2_ID`` and
``AUTH_CONCEPT2_SECRET`` hold its client id and secret. Concept2 has you develop
against ``https://log-dev.concept2.com`` before it approves the live API: pass
``server="https://log-dev.concept2.com"`` meanwhile.

Quirks:

- Scopes are separated by commas, not spaces: the default is ``user:read,results:write``
  (as in Auth.js); sign-in itself only needs ``user:read``.
- The profile is ``GET /api/users/me``, wrapped in ``data``, requested with the
  ``Accept: application/vnd.c2logbook.v1+json`` header Concept2 asks clients to send
  to pin the API version. The name is the logbook ``username``, else
  ``first_name last_name``; the image is ``profile_image``.
- Concept2 does not say whether the email is verified: email linking stays off.
"""

from __future__ import annotations

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

LOGBOOK_URL = "https://log.concept2.com"
API_ACCEPT = "application/vnd.c2logbook.v1+json"
"""The media type of version 1 of the Logbook API."""


def Concept2(*, server: str | None = None, **options: Any) -> OAuthProvider:
    """Sign in with Concept2.

    Args:
        server: The Logbook's base URL; unset: ``https://log.concept2.com``, e.g.
            ``"https://log-dev.concept2.com"`` for the development server.
        **options: Override any ``OAuthProvider`` setting, e.g.
            ``authorization={"params": {"scope": "user:read"}}``.
    """
    base = (server or LOGBOOK_URL).rstrip("/")
    defaults: dict[str, Any] = {
        "id": "concept2",
        "name": "Concept2",
        "type": "oauth",
        "authorization": Endpoint(
            url=f"{base}/oauth/authorize", params={"scope": "user:read,results:write"}
        ),
        "token": Endpoint(url=f"{base}/oauth/access_token"),
        "userinfo": Endpoint(url=f"{base}/api/users/me", request=_userinfo),
        "profile": _profile,
        "style": ProviderStyle(brand_color="#003a70", text="#fff"),
    }
    return with_overrides(defaults, options)


async def _userinfo(call: UserinfoCall) -> Profile:
    url = call.provider.userinfo.url or f"{LOGBOOK_URL}/api/users/me"
    return dict(await call.get_json(url, Accept=API_ACCEPT))


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    user = profile.get("data")
    data: dict[str, Any] = user if isinstance(user, dict) else {}
    names = (data.get("first_name"), data.get("last_name"))
    full_name = " ".join(n.strip() for n in names if isinstance(n, str) and n.strip())
    return {
        "id": str(data["id"]),
        "name": data.get("username") or full_name or None,
        "email": data.get("email") or None,
        "image": data.get("profile_image") or None,
    }
