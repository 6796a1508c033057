"""Passkeys (WebAuthn): sign-in with a key held by the user's device or password manager.

Experimental, as in Auth.js: turn it on with ``Experimental(enable_webauthn=True)``. The
ceremonies run in ``authui.actions.webauthn`` on py_webauthn (``pip install
"authui[webauthn]"``); the browser side is ``static/webauthn.js``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from authui.i18n import N_
from authui.providers.base import Provider

Requirement = Literal["required", "preferred", "discouraged"]


@dataclass(frozen=True, slots=True, kw_only=True)
class RelyingParty:
    """Who the passkeys are for. Unset fields come from the request URL: ``id`` its host
    name, ``name`` its host, ``origin`` its origin. Behind a proxy set ``AUTH_URL`` (or
    these) so that they are the public ones.

    Attributes:
        id: The RP ID: a registrable domain the origin belongs to (``example.com`` serves
            ``login.example.com``). An IP address cannot be one.
        name: What the browser shows for the site.
        origin: The origin the browser's answers must come from.
    """

    id: str | None = None
    name: str | None = None
    origin: str | None = None


PASSKEY_FORM_FIELDS: Mapping[str, Mapping[str, Any]] = {
    "email": {"label": N_("Email"), "required": True, "autocomplete": "username webauthn"}
}
"""The default form: an email field that offers passkeys in the browser's autofill."""


@dataclass(frozen=True, slots=True, kw_only=True)
class WebAuthnProvider(Provider):
    """Passkey sign-in and registration.

    Attributes:
        relying_party: The RP ID, name and origin; derived from the request when unset.
        form_fields: The sign-in form's fields (the ``email`` names a new user).
        enable_conditional_ui: Offer passkeys in the email field's autofill; at most one
            provider may, and its form needs a field whose ``autocomplete`` has
            ``webauthn``.
        user_verification: Whether the authenticator must verify the user (PIN,
            biometrics): ``required`` by default, so a passkey is a full sign-in factor.
        resident_key: Whether new passkeys are discoverable (needed for autofill).
        timeout: Milliseconds the browser gives a ceremony.
    """

    id: str = "webauthn"
    name: str = "WebAuthn"
    type: Literal["webauthn"] = "webauthn"
    relying_party: RelyingParty = field(default_factory=RelyingParty)
    form_fields: Mapping[str, Mapping[str, Any]] = field(
        default_factory=lambda: dict(PASSKEY_FORM_FIELDS)
    )
    enable_conditional_ui: bool = True
    user_verification: Requirement = "required"
    resident_key: Requirement = "preferred"
    timeout: int = 300_000


def WebAuthn(**settings: Any) -> WebAuthnProvider:
    """A WebAuthn provider (id ``webauthn``); keyword arguments set its fields."""
    return WebAuthnProvider(**settings)


def Passkey(**settings: Any) -> WebAuthnProvider:
    """The passkey provider: WebAuthn with id ``passkey`` and name "Passkey"."""
    return WebAuthnProvider(**{"id": "passkey", "name": "Passkey", **settings})
