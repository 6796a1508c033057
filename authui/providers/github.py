"""GitHub: OAuth 2 sign-in with a GitHub account (github.com or GitHub Enterprise Server).

Register ``<origin>/auth/callback/github`` as the "Authorization callback URL" of an OAuth
app (GitHub → Settings → Developer settings → OAuth Apps); ``AUTH_GITHUB_ID`` and
``AUTH_GITHUB_SECRET`` hold its client id and secret.

Quirks:

- GitHub has no id_token: the profile is ``GET /user`` of the REST API, sent with a
  ``User-Agent`` header (GitHub refuses requests without one).
- ``/user`` shows only the *public* email, often ``null``. The profile then takes the
  primary verified address from ``GET /user/emails`` (scope ``user:email``). That list also
  says whether a public address is verified; the profile records it as
  ``email_verified``, which email linking requires.
- GitHub sends ``iss=https://github.com/login/oauth`` with the callback (RFC 9207); the
  provider's ``issuer`` is that URL, so a callback from another server is refused.
"""

from __future__ import annotations

from typing import Any

import httpx

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

GITHUB_URL = "https://github.com"
API_URL = "https://api.github.com"
API_HEADERS = {
    "User-Agent": "authui",
    "Accept": "application/vnd.github+json",
    "X-GitHub-Api-Version": "2022-11-28",
}
"""Sent with the REST API requests of the profile."""


def GitHub(*, enterprise_url: str | None = None, **options: Any) -> OAuthProvider:
    """Sign in with GitHub.

    Args:
        enterprise_url: The base URL of a GitHub Enterprise Server, e.g.
            ``"https://github.example.com"``: sign-in goes to ``<base>/login/oauth/…`` and
            the profile comes from ``<base>/api/v3/user``. Also accepted as
            ``options={"enterprise_url": …}``. Unset: github.com.
        **options: Override any ``OAuthProvider`` setting, e.g.
            ``authorization={"params": {"scope": "read:user"}}``.
    """
    given = dict(options.get("options") or {})
    base = (enterprise_url or given.get("enterprise_url") or "").rstrip("/")
    site, api = (base, f"{base}/api/v3") if base else (GITHUB_URL, API_URL)
    defaults: dict[str, Any] = {
        "id": "github",
        "name": "GitHub",
        "type": "oauth",
        "issuer": f"{site}/login/oauth",
        "authorization": Endpoint(
            url=f"{site}/login/oauth/authorize", params={"scope": "read:user user:email"}
        ),
        "token": Endpoint(url=f"{site}/login/oauth/access_token"),
        "userinfo": Endpoint(url=f"{api}/user", request=_userinfo),
        "profile": _profile,
        "email_verified": email_verified_claim,
        "style": ProviderStyle(brand_color="#24292f", text="#fff"),
        "options": {"enterprise_url": base} if base else {},
    }
    return with_overrides(defaults, options)


async def _userinfo(call: UserinfoCall) -> Profile:
    """``/user``, its email completed and checked against ``/user/emails``."""
    url = (call.provider.userinfo.url or f"{API_URL}/user").rstrip("/")
    profile: Profile = dict(await call.get_json(url, **API_HEADERS))
    try:
        answer = await call.get_json(f"{url}/emails", **API_HEADERS)
    except httpx.HTTPStatusError:  # the user:email scope was not granted
        answer = []
    emails = [e for e in answer if isinstance(e, dict) and isinstance(e.get("email"), str)]
    public = profile.get("email")
    if isinstance(public, str) and public:
        profile["email_verified"] = any(
            e["email"].lower() == public.lower() and e.get("verified") is True for e in emails
        )
    elif emails:
        chosen = min(
            emails,
            key=lambda e: (e.get("verified") is not True, e.get("primary") is not True),
        )
        profile["email"] = chosen["email"]
        profile["email_verified"] = chosen.get("verified") is True
    else:
        profile["email_verified"] = False
    return profile


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    return {
        "id": str(profile["id"]),
        "name": profile.get("name") or profile.get("login"),
        "email": profile.get("email"),
        "image": profile.get("avatar_url"),
    }
