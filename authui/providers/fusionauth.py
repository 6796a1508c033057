"""FusionAuth: OpenID Connect at your FusionAuth instance, e.g.
``https://auth.example.com``.

Create an application (Applications → Add), enable the *Authorization Code* and
*Refresh Token* grants on its OAuth tab and add ``<origin>/auth/callback/fusionauth`` to
its *Authorized redirect URLs*. ``AUTH_FUSIONAUTH_ID`` and ``AUTH_FUSIONAUTH_SECRET``
hold its client id and secret, ``AUTH_FUSIONAUTH_ISSUER`` the instance's URL, which must
also be the tenant's *Issuer* (Tenants → General; the default ``acme.com`` is not a URL
and cannot be discovered). Sign the id_token with an RSA or EC key (Settings → Key
Master, then the application's JWT tab): the default HMAC signing key is FusionAuth's
secret, so an id_token signed with it cannot be checked here.

Quirks:

- ``tenant_id=`` adds ``tenantId`` to the authorization request, so that FusionAuth
  shows that tenant's login page when the instance has several tenants.
- The scope asks for ``offline_access``: a refresh token comes with the access token.
- The name is ``name``, else ``preferred_username``, else the given, middle and family
  names joined. With the application's scope handling set to *Strict*, profile claims
  are only in userinfo: read them there with ``id_token=False``.
"""

from __future__ import annotations

from typing import Any

from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides


def fusionauth_profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    """``id`` ← ``sub``; ``name`` ← ``name``, ``preferred_username`` or the name parts;
    ``email``; ``image`` ← ``picture``."""
    parts = (profile.get("given_name"), profile.get("middle_name"), profile.get("family_name"))
    joined = " ".join(p.strip() for p in parts if isinstance(p, str) and p.strip())
    return {
        "id": str(profile["sub"]),
        "name": profile.get("name") or profile.get("preferred_username") or joined or None,
        "email": profile.get("email"),
        "image": profile.get("picture"),
    }


def FusionAuth(*, tenant_id: str | None = None, **options: Any) -> OAuthProvider:
    """Sign in with FusionAuth.

    Args:
        tenant_id: The FusionAuth tenant's id, sent as ``tenantId``; needed only when the
            instance has more than one tenant.
        **options: Override any ``OAuthProvider`` setting; pass ``issuer=`` or set
            ``AUTH_FUSIONAUTH_ISSUER``.
    """
    params: dict[str, str] = {"scope": "openid offline_access email profile"}
    if tenant_id:
        params["tenantId"] = tenant_id
    defaults = {
        "id": "fusionauth",
        "name": "FusionAuth",
        "type": "oidc",
        "issuer": None,
        "authorization": Endpoint(params=params),
        "checks": ("pkce", "state"),
        "profile": fusionauth_profile,
    }
    return with_overrides(defaults, options)
