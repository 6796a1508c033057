"""Twitch: OpenID Connect at ``https://id.twitch.tv/oauth2``.

Register ``<origin>/auth/callback/twitch`` as an OAuth Redirect URL of the application in
the Twitch developer console; ``AUTH_TWITCH_ID`` and ``AUTH_TWITCH_SECRET`` hold its client
id and secret.

Quirks: Twitch puts ``email``, ``picture`` and ``preferred_username`` in the id_token only
when the ``claims`` parameter asks for them (and ``email`` needs the
``user:read:email`` scope); the client secret goes in the token request's form; the token
response's ``scope`` is a JSON array, joined here into the usual space-separated string.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides

CLAIMS = {"id_token": {"email": None, "picture": None, "preferred_username": None}}
"""The id_token claims Twitch is asked for (sent as JSON)."""


def conform_token(body: dict[str, Any]) -> dict[str, Any]:
    """Twitch's token response with its array ``scope`` joined by spaces."""
    scope = body.get("scope")
    if isinstance(scope, list):
        return {**body, "scope": " ".join(str(s) for s in scope)}
    return body


def Twitch(**options: Any) -> OAuthProvider:
    """Sign in with Twitch. Keyword arguments override any ``OAuthProvider`` setting."""
    defaults = {
        "id": "twitch",
        "name": "Twitch",
        "type": "oidc",
        "issuer": "https://id.twitch.tv/oauth2",
        "authorization": Endpoint(params={"scope": "openid user:read:email", "claims": CLAIMS}),
        "token": Endpoint(conform=conform_token),
        "client_auth": "client_secret_post",
        "style": ProviderStyle(brand_color="#65459B", text="#fff"),
    }
    return with_overrides(defaults, options)
