"""What a provider is: the fields every provider has, and the provider types."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ProviderType = Literal["oidc", "oauth", "email", "credentials", "webauthn"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Provider:
    """A way to sign in.

    Attributes:
        id: Unique among the configured providers; part of the URLs
            (``/auth/signin/<id>``, ``/auth/callback/<id>``).
        name: The label of its button on the sign-in page.
        type: The provider family.
    """

    id: str
    name: str
    type: ProviderType
