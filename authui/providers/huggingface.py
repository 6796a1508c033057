"""Hugging Face: "Sign in with Hugging Face", OpenID Connect at ``https://huggingface.co``.

Create an OAuth app under Settings → Connected Apps → Developer Applications
(huggingface.co/settings/applications/new) with ``<origin>/auth/callback/huggingface``
as a redirect URL, and tick the scopes it may ask for (``openid``, ``profile`` and
``email``). ``AUTH_HUGGINGFACE_ID`` and ``AUTH_HUGGINGFACE_SECRET`` hold the app's client
id and secret.

Quirks: every scope asked for must be enabled on the app, ``email`` included (the
default asks for ``openid profile email``); an app without ``email`` must ask for
``openid profile`` only, and its users have no email address. Hugging Face requires a
verified email before a user can grant access, and says so in ``email_verified``. The
round trip is protected by ``state`` and PKCE. The id_token also carries ``isPro`` and
``orgs`` (the organisations the user let the app see), kept in ``profile``.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides


def HuggingFace(**options: Any) -> OAuthProvider:
    """Sign in with Hugging Face. Keyword arguments override any ``OAuthProvider``
    setting, e.g. ``authorization={"params": {"scope": "openid profile read-repos"}}``."""
    defaults = {
        "id": "huggingface",
        "name": "Hugging Face",
        "type": "oidc",
        "issuer": "https://huggingface.co",
        "authorization": Endpoint(params={"scope": "openid profile email"}),
        "checks": ("state", "pkce"),
        "style": ProviderStyle(brand_color="#FFD21E", text="#000"),
    }
    return with_overrides(defaults, options)
