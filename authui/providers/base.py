"""What a provider is: the fields every provider has, and the provider types."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ProviderType = Literal["oidc", "oauth", "email", "credentials", "webauthn"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ProviderStyle:
    """How a provider's button looks.

    Attributes:
        brand_color: The brand's colour: the button's background in packs that colour
            provider buttons, an accent in those that do not.
        logo: URL of the mark shown on the button; authui's own copy of the brand's mark
            (``static/logos/<id>.svg``) when unset, a monogram when there is none.
        logo_dark: URL of the mark for a dark colour scheme, when ``logo`` needs one.
        text: Text colour of the button.
        label: The button's text, in place of the page's own ("Continue with
            {name}", "Email me a sign-in link", "Sign in"); it goes through the catalogue.
    """

    brand_color: str | None = None
    logo: str | None = None
    logo_dark: str | None = None
    text: str | None = None
    label: str | None = None


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
