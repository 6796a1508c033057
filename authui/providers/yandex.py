"""Yandex: OAuth 2 sign-in with a Yandex ID account.

Register ``<origin>/auth/callback/yandex`` as a Redirect URI of your app (Yandex OAuth,
https://oauth.yandex.com → your app → Platforms → Web services), with the Yandex ID
permissions "Access to username, first name and surname, gender", "Access to email
address" and "Access to portrait"; ``AUTH_YANDEX_ID`` and ``AUTH_YANDEX_SECRET`` hold its
ClientID and Client secret.

Quirks:

- The profile is ``GET https://login.yandex.ru/info?format=json``, sent with
  ``Authorization: OAuth <token>``: that is the scheme Yandex ID documents for it, so
  the provider makes this request itself rather than sending the usual ``Bearer``.
- The name is ``display_name``, else ``real_name``, else ``first_name``, else the
  ``login``. The email is ``default_email``, else the first of ``emails``.
- The image is built from ``default_avatar_id`` (200 by 200 pixels, ``islands-200``) unless
  ``is_avatar_empty`` says the user still has the stub picture Yandex gives new accounts.
- Yandex does not say whether an address is verified: email linking stays off.
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

OAUTH_URL = "https://oauth.yandex.ru"
USERINFO_URL = "https://login.yandex.ru/info?format=json"
AVATAR_URL = "https://avatars.yandex.net/get-yapic"


def Yandex(**options: Any) -> OAuthProvider:
    """Sign in with Yandex. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "login:info login:email"}}``."""
    defaults: dict[str, Any] = {
        "id": "yandex",
        "name": "Yandex",
        "type": "oauth",
        "authorization": Endpoint(
            url=f"{OAUTH_URL}/authorize",
            params={"scope": "login:info login:email login:avatar"},
        ),
        "token": Endpoint(url=f"{OAUTH_URL}/token"),
        "userinfo": Endpoint(url=USERINFO_URL, request=_userinfo),
        "profile": _profile,
        "style": ProviderStyle(brand_color="#ffcc00", text="#000"),
    }
    return with_overrides(defaults, options)


async def _userinfo(call: UserinfoCall) -> Profile:
    url = call.provider.userinfo.url or USERINFO_URL
    token = call.tokens["access_token"]
    return dict(await call.get_json(url, Authorization=f"OAuth {token}"))


def avatar_url(profile: Profile) -> str | None:
    """The user's picture, 200 by 200 pixels, or ``None`` for the stub of a new account."""
    avatar = profile.get("default_avatar_id")
    if profile.get("is_avatar_empty") or not isinstance(avatar, str) or not avatar:
        return None
    return f"{AVATAR_URL}/{avatar}/islands-200"


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    emails = profile.get("emails") or []
    return {
        "id": str(profile["id"]),
        "name": profile.get("display_name")
        or profile.get("real_name")
        or profile.get("first_name")
        or profile.get("login"),
        "email": profile.get("default_email") or (emails[0] if emails else None),
        "image": avatar_url(profile),
    }
