"""Mail.ru: OAuth 2 sign-in with a Mail.ru account (@mail.ru, @inbox.ru, @list.ru, @bk.ru …).

Create an application at https://o2.mail.ru/app/ with ``<origin>/auth/callback/mailru`` as
its redirect URI; ``AUTH_MAILRU_ID`` and ``AUTH_MAILRU_SECRET`` hold its client id
(app id) and secret.

Quirks:

- Mail.ru requires ``state`` with the authorization request, and supports PKCE: the
  provider sends both (Auth.js sends only PKCE).
- The profile is ``GET https://oauth.mail.ru/userinfo`` (scope ``userinfo``). Mail.ru
  documents the access token as the ``access_token`` query parameter there, so the
  provider sends it that way as well as the bearer header. An answer with an ``error``
  field ends the sign-in.
- The name is ``name``, else ``first_name last_name``, else ``nickname``; the image is
  ``image`` (Auth.js's default mapping looks for ``picture`` and finds none). Mail.ru does
  not say whether the email is verified, so it is not trusted for email linking.
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

OAUTH_URL = "https://oauth.mail.ru"


class MailruError(Exception):
    """Mail.ru's userinfo answered with an ``error`` instead of a profile."""


def Mailru(**options: Any) -> OAuthProvider:
    """Sign in with Mail.ru. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"prompt": "login"}}``."""
    defaults: dict[str, Any] = {
        "id": "mailru",
        "name": "Mail.ru",
        "type": "oauth",
        "authorization": Endpoint(url=f"{OAUTH_URL}/login", params={"scope": "userinfo"}),
        "token": Endpoint(url=f"{OAUTH_URL}/token"),
        "userinfo": Endpoint(url=f"{OAUTH_URL}/userinfo", request=_userinfo),
        "checks": ("pkce", "state"),
        "profile": _profile,
        # Mail.ru's blue.
        "style": ProviderStyle(brand_color="#005FF9", text="#fff"),
    }
    return with_overrides(defaults, options)


async def _userinfo(call: UserinfoCall) -> Profile:
    import httpx

    url = httpx.URL(call.provider.userinfo.url or f"{OAUTH_URL}/userinfo")
    url = url.copy_merge_params({"access_token": call.tokens["access_token"]})
    profile = await call.get_json(str(url))
    if not isinstance(profile, dict) or "error" in profile:
        detail = profile.get("error_description") if isinstance(profile, dict) else None
        error = profile.get("error") if isinstance(profile, dict) else "not a JSON object"
        raise MailruError(f"Mail.ru's userinfo answered {error!r}: {detail or ''}")
    return profile


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    parts = (profile.get("first_name"), profile.get("last_name"))
    full_name = " ".join(p.strip() for p in parts if isinstance(p, str) and p.strip())
    return {
        "id": str(profile["id"]),
        "name": profile.get("name") or full_name or profile.get("nickname") or None,
        "email": profile.get("email") or None,
        "image": profile.get("image") or None,
    }
