"""Signing in with a stored passkey: the options that ask the browser for one, and the
check of its answer (the challenge spent, the signature verified, the counter moved on)."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from authui.actions.finish import finish_sign_in
from authui.actions.webauthn.ceremony import (
    Offer,
    account_json,
    credential_id,
    descriptor,
    options_json,
    relying_party,
)
from authui.actions.webauthn.challenges import NEEDED_FOR, spend
from authui.adapters.account import PasskeyChanges, PasskeyDetails
from authui.adapters.base import (
    AdapterAccount,
    AdapterAuthenticator,
    AdapterCalls,
    AdapterUser,
    user_record,
)
from authui.context import Context
from authui.dates import now
from authui.errors import AccountNotLinked, AuthError, WebAuthnVerificationError
from authui.http import InternalResponse
from authui.i18n import translate
from authui.providers.webauthn import WebAuthnProvider
from authui.sessions.current import signed_in_user


def options(ctx: Context, provider: WebAuthnProvider, known: list[AdapterAuthenticator]) -> Offer:
    """The authentication options: any passkey of this site, or one of ``known`` (the
    passkeys of the user the request names)."""
    from webauthn import generate_authentication_options
    from webauthn.helpers.structs import UserVerificationRequirement

    requested = generate_authentication_options(
        rp_id=relying_party(ctx, provider).id,
        timeout=provider.timeout,
        allow_credentials=[descriptor(a) for a in known],
        user_verification=UserVerificationRequirement(provider.user_verification),
    )
    return Offer(options_json(requested), requested.challenge, {})


@dataclass(frozen=True, slots=True)
class Proven:
    """A passkey answer that verified: the passkey and its owner."""

    passkey: AdapterAuthenticator
    owner: AdapterUser


async def check(
    ctx: Context, provider: WebAuthnProvider, adapter: AdapterCalls, credential: dict[str, Any]
) -> Proven:
    """Check the browser's signature with a stored passkey: the challenge is spent, the
    counter moved on, and the passkey's owner returned.

    Raises:
        WebAuthnVerificationError: An unknown passkey, or an answer that does not verify.
    """
    from webauthn import verify_authentication_response
    from webauthn.helpers.exceptions import WebAuthnException

    passkey_id = credential_id(credential)
    stored: AdapterAuthenticator | None = await adapter.call(
        "get_authenticator", NEEDED_FOR, passkey_id
    )
    if stored is None:
        raise WebAuthnVerificationError("This passkey is not registered here")
    challenge, _ = await spend(ctx, provider, adapter)
    party = relying_party(ctx, provider)
    try:
        verified = verify_authentication_response(
            credential=credential,
            expected_challenge=challenge,
            expected_rp_id=party.id,
            expected_origin=party.origin,
            credential_public_key=base64.b64decode(stored.credential_public_key),
            credential_current_sign_count=stored.counter,
            require_user_verification=provider.user_verification == "required",
        )
    except (WebAuthnException, ValueError, KeyError, TypeError) as exc:
        raise WebAuthnVerificationError(
            f"The passkey answer does not verify: {exc}", cause={"err": exc}
        ) from exc
    await adapter.call(
        "update_authenticator_counter", NEEDED_FOR, passkey_id, verified.new_sign_count
    )
    await _used(adapter, stored)
    account: AdapterAccount | None = await adapter.call(
        "get_account", NEEDED_FOR, stored.provider_account_id, provider.id
    )
    owner: AdapterUser | None = (
        await adapter.call("get_user", NEEDED_FOR, account.user_id) if account else None
    )
    if owner is None:
        raise AuthError("The passkey's account or user is gone")
    return Proven(stored, owner)


async def verify(
    ctx: Context, provider: WebAuthnProvider, adapter: AdapterCalls, credential: dict[str, Any]
) -> InternalResponse:
    """Check the browser's signature with a stored passkey (``check``) and sign its owner
    in.

    Raises:
        WebAuthnVerificationError: An unknown passkey, or an answer that does not verify.
        AccountNotLinked: The passkey belongs to another user than the signed-in one.
    """
    proven = await check(ctx, provider, adapter, credential)
    owner = proven.owner
    current = await signed_in_user(ctx, adapter, NEEDED_FOR)
    if current is not None and current.id != owner.id:
        raise AccountNotLinked("The passkey belongs to another user than the signed-in one")
    return await finish_sign_in(
        ctx,
        user=user_record(owner),
        account=account_json(provider, proven.passkey.provider_account_id, owner.id),
        is_new_user=False,
        keep_session=current is not None,
    )


async def _used(adapter: AdapterCalls, passkey: AdapterAuthenticator) -> None:
    """Note when the passkey was last used (when the adapter keeps passkey details; a
    passkey without any, made before or by Auth.js, gets them now, named "Passkey")."""
    if not adapter.has("update_authenticator_details"):
        return
    changes: PasskeyChanges = {"last_used": now()}
    found = await adapter.call(
        "update_authenticator_details", NEEDED_FOR, passkey.credential_id, changes
    )
    if found is None and adapter.has("save_authenticator_details"):
        details = PasskeyDetails(
            credential_id=passkey.credential_id,
            user_id=passkey.user_id,
            name=translate("Passkey"),
            last_used=changes["last_used"],
        )
        await adapter.call("save_authenticator_details", NEEDED_FOR, details)
