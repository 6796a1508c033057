"""Nextcloud: OAuth 2 sign-in with an account on a Nextcloud server.

An administrator adds an OAuth 2.0 client (Administration settings → Security → OAuth
2.0 clients) with ``<origin>/auth/callback/nextcloud`` as its redirection URI.
``AUTH_NEXTCLOUD_ID`` and ``AUTH_NEXTCLOUD_SECRET`` hold the client identifier and
secret, ``AUTH_NEXTCLOUD_ISSUER`` the server's URL (e.g. ``https://cloud.example.com``,
with the path when Nextcloud is served under one).

Quirks:

- The endpoints are paths under the server URL: ``/apps/oauth2/authorize`` and
  ``/apps/oauth2/api/v1/token``. Nextcloud's OAuth 2 app has no scopes (a token reaches
  the whole account) and no PKCE, so the round trip is protected by ``state``.
- The token answer names the user (``user_id``); the profile is the provisioning API's
  ``GET /ocs/v1.php/cloud/users/<user_id>``, sent with ``OCS-APIRequest: true`` and
  asked for JSON. Its OCS envelope must say ``ok``.
- The name is ``displayname``; the image is the server's avatar of the user,
  ``<server>/avatar/<user_id>/512`` (a generated one when the user set none). Nextcloud
  does not say whether the email is verified.
- Access tokens last one hour and come with a refresh token.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, Profile, TokenSet, UserinfoCall
from authui.providers.server import ServerProvider, server_provider

PATHS = {
    "authorization": "/apps/oauth2/authorize",
    "token": "/apps/oauth2/api/v1/token",
    "userinfo": "/ocs/v1.php/cloud/users",
}
"""Nextcloud's endpoints, under the server URL; the user's id follows the userinfo path."""


class NextcloudError(Exception):
    """Nextcloud's provisioning API answered without the user's data."""


def Nextcloud(**options: Any) -> ServerProvider:
    """Sign in with Nextcloud. Pass ``issuer=`` (the server's URL) or set
    ``AUTH_NEXTCLOUD_ISSUER``; keyword arguments override any ``OAuthProvider``
    setting."""
    defaults: dict[str, Any] = {
        "id": "nextcloud",
        "name": "Nextcloud",
        "type": "oauth",
        "issuer": None,
        "authorization": Endpoint(),
        "userinfo": Endpoint(request=_userinfo),
        "checks": ("state",),
        "profile": _profile,
        "style": ProviderStyle(brand_color="#fff", text="#0082C9"),
    }
    return server_provider(defaults, options, PATHS)


def _user_path(user_id: Any) -> str:
    return quote(str(user_id), safe="")


async def _userinfo(call: UserinfoCall) -> Profile:
    """The provisioning API's record of the token's user, out of its OCS envelope."""
    user_id = call.tokens.get("user_id")
    if not user_id:
        raise NextcloudError("Nextcloud's token answer names no user_id")
    base = (call.provider.userinfo.url or "").rstrip("/")
    answer = await call.get_json(f"{base}/{_user_path(user_id)}", **{"OCS-APIRequest": "true"})
    ocs = answer.get("ocs") if isinstance(answer, dict) else None
    meta = ocs.get("meta") if isinstance(ocs, dict) else None
    data = ocs.get("data") if isinstance(ocs, dict) else None
    if not isinstance(meta, dict) or meta.get("status") != "ok" or not isinstance(data, dict):
        status = meta.get("statuscode") if isinstance(meta, dict) else None
        raise NextcloudError(f"Nextcloud's provisioning API answered status {status!r}")
    return data


def _profile(profile: Profile, tokens: TokenSet, call: UserinfoCall) -> dict[str, Any]:
    server = (call.provider.issuer or "").rstrip("/")
    return {
        "id": str(profile["id"]),
        "name": profile.get("displayname") or profile.get("display-name") or None,
        "email": profile.get("email") or None,
        "image": f"{server}/avatar/{_user_path(profile['id'])}/512" if server else None,
    }
