"""Azure AD B2C: OpenID Connect at one user flow (or custom policy) of a B2C tenant.

Register a *Web* application in the B2C tenant with ``<origin>/auth/callback/azure-ad-b2c``
as a redirect URI and a client secret. ``AUTH_AZURE_AD_B2C_ID`` and
``AUTH_AZURE_AD_B2C_SECRET`` hold its application (client) id and the secret's value.

The issuer: in the user flow's *Properties* → *Token compatibility settings*, set the
*Issuer (iss) claim* to the form ``https://<domain>/tfp/<tenant id>/<user flow>/v2.0/``,
the one B2C itself names for clients that follow OpenID Connect discovery. Then set
``AUTH_AZURE_AD_B2C_ISSUER`` to the ``issuer`` of that user flow's metadata document,
copied exactly (letter case included), e.g.
``https://contoso.b2clogin.com/tfp/<tenant id>/b2c_1_signupsignin/v2.0/``. With the
default issuer form (``https://<domain>/<tenant id>/v2.0/``) the issuer names no user flow,
so no discovery document can be found from it.

Quirks:

- B2C issues an access token only for a resource scope (one of your APIs, or the
  application's own client id); for ``openid profile email`` it answers with an id_token
  alone. The token answer is then given the id_token as its access token (and the
  id_token's lifetime as ``expires_in``), so the sign-in completes; ask for an API scope
  to get a real access token, which is kept as it comes.
- The email address is the first of ``emails`` (local accounts and user flows), else
  ``email`` (custom policies). B2C sends no ``email_verified`` claim, so linking by email
  is refused unless you supply your own ``email_verified``.
- There is no picture claim.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides


def b2c_profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    """``id`` ← ``sub``; ``name`` ← ``name`` else ``preferred_username``; ``email`` ←
    ``emails[0]`` else ``email``; no image."""
    emails = profile.get("emails")
    first = emails[0] if isinstance(emails, list) and emails else None
    return {
        "id": str(profile["sub"]),
        "name": profile.get("name") or profile.get("preferred_username"),
        "email": first or profile.get("email"),
        "image": None,
    }


def conform_b2c_token(body: dict[str, Any]) -> dict[str, Any]:
    """B2C's token answer without an access token (only ``openid``-type scopes were asked
    for) given its id_token as access token, and the id_token's lifetime as
    ``expires_in``; any other answer unchanged."""
    if body.get("access_token") or not isinstance(body.get("id_token"), str):
        return body
    conformed = {**body, "access_token": body["id_token"]}
    if "expires_in" not in body and body.get("id_token_expires_in") is not None:
        conformed["expires_in"] = body["id_token_expires_in"]
    return conformed


def AzureADB2C(**options: Any) -> OAuthProvider:
    """Sign in with Azure AD B2C. Pass ``issuer=`` (the user flow's ``tfp`` issuer) or set
    ``AUTH_AZURE_AD_B2C_ISSUER``; keyword arguments override any ``OAuthProvider``
    setting, e.g. ``authorization={"params": {"scope": "openid offline_access <client
    id>"}}`` for an access token to your own API and a refresh token."""
    defaults = {
        "id": "azure-ad-b2c",
        "name": "Azure AD B2C",
        "type": "oidc",
        "issuer": None,
        "authorization": Endpoint(params={"scope": "openid profile email"}),
        "token": Endpoint(conform=conform_b2c_token),
        "profile": b2c_profile,
        "style": ProviderStyle(brand_color="#0072c6", text="#fff"),
    }
    return with_overrides(defaults, options)
