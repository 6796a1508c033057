"""Descope: OpenID Connect at ``https://api.descope.com/<project id>``.

In the Descope console, the project id is under Project → Project ID (it is also the
last segment of the issuer shown under Authentication Methods → SSO → Identity
Provider); an access key is made under Manage → Access Keys. The callback is
``<origin>/auth/callback/descope``; a project that restricts its approved domains must
list the site's domain. ``AUTH_DESCOPE_ID`` holds the project id,
``AUTH_DESCOPE_SECRET`` the access key.

The issuer is ``https://api.descope.com/<client id>``, whether the client id is given
to ``Descope(client_id=...)`` or comes from ``AUTH_DESCOPE_ID``. A Descope OIDC
*application* (Applications → OIDC Application) has an issuer of its own: pass
``issuer=`` or set ``AUTH_DESCOPE_ISSUER``, which replaces the derived one.

Quirks: the round trip is protected by PKCE and ``state``; the id_token carries
``email_verified`` (and ``phone_number``/``phone_number_verified`` when the user has a
phone), so linking by email works for verified addresses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides

API = "https://api.descope.com"
"""Descope's API host; a project's issuer is ``<API>/<project id>``."""


def descope_issuer(project_id: str) -> str:
    """The issuer of a Descope project."""
    return f"{API}/{project_id}"


@dataclass(frozen=True, slots=True, kw_only=True)
class DescopeProvider(OAuthProvider):
    """An ``OAuthProvider`` whose issuer, when none is given, is the project's: derived
    from the client id whenever it is set (by the factory, or from ``AUTH_DESCOPE_ID``)."""

    def __post_init__(self) -> None:
        if self.issuer is None and self.client_id:
            object.__setattr__(self, "issuer", descope_issuer(self.client_id))
            object.__setattr__(self, "default_issuer", True)


def Descope(**options: Any) -> DescopeProvider:
    """Sign in with Descope. The client id (the project id) also sets the issuer;
    keyword arguments override any ``OAuthProvider`` setting."""
    defaults = {
        "id": "descope",
        "name": "Descope",
        "type": "oidc",
        "issuer": None,
        "authorization": Endpoint(params={"scope": "openid profile email"}),
        "checks": ("pkce", "state"),
        "style": ProviderStyle(brand_color="#1C1C23", text="#ffffff"),
    }
    return with_overrides(defaults, options, DescopeProvider)
