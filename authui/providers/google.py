"""Google: OpenID Connect at ``https://accounts.google.com``.

Register ``<origin>/auth/callback/google`` as an authorised redirect URI in the Google Cloud
console; ``AUTH_GOOGLE_ID`` and ``AUTH_GOOGLE_SECRET`` hold the client's id and secret.
Google's id_token says ``email_verified``, so email linking can be allowed safely for
Google accounts of your own domain (check ``profile["hd"]`` in the ``sign_in`` callback).
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides


def Google(**options: Any) -> OAuthProvider:
    """Sign in with Google. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"prompt": "consent", "access_type": "offline"}}``
    to get a refresh token."""
    defaults = {
        "id": "google",
        "name": "Google",
        "type": "oidc",
        "issuer": "https://accounts.google.com",
        "authorization": Endpoint(params={"scope": "openid profile email"}),
        "style": ProviderStyle(brand_color="#1a73e8"),
    }
    return with_overrides(defaults, options)
