"""Registering a passkey: the options that ask the browser to make one, and the check of
its answer, after which the passkey is stored (with a new user, or for the signed-in one)
and its owner signed in."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from authui.actions.activity import PASSKEY_ADDED, record
from authui.actions.finish import finish_sign_in
from authui.actions.webauthn.ceremony import (
    Offer,
    account_json,
    b64,
    descriptor,
    options_json,
    relying_party,
)
from authui.actions.webauthn.challenges import NEEDED_FOR, spend
from authui.adapters.account import MAX_PASSKEY_NAME, PasskeyDetails
from authui.adapters.base import (
    AdapterAccount,
    AdapterAuthenticator,
    AdapterCalls,
    AdapterUser,
    user_record,
)
from authui.callbacks import emit
from authui.context import Context
from authui.dates import now
from authui.errors import (
    AccountNotLinked,
    AdapterError,
    PasskeyAlreadyRegistered,
    ReauthenticationRequired,
    WebAuthnVerificationError,
)
from authui.http import InternalResponse
from authui.providers.webauthn import WebAuthnProvider
from authui.sessions.current import signed_in
from authui.sessions.facts import recent_enough
from authui.user_agents import describe


def options(
    ctx: Context,
    provider: WebAuthnProvider,
    user: dict[str, Any],
    *,
    exists: bool,
    known: list[AdapterAuthenticator],
) -> Offer:
    """The registration options for ``user`` (who has an ``email``; ``exists``: stored
    already), excluding the passkeys ``known`` for them."""
    from webauthn import generate_registration_options
    from webauthn.helpers.structs import (
        AuthenticatorSelectionCriteria,
        ResidentKeyRequirement,
        UserVerificationRequirement,
    )

    party = relying_party(ctx, provider)
    created = generate_registration_options(
        rp_id=party.id,
        rp_name=party.name,
        user_id=secrets.token_bytes(32),
        user_name=user["email"],
        user_display_name=user.get("name") or user["email"],
        timeout=provider.timeout,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement(provider.resident_key),
            user_verification=UserVerificationRequirement(provider.user_verification),
        ),
        exclude_credentials=[descriptor(a) for a in known],
    )
    registering = {k: user.get(k) for k in ("id", "email", "name")} | {"exists": exists}
    return Offer(options_json(created), created.challenge, {"register": registering})


async def verify(
    ctx: Context, provider: WebAuthnProvider, adapter: AdapterCalls, credential: dict[str, Any]
) -> InternalResponse:
    """Check the browser's new passkey, store it and sign its owner in: the signed-in user,
    or a new user with the address the options were made for.

    Raises:
        WebAuthnVerificationError: The answer does not verify, or its challenge was not
            made for a registration.
        PasskeyAlreadyRegistered: The passkey is stored already.
        AccountNotLinked: The options were made for another user than the signed-in one,
            or (signed out) a stored user has the address.
        ReauthenticationRequired: The signed-in user signed in longer ago than
            ``AccountOptions.reauthenticate_after``.
    """
    from webauthn import verify_registration_response
    from webauthn.helpers.exceptions import WebAuthnException

    challenge, remembered = await spend(ctx, provider, adapter)
    registering = remembered.get("register")
    if not isinstance(registering, dict) or not registering.get("email"):
        raise WebAuthnVerificationError("The passkey challenge was not made for a registration")
    party = relying_party(ctx, provider)
    try:
        verified = verify_registration_response(
            credential=credential,
            expected_challenge=challenge,
            expected_rp_id=party.id,
            expected_origin=party.origin,
            require_user_verification=provider.user_verification == "required",
        )
    except (WebAuthnException, ValueError, KeyError, TypeError) as exc:
        raise WebAuthnVerificationError(
            f"The passkey registration does not verify: {exc}", cause={"err": exc}
        ) from exc
    passkey_id = b64(verified.credential_id)
    if await _registered(adapter, provider, passkey_id):
        raise PasskeyAlreadyRegistered("The passkey's credential id is stored already")
    transports = credential.get("response", {}).get("transports")
    authenticator = AdapterAuthenticator(
        credential_id=passkey_id,
        user_id="",
        provider_account_id=passkey_id,
        counter=verified.sign_count,
        credential_backed_up=bool(verified.credential_backed_up),
        credential_public_key=b64(verified.credential_public_key),
        credential_device_type=str(
            getattr(verified.credential_device_type, "value", verified.credential_device_type)
        ),
        transports=",".join(t for t in transports if isinstance(t, str))
        if isinstance(transports, list)
        else None,
    )
    current = await signed_in(ctx, adapter, NEEDED_FOR)
    if current is not None:
        if registering.get("id") != current.user.id:
            raise AccountNotLinked(
                "The passkey was asked for by another user than the signed-in one"
            )
        if not recent_enough(ctx, current.facts):
            raise ReauthenticationRequired("Adding a passkey needs a recent sign-in")
        return await finish_sign_in(
            ctx,
            user=user_record(current.user),
            account=account_json(provider, passkey_id, current.user.id),
            is_new_user=False,
            store=_storer(ctx, provider, adapter, authenticator, current.user, None),
            keep_session=True,
            proves_identity=False,
        )
    email = str(registering["email"])
    taken: AdapterUser | None = await adapter.call("get_user_by_email", NEEDED_FOR, email)
    if taken is not None:
        raise AccountNotLinked(
            "A user with this email exists: sign in first, then add a passkey to the account"
        )
    new_user = AdapterUser(id=str(uuid.uuid4()), email=email, name=registering.get("name"))
    return await finish_sign_in(
        ctx,
        user=user_record(new_user),
        account=account_json(provider, passkey_id, new_user.id),
        is_new_user=True,
        store=_storer(ctx, provider, adapter, authenticator, None, new_user),
    )


def _storer(
    ctx: Context,
    provider: WebAuthnProvider,
    adapter: AdapterCalls,
    authenticator: AdapterAuthenticator,
    owner: AdapterUser | None,
    new_user: AdapterUser | None,
) -> Callable[[], Awaitable[dict[str, Any]]]:
    """Writes the passkey (and the new user) once ``sign_in`` allows it: the user, then
    the account, then the authenticator. If a write fails, what was written is removed
    again (the new user, or the signed-in user's new account); a failure because the
    passkey was stored meanwhile (a uniqueness error of the database) is
    ``PasskeyAlreadyRegistered``."""

    async def store() -> dict[str, Any]:
        user = owner
        if new_user is not None:
            user = await adapter.call("create_user", NEEDED_FOR, new_user)
        assert user is not None
        account = AdapterAccount(
            user_id=user.id,
            type="webauthn",
            provider=provider.id,
            provider_account_id=authenticator.provider_account_id,
        )
        linked = False
        try:
            await adapter.call("link_account", NEEDED_FOR, account)
            linked = True
            await adapter.call(
                "create_authenticator", NEEDED_FOR, replace(authenticator, user_id=user.id)
            )
        except BaseException as exc:
            if new_user is not None:
                await adapter.call("delete_user", NEEDED_FOR, user.id)
            elif linked and adapter.has("unlink_account"):
                await adapter.call(
                    "unlink_account", NEEDED_FOR, provider.id, account.provider_account_id
                )
            if isinstance(exc, AdapterError) and await _registered(
                adapter, provider, authenticator.credential_id
            ):
                raise PasskeyAlreadyRegistered(
                    "The passkey was stored by another request meanwhile", cause={"err": exc}
                ) from exc
            raise
        stored = user_record(user)
        if new_user is not None:
            await emit(ctx.options.config.events.create_user, ctx.options.logger, user=stored)
        await describe_passkey(ctx, adapter, authenticator.credential_id, user.id)
        return stored

    return store


async def describe_passkey(
    ctx: Context, adapter: AdapterCalls, credential: str, user_id: str
) -> None:
    """Keep the new passkey's details (when the adapter keeps them): named after the
    browser that made it, created now; and record it in the account's activity."""
    name = describe(ctx.request.headers.get("user-agent"))[:MAX_PASSKEY_NAME]
    if adapter.has("save_authenticator_details"):
        details = PasskeyDetails(
            credential_id=credential, user_id=user_id, name=name, created=now()
        )
        await adapter.call("save_authenticator_details", NEEDED_FOR, details)
    await record(ctx, user_id, PASSKEY_ADDED, detail={"passkey": name})


async def _registered(adapter: AdapterCalls, provider: WebAuthnProvider, passkey_id: str) -> bool:
    """Whether the credential is stored already: as a passkey, or as an account of the
    provider."""
    stored: AdapterAuthenticator | None = await adapter.call(
        "get_authenticator", NEEDED_FOR, passkey_id
    )
    if stored is not None:
        return True
    account: AdapterAccount | None = await adapter.call(
        "get_account", NEEDED_FOR, passkey_id, provider.id
    )
    return account is not None
