"""Dropbox: OAuth 2 sign-in with a Dropbox account.

Register ``<origin>/auth/callback/dropbox`` under "Redirect URIs" of your app (Dropbox App
Console → your app → Settings), and enable the ``account_info.read`` permission;
``AUTH_DROPBOX_ID`` and ``AUTH_DROPBOX_SECRET`` hold the app key and secret.

Quirks: the profile is ``POST /2/users/get_current_account`` (an RPC call without a
body). ``token_access_type=offline`` asks for a refresh token next to the short-lived
access token. Dropbox's answer has ``email_verified``; email linking relies on it.
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
    email_verified_claim,
    with_overrides,
)

USERINFO_URL = "https://api.dropboxapi.com/2/users/get_current_account"


def Dropbox(**options: Any) -> OAuthProvider:
    """Sign in with Dropbox. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "account_info.read files.metadata.read"}}``."""
    defaults: dict[str, Any] = {
        "id": "dropbox",
        "name": "Dropbox",
        "type": "oauth",
        "authorization": Endpoint(
            url="https://www.dropbox.com/oauth2/authorize",
            params={"token_access_type": "offline", "scope": "account_info.read"},
        ),
        "token": Endpoint(url="https://api.dropboxapi.com/oauth2/token"),
        "userinfo": Endpoint(url=USERINFO_URL, request=_userinfo),
        "profile": _profile,
        "email_verified": email_verified_claim,
        "style": ProviderStyle(brand_color="#0061fe"),
    }
    return with_overrides(defaults, options)


async def _userinfo(call: UserinfoCall) -> Profile:
    profile: Profile = dict(
        await call.send_json("POST", call.provider.userinfo.url or USERINFO_URL)
    )
    return profile


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    name = profile.get("name")
    return {
        "id": str(profile["account_id"]),
        "name": name.get("display_name") if isinstance(name, dict) else None,
        "email": profile.get("email"),
        "image": profile.get("profile_photo_url"),
    }
