"""Notion: OAuth 2 sign-in with a Notion account, through a public integration.

Register ``<origin>/auth/callback/notion`` as a "Redirect URI" of a public integration
(notion.so/my-integrations → your integration → Distribution); ``AUTH_NOTION_ID`` and
``AUTH_NOTION_SECRET`` hold its OAuth client id and secret.

Quirks: Notion has no scopes; the authorization asks for ``owner=user``. The access token
belongs to the integration's bot, so the profile is ``GET /v1/users/me`` (with the
``Notion-Version`` header) and then the bot's owner, ``bot.owner.user``: a Notion user
with ``id``, ``name``, ``avatar_url`` and ``person.email``. Notion does not say whether
the email is verified.
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

API_URL = "https://api.notion.com"
NOTION_VERSION = "2022-06-28"
"""The API version sent as ``Notion-Version``."""


def Notion(**options: Any) -> OAuthProvider:
    """Sign in with Notion. Keyword arguments override any ``OAuthProvider`` setting."""
    defaults: dict[str, Any] = {
        "id": "notion",
        "name": "Notion",
        "type": "oauth",
        "authorization": Endpoint(url=f"{API_URL}/v1/oauth/authorize", params={"owner": "user"}),
        "token": Endpoint(url=f"{API_URL}/v1/oauth/token"),
        "userinfo": Endpoint(url=f"{API_URL}/v1/users/me", request=_userinfo),
        "profile": _profile,
        "style": ProviderStyle(brand_color="#fff", text="#000"),
    }
    return with_overrides(defaults, options)


async def _userinfo(call: UserinfoCall) -> Profile:
    """The user who owns the bot the token belongs to.

    Raises:
        ValueError: The bot belongs to a workspace, not a user.
    """
    url = call.provider.userinfo.url or f"{API_URL}/v1/users/me"
    me = await call.get_json(url, **{"Notion-Version": NOTION_VERSION})
    bot = me.get("bot") if isinstance(me, dict) else None
    owner = bot.get("owner") if isinstance(bot, dict) else None
    user = owner.get("user") if isinstance(owner, dict) else None
    if not isinstance(user, dict):
        raise ValueError("Notion's token is not owned by a user (authorize with owner=user)")
    return dict(user)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    person = profile.get("person")
    return {
        "id": str(profile["id"]),
        "name": profile.get("name"),
        "email": person.get("email") if isinstance(person, dict) else None,
        "image": profile.get("avatar_url"),
    }
