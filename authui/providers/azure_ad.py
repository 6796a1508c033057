"""Azure Active Directory: Microsoft Entra ID under its former name and id ``azure-ad``.

The same provider as ``authui.providers.microsoft_entra_id`` (see there for the quirks),
kept for apps whose accounts are stored under ``azure-ad``. Register
``<origin>/auth/callback/azure-ad`` as a *Web* redirect URI of the app registration;
``AUTH_AZURE_AD_ID`` and ``AUTH_AZURE_AD_SECRET`` hold its client id and secret.
"""

from __future__ import annotations

from typing import Any

from authui.providers.microsoft_entra_id import entra_provider
from authui.providers.oauth import OAuthProvider


def AzureAD(
    *,
    tenant_id: str | None = None,
    profile_photo_size: int | None = None,
    **options: Any,
) -> OAuthProvider:
    """Sign in with Microsoft Entra ID under the id ``azure-ad``; the arguments are
    ``MicrosoftEntraID``'s."""
    return entra_provider(
        "azure-ad",
        "Azure Active Directory",
        tenant_id=tenant_id,
        profile_photo_size=profile_photo_size,
        options=options,
    )
