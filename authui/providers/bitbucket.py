"""Bitbucket: OAuth 2 sign-in with a Bitbucket Cloud (Atlassian) account.

Register ``<origin>/auth/callback/bitbucket`` as the "Callback URL" of an OAuth consumer
(Bitbucket → workspace settings → OAuth consumers → Add consumer, permission
"Account: Read"); ``AUTH_BITBUCKET_ID`` and ``AUTH_BITBUCKET_SECRET`` hold its key and
secret.

Quirks: the profile is ``GET /2.0/user`` (scope ``account``), which carries no email
address: Bitbucket users have none unless you fetch ``/2.0/user/emails`` yourself (scope
``email``). The account id is Atlassian's ``account_id``.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides


def Bitbucket(**options: Any) -> OAuthProvider:
    """Sign in with Bitbucket. Keyword arguments override any ``OAuthProvider``
    setting."""
    defaults: dict[str, Any] = {
        "id": "bitbucket",
        "name": "Bitbucket",
        "type": "oauth",
        "authorization": Endpoint(
            url="https://bitbucket.org/site/oauth2/authorize", params={"scope": "account"}
        ),
        "token": Endpoint(url="https://bitbucket.org/site/oauth2/access_token"),
        "userinfo": Endpoint(url="https://api.bitbucket.org/2.0/user"),
        "profile": _profile,
        "style": ProviderStyle(brand_color="#205081", text="#fff"),
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    links = profile.get("links")
    avatar = links.get("avatar") if isinstance(links, dict) else None
    return {
        "id": str(profile["account_id"]),
        "name": profile.get("display_name") or profile.get("username"),
        "email": None,
        "image": avatar.get("href") if isinstance(avatar, dict) else None,
    }
