"""BoxyHQ SAML: enterprise SAML single sign-on through SAML Jackson, which speaks OAuth 2
to the app and SAML to each customer's identity provider.

Run SAML Jackson (BoxyHQ's hosted service, or your own deployment) and add
``<origin>/auth/callback/boxyhq-saml`` to the redirect URLs of each SAML connection.
``AUTH_BOXYHQ_SAML_ISSUER`` holds Jackson's URL (e.g. ``https://jackson.example.com``),
``AUTH_BOXYHQ_SAML_ID`` and ``AUTH_BOXYHQ_SAML_SECRET`` the client id and secret: a
connection's, or ``dummy`` and Jackson's ``CLIENT_SECRET_VERIFIER`` when the connection is
chosen per sign-in with ``tenant`` and ``product``.

Quirks:

- The endpoints are built from the issuer: ``<issuer>/api/oauth/authorize``,
  ``…/token`` and ``…/userinfo`` (Jackson's discovery document names another issuer,
  so it is not used). An issuer set later by ``AUTH_BOXYHQ_SAML_ISSUER`` builds them too.
- The connection is chosen by the client id, or per sign-in by ``tenant`` and
  ``product`` in the sign-in request's query (``/auth/signin/boxyhq-saml?tenant=…``).
- With ``scope=openid …`` (the default) Jackson runs its OpenID flow and needs its
  signing keys; ``authorization={"params": {"scope": ""}}`` asks for plain OAuth 2.
- The token request sends the client id and secret in the form (``client_secret_post``)
  with PKCE. The profile has ``id``, ``email``, ``firstName``, ``lastName``, ``roles``,
  ``groups`` and the raw SAML attributes; the identity provider vouches for the address
  in its own way, so the profile does not.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, Profile, TokenSet
from authui.providers.server import ServerProvider, server_provider

PATHS = {
    "authorization": "/api/oauth/authorize",
    "token": "/api/oauth/token",
    "userinfo": "/api/oauth/userinfo",
}
"""Jackson's endpoints, below the issuer."""


def BoxyHQSAML(**options: Any) -> ServerProvider:
    """Sign in through SAML Jackson. Pass ``issuer=`` or set ``AUTH_BOXYHQ_SAML_ISSUER``;
    keyword arguments override any ``OAuthProvider`` setting."""
    defaults: dict[str, Any] = {
        "id": "boxyhq-saml",
        "name": "BoxyHQ SAML",
        "type": "oauth",
        "issuer": None,
        "authorization": Endpoint(params={"provider": "saml", "scope": "openid profile email"}),
        "client_auth": "client_secret_post",
        "profile": _profile,
        "style": ProviderStyle(brand_color="#25c2a0", text="#000"),
    }
    return server_provider(defaults, options, PATHS)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    names = (profile.get("firstName"), profile.get("lastName"))
    name = " ".join(n.strip() for n in names if isinstance(n, str) and n.strip())
    return {
        "id": str(profile["id"]),
        "name": name or None,
        "email": profile.get("email") or None,
        "image": None,
    }
