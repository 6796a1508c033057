"""Kakao: OAuth 2 sign-in with a Kakao account (Kakao Login).

In Kakao Developers, open your app → Kakao Login: turn it on, add
``<origin>/auth/callback/kakao`` to the Redirect URIs and choose the consent items
(nickname, profile image, email). ``AUTH_KAKAO_ID`` holds the app's REST API key,
``AUTH_KAKAO_SECRET`` the client secret (Kakao Login → Security).

Quirks:

- Kakao asks for the consent items configured in the app, so the authorization sends no
  ``scope`` (Auth.js sends an empty one). Pass a scope to ask for more items later.
- Kakao takes the client secret in the token request's form (``client_secret_post``).
  Kakao's own SDKs use PKCE, and ``state`` is documented: the provider checks both.
- The profile is ``GET https://kapi.kakao.com/v2/user/me``; what the user consented to
  is nested in ``kakao_account`` (``profile.nickname``, ``profile.profile_image_url``,
  ``email``). The numeric ``id`` is the account id. A user without a photo has Kakao's
  default image (``is_default_image``), which gives no image.
- ``is_email_valid`` and ``is_email_verified`` together say whether the address is
  verified; email linking relies on them.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides


def Kakao(**options: Any) -> OAuthProvider:
    """Sign in with Kakao. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "account_email"}}``."""
    defaults: dict[str, Any] = {
        "id": "kakao",
        "name": "Kakao",
        "type": "oauth",
        "authorization": Endpoint(url="https://kauth.kakao.com/oauth/authorize"),
        "token": Endpoint(url="https://kauth.kakao.com/oauth/token"),
        "userinfo": Endpoint(url="https://kapi.kakao.com/v2/user/me"),
        "checks": ("pkce", "state"),
        "client_auth": "client_secret_post",
        "profile": _profile,
        "email_verified": _email_verified,
        # Kakao's yellow with black text, from its login button guide.
        "style": ProviderStyle(brand_color="#FEE500", text="#000000"),
    }
    return with_overrides(defaults, options)


def _account(profile: Profile) -> dict[str, Any]:
    account = profile.get("kakao_account")
    return account if isinstance(account, dict) else {}


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    account = _account(profile)
    public = account.get("profile")
    if not isinstance(public, dict):
        public = {}
    legacy = profile.get("properties")
    if not isinstance(legacy, dict):
        legacy = {}
    image = None if public.get("is_default_image") else public.get("profile_image_url")
    return {
        "id": str(profile["id"]),
        "name": public.get("nickname") or legacy.get("nickname") or None,
        "email": account.get("email") or None,
        "image": image or None,
    }


def _email_verified(profile: Profile) -> bool:
    account = _account(profile)
    return (
        bool(account.get("email"))
        and account.get("is_email_valid") is True
        and account.get("is_email_verified") is True
    )
