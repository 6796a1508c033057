"""Instagram: OAuth 2 sign-in with an Instagram professional (business or creator)
account, through the Instagram API with Instagram Login.

In the Meta App Dashboard, add the Instagram product to an app, open "API setup with
Instagram login" → "Set up Instagram business login" and add
``<origin>/auth/callback/instagram`` to its OAuth redirect URIs (Meta accepts only
``https`` ones). ``AUTH_INSTAGRAM_ID`` and ``AUTH_INSTAGRAM_SECRET`` hold the Instagram
app id and secret shown there.

Quirks:

- Meta shut the Instagram Basic Display API down on 4 December 2024, and its
  ``user_profile`` scope with it. The provider asks for ``instagram_business_basic``
  instead; personal Instagram accounts cannot sign in any more.
- Instagram takes the client secret in the token request's form
  (``client_secret_post``) and documents ``state`` but not PKCE, so the round trip is
  protected by ``state``. Its token answer has no ``token_type`` (taken as bearer) and
  may come wrapped in a ``data`` list; the granted ``permissions`` become the ``scope``.
  The token is short-lived (an hour); exchange it for a long-lived one yourself if the
  app calls Instagram later.
- The profile is ``GET https://graph.instagram.com/me`` with the fields named in the
  userinfo URL. Instagram never gives an email address. The name is the ``username``,
  as in Auth.js; the image is ``profile_picture_url``.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

API_URL = "https://api.instagram.com"
USERINFO_URL = (
    "https://graph.instagram.com/me?fields=id,username,account_type,name,profile_picture_url"
)


def conform_token(body: dict[str, Any]) -> dict[str, Any]:
    """Instagram's token answer unwrapped from its ``data`` list, its ``permissions`` (a
    list or a comma-separated string) as a space-separated ``scope``."""
    data = body.get("data")
    if isinstance(data, list) and data and isinstance(data[0], dict):
        body = {**data[0], **{k: v for k, v in body.items() if k != "data"}}
    permissions = body.get("permissions")
    if "scope" not in body and permissions:
        granted = permissions.split(",") if isinstance(permissions, str) else permissions
        body = {**body, "scope": " ".join(str(p).strip() for p in granted)}
    return body


def Instagram(**options: Any) -> OAuthProvider:
    """Sign in with Instagram. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "instagram_business_basic,
    instagram_business_manage_messages"}}``."""
    defaults: dict[str, Any] = {
        "id": "instagram",
        "name": "Instagram",
        "type": "oauth",
        "authorization": Endpoint(
            url=f"{API_URL}/oauth/authorize", params={"scope": "instagram_business_basic"}
        ),
        "token": Endpoint(url=f"{API_URL}/oauth/access_token", conform=conform_token),
        "userinfo": Endpoint(url=USERINFO_URL),
        "checks": ("state",),
        "client_auth": "client_secret_post",
        "profile": _profile,
        "style": ProviderStyle(brand_color="#fff", text="#000"),
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    return {
        "id": str(profile["id"]),
        "name": profile.get("username") or None,
        "email": None,
        "image": profile.get("profile_picture_url") or None,
    }
