"""Ory Hydra: OpenID Connect at an Ory Network project
(``https://<project slug>.projects.oryapis.com``) or a self-hosted Hydra (its public
URL, ``URLS_SELF_ISSUER``).

Create an OAuth 2 client (``ory create oauth2-client`` or ``hydra create client``) with
``--grant-type authorization_code,refresh_token``, ``--response-type code``,
``--scope openid,profile,email,offline_access`` and
``--redirect-uri <origin>/auth/callback/hydra``. ``AUTH_HYDRA_ID`` and
``AUTH_HYDRA_SECRET`` hold its client id and secret, ``AUTH_HYDRA_ISSUER`` the issuer.

Quirks: the provider id is ``hydra``. What the id_token says of the user besides ``sub``
is what the login and consent app put in the session (on Ory Network: the identity's
traits, e.g. ``email``). Clients authenticate with HTTP Basic unless created with
another ``token_endpoint_auth_method``. The issuer may be given with or without a final
slash; the id_token's ``iss`` is checked against the discovery document's ``issuer``.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides


def OryHydra(**options: Any) -> OAuthProvider:
    """Sign in with Ory Hydra. Pass ``issuer=`` or set ``AUTH_HYDRA_ISSUER``; keyword
    arguments override any ``OAuthProvider`` setting."""
    defaults = {
        "id": "hydra",
        "name": "Hydra",
        "type": "oidc",
        "issuer": None,
        "authorization": Endpoint(params={"scope": "openid profile email"}),
        "style": ProviderStyle(brand_color="#fff", text="#0F172A"),
    }
    return with_overrides(defaults, options)
