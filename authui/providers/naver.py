"""Naver: OAuth 2 sign-in with a Naver account (네이버 로그인).

In Naver Developers, register an application that uses 네이버 로그인 (Naver Login), choose
the member information it may read (email, nickname, profile photo …), add the PC web
environment and set its Callback URL to ``<origin>/auth/callback/naver``.
``AUTH_NAVER_ID`` and ``AUTH_NAVER_SECRET`` hold the Client ID and Client Secret.

Quirks:

- Naver takes the member information chosen for the application, so the authorization
  sends no ``scope``. ``state`` is required and PKCE is not documented: the round trip
  is protected by ``state``.
- The token request carries the client id and secret as parameters, the way Naver
  documents it (``client_secret_post``). A refused code is answered with status 200 and
  an ``error`` field; ``expires_in`` is a string (``"3600"``).
- The profile is ``GET https://openapi.naver.com/v1/nid/me``: ``resultcode``,
  ``message`` and the member in ``response`` (``id``, ``nickname``, ``name``, ``email``,
  ``profile_image``). The name is the nickname, else the real name. Naver does not say
  whether the email is verified.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

NID_URL = "https://nid.naver.com/oauth2.0"


def Naver(**options: Any) -> OAuthProvider:
    """Sign in with Naver. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"auth_type": "reprompt"}}``."""
    defaults: dict[str, Any] = {
        "id": "naver",
        "name": "Naver",
        "type": "oauth",
        "authorization": Endpoint(url=f"{NID_URL}/authorize"),
        "token": Endpoint(url=f"{NID_URL}/token"),
        "userinfo": Endpoint(url="https://openapi.naver.com/v1/nid/me"),
        "checks": ("state",),
        "client_auth": "client_secret_post",
        "profile": _profile,
        # Naver's green; white text stays under WCAG AA on it, black reads (9.3:1).
        "style": ProviderStyle(brand_color="#03C75A", text="#000"),
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    member = profile.get("response")
    if not isinstance(member, dict):
        member = {}
    return {
        "id": str(member["id"]),
        "name": member.get("nickname") or member.get("name") or None,
        "email": member.get("email") or None,
        "image": member.get("profile_image") or None,
    }
