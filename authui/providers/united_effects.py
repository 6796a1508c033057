"""United Effects: OpenID Connect at an Auth Group of UE Auth,
``https://auth.unitedeffects.com/<auth group id>``.

Create a client for your product in the UE Auth Group and register
``<origin>/auth/callback/united-effects`` as a redirect URI. ``AUTH_UNITED_EFFECTS_ID``
and ``AUTH_UNITED_EFFECTS_SECRET`` hold its client id and secret,
``AUTH_UNITED_EFFECTS_ISSUER`` the Auth Group's URL.

Quirks: the scope is ``openid email profile`` and the authorization request names the
issuer as ``resource`` (RFC 8707), as Auth.js sends them. ``resource`` is set from the
``issuer=`` given to ``UnitedEffects``; an issuer that only comes from
``AUTH_UNITED_EFFECTS_ISSUER`` is not known when the provider is made, so pass
``authorization={"params": {"resource": …}}`` along with it. United Effects gives no
name or picture: the user is ``sub`` and ``email``.
"""

from __future__ import annotations

from typing import Any

from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides


def UnitedEffects(**options: Any) -> OAuthProvider:
    """Sign in with United Effects. Pass ``issuer=`` (then also sent as ``resource``) or
    set ``AUTH_UNITED_EFFECTS_ISSUER``; keyword arguments override any ``OAuthProvider``
    setting."""
    params: dict[str, str] = {"scope": "openid email profile"}
    issuer = options.get("issuer")
    if isinstance(issuer, str) and issuer:
        params["resource"] = issuer
    defaults = {
        "id": "united-effects",
        "name": "United Effects",
        "type": "oidc",
        "issuer": None,
        "authorization": Endpoint(params=params),
    }
    return with_overrides(defaults, options)
