"""Battle.net: OpenID Connect at Blizzard's OAuth service for a region.

Create a client at https://develop.battle.net/access/clients and add
``<origin>/auth/callback/battlenet`` to its *Redirect URLs*. ``AUTH_BATTLENET_ID`` and
``AUTH_BATTLENET_SECRET`` hold its client id and secret, ``AUTH_BATTLENET_ISSUER`` the
issuer of the region: ``https://oauth.battle.net`` (Americas, Europe, Korea and Taiwan)
or ``https://oauth.battlenet.com.cn`` (China). Auth.js also names the older regional
forms ``https://{us,eu,kr,tw}.battle.net/oauth`` and ``https://www.battlenet.com.cn/oauth``;
an issuer is accepted only when its discovery document names exactly that issuer.

Quirks: a Battle.net account has no email address or picture to give, and no real name:
the user's name is the BattleTag (``Name#1234``, the id_token's ``battle_tag``, or
userinfo's ``battletag``), which the player can change; ``sub`` is the stable account
id.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

ISSUERS = (
    "https://oauth.battle.net",
    "https://oauth.battlenet.com.cn",
    "https://www.battlenet.com.cn/oauth",
    "https://us.battle.net/oauth",
    "https://eu.battle.net/oauth",
    "https://kr.battle.net/oauth",
    "https://tw.battle.net/oauth",
)
"""The issuers Auth.js names for Battle.net's regions."""


def battlenet_profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    """``id`` ← ``sub``; ``name`` ← the BattleTag; no email, no image."""
    return {
        "id": str(profile["sub"]),
        "name": profile.get("battle_tag") or profile.get("battletag"),
        "email": None,
        "image": None,
    }


def BattleNet(**options: Any) -> OAuthProvider:
    """Sign in with Battle.net. Pass ``issuer=`` (one of ``ISSUERS``) or set
    ``AUTH_BATTLENET_ISSUER``; keyword arguments override any ``OAuthProvider`` setting."""
    defaults = {
        "id": "battlenet",
        "name": "Battle.net",
        "type": "oidc",
        "issuer": None,
        "authorization": Endpoint(params={"scope": "openid profile email"}),
        "profile": battlenet_profile,
        "style": ProviderStyle(brand_color="#148eff", text="#fff"),
    }
    return with_overrides(defaults, options)
