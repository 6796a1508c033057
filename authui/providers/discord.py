"""Discord: OAuth 2 sign-in with a Discord account.

Register ``<origin>/auth/callback/discord`` as a redirect of your application (Discord
Developer Portal → your application → OAuth2 → Redirects); ``AUTH_DISCORD_ID`` and
``AUTH_DISCORD_SECRET`` hold its client id and secret.

Quirks: the profile is ``GET /api/users/@me`` (scopes ``identify email``). The name is the
display name (``global_name``), else the username. The image is built from the avatar
hash on Discord's CDN: animated avatars (hash ``a_…``) as GIF, and a user without an
avatar gets Discord's default one. Discord's ``verified`` field says whether the email
is verified; email linking relies on it.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

API_URL = "https://discord.com/api"
CDN_URL = "https://cdn.discordapp.com"


def Discord(**options: Any) -> OAuthProvider:
    """Sign in with Discord. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"scope": "identify email guilds"}}``."""
    defaults: dict[str, Any] = {
        "id": "discord",
        "name": "Discord",
        "type": "oauth",
        "authorization": Endpoint(
            url=f"{API_URL}/oauth2/authorize", params={"scope": "identify email"}
        ),
        "token": Endpoint(url=f"{API_URL}/oauth2/token"),
        "userinfo": Endpoint(url=f"{API_URL}/users/@me"),
        "profile": _profile,
        "email_verified": _email_verified,
        "style": ProviderStyle(brand_color="#5865F2", text="#fff"),
    }
    return with_overrides(defaults, options)


def avatar_url(profile: Profile) -> str:
    """The user's avatar on Discord's CDN, or the default avatar Discord shows."""
    user_id = str(profile["id"])
    avatar = profile.get("avatar")
    if isinstance(avatar, str) and avatar:
        extension = "gif" if avatar.startswith("a_") else "png"
        return f"{CDN_URL}/avatars/{user_id}/{avatar}.{extension}"
    discriminator = str(profile.get("discriminator") or "0")
    # Unique usernames (discriminator "0"): six defaults, chosen by the id's timestamp
    # bits; legacy Name#1234 accounts: five, chosen by the discriminator.
    index = (int(user_id) >> 22) % 6 if discriminator == "0" else int(discriminator) % 5
    return f"{CDN_URL}/embed/avatars/{index}.png"


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    return {
        "id": str(profile["id"]),
        "name": profile.get("global_name") or profile.get("username"),
        "email": profile.get("email"),
        "image": avatar_url(profile),
    }


def _email_verified(profile: Profile) -> bool:
    return profile.get("verified") is True and bool(profile.get("email"))
