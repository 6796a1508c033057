"""Auth0: OpenID Connect at your tenant's domain, ``https://<tenant>.<region>.auth0.com``
or a custom domain.

Register ``<origin>/auth/callback/auth0`` under *Allowed Callback URLs* of a *Regular Web
Application* (Applications → the app → Settings). ``AUTH_AUTH0_ID`` and
``AUTH_AUTH0_SECRET`` hold its client id and secret, ``AUTH_AUTH0_ISSUER`` the domain as
a URL (``https://dev-abc123.us.auth0.com``).

Quirks: Auth0's discovery document names the issuer with a trailing slash; the issuer
may be given with or without it. ``sub`` is ``<connection>|<id>`` (``auth0|…``,
``google-oauth2|…``): one Auth0 user per connection unless accounts are linked in Auth0.
``email_verified`` is whatever the connection says (Auth0's own database: after the
verification email; social connections: the social provider's word).
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides


def Auth0(**options: Any) -> OAuthProvider:
    """Sign in with Auth0. Pass ``issuer=`` or set ``AUTH_AUTH0_ISSUER``; keyword arguments
    override any ``OAuthProvider`` setting, e.g. ``authorization={"params": {"audience":
    "https://api.example.com"}}`` for an access token to your API."""
    defaults = {
        "id": "auth0",
        "name": "Auth0",
        "type": "oidc",
        "issuer": None,
        "authorization": Endpoint(params={"scope": "openid profile email"}),
        "style": ProviderStyle(brand_color="#EB5424", text="#fff"),
    }
    return with_overrides(defaults, options)
