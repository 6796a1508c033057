"""Vipps MobilePay Login: OpenID Connect at
``https://api.vipps.no/access-management-1.0/access/``.

On portal.vippsmobilepay.com, activate Login on a sales unit and add
``<origin>/auth/callback/vipps`` to its redirect URIs (Developer → Setup Login).
``AUTH_VIPPS_ID`` and ``AUTH_VIPPS_SECRET`` hold the sales unit's ``client_id`` and
``client_secret``. Test sales units sign in against ``TEST_ISSUER``
(``apitest.vipps.no``) with the Vipps test app: pass ``issuer=TEST_ISSUER`` or set
``AUTH_VIPPS_ISSUER``.

Quirks:

- The id_token holds little besides ``sub``: the profile comes from the userinfo
  endpoint (``/vipps-userinfo-api/userinfo``; its ``sub`` must be the id_token's), with
  what the scopes ask for and the user agreed to share: ``name`` gives ``name``,
  ``given_name`` and ``family_name``; ``email`` gives ``email`` and ``email_verified``;
  ``phoneNumber``, ``address``, ``birthDate`` and ``nin`` give more.
- The issuer ends with a slash. The client authenticates with Basic unless the sales
  unit is switched to ``client_secret_post`` in the portal (then pass
  ``client_auth="client_secret_post"``).
- Vipps asks integrations to send ``Vipps-System-Name``/``-Version`` (and, for plugins,
  ``Vipps-System-Plugin-Name``/``-Version``) headers to help their support; they are
  optional, and a ``custom_fetch`` can add them.
- The round trip is protected by PKCE, ``state`` and ``nonce``.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides

ISSUER = "https://api.vipps.no/access-management-1.0/access/"
"""Vipps MobilePay's production login."""

TEST_ISSUER = "https://apitest.vipps.no/access-management-1.0/access/"
"""Vipps MobilePay's test environment (test sales units and the test app)."""


def Vipps(**options: Any) -> OAuthProvider:
    """Sign in with Vipps MobilePay. Keyword arguments override any ``OAuthProvider``
    setting, e.g. ``issuer=TEST_ISSUER`` or
    ``authorization={"params": {"scope": "openid name email phoneNumber"}}``."""
    defaults = {
        "id": "vipps",
        "name": "Vipps",
        "type": "oidc",
        "issuer": ISSUER,
        "default_issuer": True,
        "authorization": Endpoint(params={"scope": "openid name email"}),
        "checks": ("pkce", "state", "nonce"),
        "id_token": False,
        "style": ProviderStyle(brand_color="#f05c18"),
    }
    return with_overrides(defaults, options)
