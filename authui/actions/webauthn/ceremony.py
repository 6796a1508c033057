"""What both passkey ceremonies share: the relying party of a request, the stored form of
credential ids and keys, the user's known passkeys, and the browser's answer."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from authui.actions.webauthn.challenges import NEEDED_FOR
from authui.adapters.base import AdapterAuthenticator, AdapterCalls
from authui.context import Context
from authui.errors import WebAuthnVerificationError
from authui.providers.webauthn import WebAuthnProvider


@dataclass(frozen=True, slots=True)
class Party:
    """The relying party of this request."""

    id: str
    name: str
    origin: str


@dataclass(frozen=True, slots=True)
class Offer:
    """A ceremony's options as the browser gets them, the challenge in them, and what the
    answer's check needs to remember (sealed with the challenge)."""

    options: dict[str, Any]
    challenge: bytes
    remember: dict[str, Any]


def relying_party(ctx: Context, provider: WebAuthnProvider) -> Party:
    """The configured RP, its unset parts taken from the request URL."""
    url = urlsplit(ctx.url)
    rp = provider.relying_party
    return Party(
        id=rp.id or url.hostname or "",
        name=rp.name or url.netloc,
        origin=rp.origin or ctx.origin,
    )


def b64(data: bytes) -> str:
    """Standard base64 with padding (how credential ids and keys are stored)."""
    return base64.b64encode(data).decode()


def options_json(options: Any) -> dict[str, Any]:
    """py_webauthn's options as the JSON object the browser reads."""
    from webauthn.helpers import options_to_json

    parsed: dict[str, Any] = json.loads(options_to_json(options))
    return parsed


async def stored_passkeys(adapter: AdapterCalls, user_id: str) -> list[AdapterAuthenticator]:
    """The passkeys stored for a user."""
    found: list[AdapterAuthenticator] = await adapter.call(
        "list_authenticators_by_user_id", NEEDED_FOR, user_id
    )
    return found


def descriptor(authenticator: AdapterAuthenticator) -> Any:
    """A stored passkey as py_webauthn names it in options (to allow or to exclude)."""
    from webauthn.helpers.structs import AuthenticatorTransport, PublicKeyCredentialDescriptor

    names = [t for t in (authenticator.transports or "").split(",") if t]
    known = {t.value for t in AuthenticatorTransport}
    return PublicKeyCredentialDescriptor(
        id=base64.b64decode(authenticator.credential_id),
        transports=[AuthenticatorTransport(t) for t in names if t in known] or None,
    )


def read_answer(ctx: Context) -> dict[str, Any]:
    """The browser's answer (``data``), parsed.

    Raises:
        WebAuthnVerificationError: It is missing or not a JSON object with an ``id``.
    """
    data = ctx.body.get("data")
    if not isinstance(data, str) or not data:
        raise WebAuthnVerificationError("The passkey answer (`data`) is missing")
    try:
        credential = json.loads(data)
    except ValueError as exc:
        raise WebAuthnVerificationError("The passkey answer is not JSON") from exc
    if not isinstance(credential, dict) or not isinstance(credential.get("id"), str):
        raise WebAuthnVerificationError("The passkey answer has no credential id")
    return credential


def credential_id(credential: dict[str, Any]) -> str:
    """The answer's credential id in its stored form.

    Raises:
        WebAuthnVerificationError: The id is not base64url.
    """
    try:
        raw = base64.urlsafe_b64decode(credential["id"] + "=" * (-len(credential["id"]) % 4))
    except ValueError as exc:
        raise WebAuthnVerificationError("The passkey's credential id is not base64url") from exc
    return b64(raw)


def account_json(provider: WebAuthnProvider, account_id: str, user_id: str) -> dict[str, Any]:
    """The account of a passkey sign-in, as callbacks and events see it."""
    return {
        "providerAccountId": account_id,
        "provider": provider.id,
        "type": "webauthn",
        "userId": user_id,
    }
