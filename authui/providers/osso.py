"""Osso: enterprise single sign-on through an Osso server, which signs the user in at
their company's SAML identity provider and hands the result back over OAuth 2.

Create an OAuth client in the Osso admin (Configuration → OAuth clients) and add
``<origin>/auth/callback/osso`` to its redirect URIs. ``AUTH_OSSO_ID`` and
``AUTH_OSSO_SECRET`` hold its client ID and secret, ``AUTH_OSSO_ISSUER`` the address of
your Osso server (e.g. ``https://sso.example.com``).

Quirks:

- The endpoints are built from the issuer: ``<issuer>/oauth/authorize``,
  ``/oauth/token`` and ``/oauth/me``; also when the issuer comes from
  ``AUTH_OSSO_ISSUER`` after the factory ran.
- Osso picks the identity provider from a ``domain`` or ``email`` parameter of the
  authorization request; pass one as a query parameter of the sign-in request. Without
  either, Osso shows its own page asking for the email address.
- The profile (``GET /oauth/me``) is ``{"id", "email", "idp", "requested"}``: no name,
  no picture. Access tokens last ten minutes and come without a refresh token.
- Osso checks ``state`` and ignores PKCE, so the round trip is protected by ``state``.
"""

from __future__ import annotations

from typing import Any

from authui.providers.server import ServerProvider, server_provider

PATHS = {"authorization": "/oauth/authorize", "token": "/oauth/token", "userinfo": "/oauth/me"}
"""Where each endpoint is, under the issuer."""


def Osso(**options: Any) -> ServerProvider:
    """Sign in through Osso. Pass ``issuer=`` or set ``AUTH_OSSO_ISSUER``; keyword
    arguments override any ``OAuthProvider`` setting."""
    defaults: dict[str, Any] = {
        "id": "osso",
        "name": "Osso",
        "type": "oauth",
        "issuer": None,
        "checks": ("state",),
    }
    return server_provider(defaults, options, PATHS)
