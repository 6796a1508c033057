"""IdentityServer4: OpenID Connect at your IdentityServer4 host, e.g.
``https://identity.example.com``.

Add a client with ``AllowedGrantTypes = GrantTypes.Code``, a secret, the ``openid``,
``profile`` and ``email`` scopes among its ``AllowedScopes``, and
``<origin>/auth/callback/identity-server4`` in its ``RedirectUris``.
``AUTH_IDENTITY_SERVER4_ID`` and ``AUTH_IDENTITY_SERVER4_SECRET`` hold the client id and
secret, ``AUTH_IDENTITY_SERVER4_ISSUER`` the host's URL.

Quirks: IdentityServer4 is no longer maintained (its successor is Duende IdentityServer,
``duende-identity-server6``). It keeps the id_token thin when an access token comes with
it: the name and email are only in it with ``AlwaysIncludeUserClaimsInIdToken = true``
on the client; otherwise read the profile from userinfo with ``id_token=False``.
"""

from __future__ import annotations

from typing import Any

from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides


def IdentityServer4(**options: Any) -> OAuthProvider:
    """Sign in with IdentityServer4. Pass ``issuer=`` or set
    ``AUTH_IDENTITY_SERVER4_ISSUER``; keyword arguments override any ``OAuthProvider``
    setting."""
    defaults = {
        "id": "identity-server4",
        "name": "IdentityServer4",
        "type": "oidc",
        "issuer": None,
        "authorization": Endpoint(params={"scope": "openid profile email"}),
    }
    return with_overrides(defaults, options)
