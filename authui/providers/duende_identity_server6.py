"""Duende IdentityServer (6 and later): OpenID Connect at your IdentityServer host,
e.g. ``https://identity.example.com`` (Duende's demo: ``https://demo.duendesoftware.com``).

Add a client with ``AllowedGrantTypes = GrantTypes.Code``, a secret, the ``openid``,
``profile`` and ``email`` scopes among its ``AllowedScopes``, and
``<origin>/auth/callback/duende-identity-server6`` in its ``RedirectUris``.
``AUTH_DUENDE_IDENTITY_SERVER6_ID`` and ``AUTH_DUENDE_IDENTITY_SERVER6_SECRET`` hold the
client id and secret, ``AUTH_DUENDE_IDENTITY_SERVER6_ISSUER`` the host's URL.

Quirks: IdentityServer keeps the id_token thin when an access token comes with it:
only ``sub``, ``sid``, ``idp``, ``amr`` and ``auth_time`` are there, the name and email
are served by userinfo. Either set ``AlwaysIncludeUserClaimsInIdToken = true`` on the
client, or read the profile from userinfo with ``id_token=False``. New clients require
PKCE, which is sent.
"""

from __future__ import annotations

from typing import Any

from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides


def DuendeIdentityServer6(**options: Any) -> OAuthProvider:
    """Sign in with Duende IdentityServer. Pass ``issuer=`` or set
    ``AUTH_DUENDE_IDENTITY_SERVER6_ISSUER``; keyword arguments override any
    ``OAuthProvider`` setting, e.g. ``id_token=False`` to read the profile from
    userinfo."""
    defaults = {
        "id": "duende-identity-server6",
        "name": "DuendeIdentityServer6",
        "type": "oidc",
        "issuer": None,
        "authorization": Endpoint(params={"scope": "openid profile email"}),
    }
    return with_overrides(defaults, options)
