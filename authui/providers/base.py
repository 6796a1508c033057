"""What a provider is: the fields every provider has, and the provider types."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ProviderType = Literal["oidc", "oauth", "email", "credentials", "webauthn"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ProviderStyle:
    """How a provider's button looks.

    Attributes:
        brand_color: Background colour of the button.
        logo: URL of the logo shown on the button.
        text: Text colour of the button.
    """

    brand_color: str | None = None
    logo: str | None = None
    text: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Provider:
    """A way to sign in.

    Attributes:
        id: Unique among the configured providers; part of the URLs
            (``/auth/signin/<id>``, ``/auth/callback/<id>``).
        name: The label of its button on the sign-in page.
        type: The provider family.
        style: The look of its button; the theme's defaults where unset.
    """

    id: str
    name: str
    type: ProviderType
    style: ProviderStyle | None = None
