"""WorkOS: enterprise single sign-on (SAML or OpenID Connect at the customer's identity
provider) through WorkOS SSO.

Add ``<origin>/auth/callback/workos`` as a Redirect URI (WorkOS dashboard → Redirects);
``AUTH_WORKOS_ID`` holds the environment's client ID (``client_…``) and
``AUTH_WORKOS_SECRET`` its API key (``sk_…``), which WorkOS takes as the client secret.

Quirks:

- WorkOS must be told which SSO connection to use: ``connection=`` (a connection id,
  ``conn_…``) or ``organization=`` (``org_…``) given to the factory, or per sign-in as a
  query parameter of the sign-in request (``connection``, ``organization``, ``provider``
  such as ``GoogleOAuth``, ``domain_hint``, ``login_hint``).
- The token answer carries the user's profile (``profile``), so no profile request is
  made; ``GET /sso/profile`` is asked only when the answer lacks it. The account id is
  the profile's ``id`` (``prof_…``); the name joins ``first_name`` and ``last_name``; the
  image is the identity provider's ``raw_attributes.picture``, when it sends one.
- The client ID and API key go in the token request's form (``client_secret_post``).
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import (
    Endpoint,
    OAuthProvider,
    Profile,
    TokenSet,
    UserinfoCall,
    with_overrides,
)

API_URL = "https://api.workos.com"


def WorkOS(
    *, connection: str | None = None, organization: str | None = None, **options: Any
) -> OAuthProvider:
    """Sign in through WorkOS SSO.

    Args:
        connection: The SSO connection every sign-in uses (``conn_…``); also accepted as
            ``options={"connection": …}``.
        organization: The organization whose connection every sign-in uses (``org_…``);
            also accepted as ``options={"organization": …}``.
        **options: Override any ``OAuthProvider`` setting. ``issuer=`` is the base of the
            endpoints (``<issuer>/sso/authorize`` …), by default ``https://api.workos.com``.
    """
    given = dict(options.get("options") or {})
    chosen = {
        "connection": connection or given.get("connection"),
        "organization": organization or given.get("organization"),
    }
    params = {key: value for key, value in chosen.items() if value}
    base = (options.get("issuer") or API_URL).rstrip("/")
    defaults: dict[str, Any] = {
        "id": "workos",
        "name": "WorkOS",
        "type": "oauth",
        "authorization": Endpoint(url=f"{base}/sso/authorize", params=params),
        "token": Endpoint(url=f"{base}/sso/token"),
        "userinfo": Endpoint(url=f"{base}/sso/profile", request=_userinfo),
        "client_auth": "client_secret_post",
        "profile": _profile,
        "style": ProviderStyle(brand_color="#6363f1", text="#fff"),
        "options": params,
    }
    return with_overrides(defaults, options)


async def _userinfo(call: UserinfoCall) -> Profile:
    """The profile the token answer carries, else ``GET /sso/profile``."""
    carried = call.tokens.get("profile")
    if isinstance(carried, dict):
        return dict(carried)
    return dict(await call.get_json(call.provider.userinfo.url or f"{API_URL}/sso/profile"))


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    names = (profile.get("first_name"), profile.get("last_name"))
    name = " ".join(part.strip() for part in names if isinstance(part, str) and part.strip())
    raw = profile.get("raw_attributes")
    picture = raw.get("picture") if isinstance(raw, dict) else None
    return {
        "id": str(profile["id"]),
        "name": name or None,
        "email": profile.get("email") or None,
        "image": picture if isinstance(picture, str) and picture else None,
    }
