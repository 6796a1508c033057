"""Salesforce: OpenID Connect at ``https://login.salesforce.com``.

Create a Connected App (Setup → App Manager → New Connected App, or an External Client
App) with OAuth enabled, ``<origin>/auth/callback/salesforce`` as its Callback URL and
the ``openid``, ``profile`` and ``email`` scopes. ``AUTH_SALESFORCE_ID`` holds its
Consumer Key, ``AUTH_SALESFORCE_SECRET`` its Consumer Secret. Sandboxes sign in at
``https://test.salesforce.com``, an org with My Domain login at its own domain: pass
``issuer=`` or set ``AUTH_SALESFORCE_ISSUER``.

Quirks:

- The profile comes from the userinfo endpoint (its ``sub`` must be the id_token's),
  as Auth.js has it.
- ``sub`` (the account id) is the user's identity URL,
  ``https://login.salesforce.com/id/<org id>/<user id>``; ``user_id`` and
  ``organization_id`` are separate claims of the profile.
- ``picture`` is a Salesforce content URL that needs the access token to be fetched; a
  browser without a Salesforce session shows no image.
- The token response has no ``expires_in`` (the session lifetime is the org's policy),
  so the account has no ``expires_at``; it has ``instance_url`` and ``issued_at``.
- The round trip is protected by PKCE, ``state`` and ``nonce``.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides

ISSUER = "https://login.salesforce.com"
"""Production orgs' login host."""

SANDBOX_ISSUER = "https://test.salesforce.com"
"""Sandbox orgs' login host."""


def Salesforce(**options: Any) -> OAuthProvider:
    """Sign in with Salesforce. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``issuer=SANDBOX_ISSUER``."""
    defaults = {
        "id": "salesforce",
        "name": "Salesforce",
        "type": "oidc",
        "issuer": ISSUER,
        "default_issuer": True,
        "authorization": Endpoint(params={"scope": "openid profile email"}),
        "checks": ("pkce", "state", "nonce"),
        "id_token": False,
        "style": ProviderStyle(brand_color="#00a1e0"),
    }
    return with_overrides(defaults, options)
