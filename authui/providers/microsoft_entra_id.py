"""Microsoft Entra ID (formerly Azure Active Directory): OpenID Connect at
``https://login.microsoftonline.com/<tenant>/v2.0``.

Register ``<origin>/auth/callback/microsoft-entra-id`` as a *Web* redirect URI of the app
registration (Azure portal → App registrations → Authentication); ``AUTH_MICROSOFT_ENTRA_ID_ID``
holds its *Application (client) ID* and ``AUTH_MICROSOFT_ENTRA_ID_SECRET`` a client secret
value (Certificates & secrets).

Quirks:

- Without ``tenant_id`` the issuer is ``common``: work, school and personal Microsoft
  accounts may sign in. ``common``'s discovery document names the issuer
  ``https://login.microsoftonline.com/{tenantid}/v2.0``; each id_token's ``iss`` is checked
  against it with its own ``tid`` filled in. Pass ``tenant_id=`` (a tenant id, a verified
  domain, ``organizations`` or ``consumers``) to narrow who may sign in.
- The user's photo is not a claim: it is read from Microsoft Graph
  (``/me/photos/<N>x<N>/$value``, which is why the scope has ``User.Read``) and kept as a
  ``data:`` URL in ``image``; ``None`` when the user has none. ``profile_photo_size`` is
  one of Graph's sizes: 48, 64, 96, 120, 240, 360, 432, 504 or 648.
- ``email`` is only in the id_token when the user has a mailbox address or the app asks
  for the ``email`` optional claim, and Entra sends no ``email_verified`` claim: linking
  by email is refused unless you supply your own ``email_verified``.
- Token errors are OAuth error objects (``error``, ``error_description``), which the flow
  reports as token endpoint errors whatever their HTTP status.
"""

from __future__ import annotations

import base64
from typing import Any

import httpx

from authui.providers.base import ProviderStyle
from authui.providers.oauth import (
    Endpoint,
    OAuthProvider,
    Profile,
    TokenSet,
    UserinfoCall,
    with_overrides,
)

LOGIN = "https://login.microsoftonline.com"
"""Microsoft's identity platform."""

GRAPH_PHOTO = "https://graph.microsoft.com/v1.0/me/photos/{size}x{size}/$value"
"""The signed-in user's photo at one of Graph's sizes."""

DEFAULT_PHOTO_SIZE = 48


def entra_issuer(tenant_id: str = "common") -> str:
    """The v2.0 issuer of a tenant (an id, a verified domain, ``common``,
    ``organizations`` or ``consumers``)."""
    return f"{LOGIN}/{tenant_id}/v2.0"


async def profile_photo(call: UserinfoCall, size: int = DEFAULT_PHOTO_SIZE) -> str | None:
    """The user's photo from Microsoft Graph as a ``data:`` URL, or ``None`` when the user
    has no photo or Graph cannot be reached."""
    request = httpx.Request(
        "GET",
        GRAPH_PHOTO.format(size=size),
        headers={"Authorization": f"Bearer {call.tokens['access_token']}"},
    )
    try:
        answer = await call.fetch(request)
    except httpx.HTTPError:
        return None
    if not answer.is_success or not answer.content:
        return None
    media_type = answer.headers.get("content-type", "").split(";")[0].strip()
    if not media_type.startswith("image/"):
        media_type = "image/jpeg"
    return f"data:{media_type};base64,{base64.b64encode(answer.content).decode('ascii')}"


async def entra_profile(profile: Profile, tokens: TokenSet, call: UserinfoCall) -> dict[str, Any]:
    """``id`` ← ``sub``, ``name``, ``email``, ``image`` ← the Graph photo."""
    size = int(call.provider.options.get("profile_photo_size") or DEFAULT_PHOTO_SIZE)
    return {
        "id": str(profile["sub"]),
        "name": profile.get("name"),
        "email": profile.get("email"),
        "image": await profile_photo(call, size),
    }


def entra_provider(
    provider_id: str,
    name: str,
    *,
    tenant_id: str | None,
    profile_photo_size: int | None,
    options: dict[str, Any],
) -> OAuthProvider:
    """The Entra ID provider under ``provider_id`` and ``name`` (shared with ``azure-ad``)."""
    settings = dict(options.get("options") or {})
    tenant = tenant_id or settings.get("tenant_id")
    size = profile_photo_size or settings.get("profile_photo_size") or DEFAULT_PHOTO_SIZE
    defaults = {
        "id": provider_id,
        "name": name,
        "type": "oidc",
        "issuer": entra_issuer(tenant or "common"),
        "default_issuer": tenant is None,
        "authorization": Endpoint(params={"scope": "openid profile email User.Read"}),
        "profile": entra_profile,
        "style": ProviderStyle(brand_color="#0072c6", text="#fff"),
        "options": {"tenant_id": tenant, "profile_photo_size": size},
    }
    return with_overrides(defaults, options)


def MicrosoftEntraID(
    *,
    tenant_id: str | None = None,
    profile_photo_size: int | None = None,
    **options: Any,
) -> OAuthProvider:
    """Sign in with Microsoft Entra ID.

    Args:
        tenant_id: Who may sign in: a tenant id or domain (that organisation only),
            ``organizations``, ``consumers``; unset for ``common`` (everyone).
        profile_photo_size: The Graph photo size in pixels (default 48).
        **options: Override any ``OAuthProvider`` setting (an explicit ``issuer`` wins
            over ``tenant_id``).
    """
    return entra_provider(
        "microsoft-entra-id",
        "Microsoft Entra ID",
        tenant_id=tenant_id,
        profile_photo_size=profile_photo_size,
        options=options,
    )
