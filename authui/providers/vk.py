"""VK: OAuth 2 sign-in with a VK (VKontakte) account, through ``oauth.vk.com``.

Create a "Website" app (vk.com/apps?act=manage), enter your site's address and base
domain, and add ``<origin>/auth/callback/vk`` to its "Authorized redirect URI"s;
``AUTH_VK_ID`` and ``AUTH_VK_SECRET`` hold the app ID and its "Secure key".

Quirks:

- Every request names the VK API version, ``v=5.131`` (``API_VERSION``).
- The email address is not part of the profile: VK sends it in the token answer
  (``email``), and only when the user grants the ``email`` scope.
- The profile is ``users.get`` of the VK API (``fields=photo_100``), which answers
  ``{"response": [{…}]}``, or ``{"error": {…}}`` with status 200 when it refuses. The
  name is ``first_name`` and ``last_name`` joined; the image ``photo_100``.
- The client secret goes in the token request's form (``client_secret_post``). VK
  documents ``state``, not PKCE, so the round trip is protected by ``state``. The token
  answer has no ``token_type`` (bearer is assumed).
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

API_VERSION = "5.131"
"""The VK API version every request names."""
OAUTH_URL = "https://oauth.vk.com"
USERINFO_URL = f"https://api.vk.com/method/users.get?fields=photo_100&v={API_VERSION}"


class VKError(Exception):
    """The VK API answered with an error object instead of a response."""


def VK(**options: Any) -> OAuthProvider:
    """Sign in with VK. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "email,friends"}}``."""
    defaults: dict[str, Any] = {
        "id": "vk",
        "name": "VK",
        "type": "oauth",
        "authorization": Endpoint(
            url=f"{OAUTH_URL}/authorize", params={"scope": "email", "v": API_VERSION}
        ),
        "token": Endpoint(url=f"{OAUTH_URL}/access_token?v={API_VERSION}"),
        "userinfo": Endpoint(url=USERINFO_URL, request=_userinfo),
        "checks": ("state",),
        "client_auth": "client_secret_post",
        "profile": _profile,
        # VK blue; white on it stays under WCAG AA (4.1:1), black text reads (5.1:1).
        "style": ProviderStyle(brand_color="#07F", text="#000"),
    }
    return with_overrides(defaults, options)


async def _userinfo(call: UserinfoCall) -> Profile:
    """The signed-in user from ``users.get``, with the token answer's ``email``.

    Raises:
        VKError: VK answered with an error object (status 200), or with no user.
    """
    answer = await call.get_json(call.provider.userinfo.url or USERINFO_URL)
    error = answer.get("error") if isinstance(answer, dict) else None
    if isinstance(error, dict):
        code, message = error.get("error_code"), error.get("error_msg")
        raise VKError(f"VK users.get answered error {code}: {message}")
    users = answer.get("response") if isinstance(answer, dict) else None
    if not isinstance(users, list) or not users or not isinstance(users[0], dict):
        raise VKError("VK users.get answered no user")
    email = call.tokens.get("email")
    return {**users[0], "email": email if isinstance(email, str) and email else None}


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    names = (profile.get("first_name"), profile.get("last_name"))
    name = " ".join(part.strip() for part in names if isinstance(part, str) and part.strip())
    return {
        "id": str(profile["id"]),
        "name": name or None,
        "email": profile.get("email"),
        "image": profile.get("photo_100") or None,
    }
