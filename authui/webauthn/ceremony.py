"""The two WebAuthn ceremonies: ``GET /webauthn-options/<id>`` makes the options and issues
their challenge (recorded through the adapter, sealed into a cookie: ``challenges``);
``POST /callback/<id>`` spends it, verifies the browser's answer against it and signs in
(registering a passkey first, for ``register``).

Credential ids and public keys are stored in standard base64 with padding, as Auth.js
stores them, so a database shared with an Auth.js app holds the same passkeys.
"""

from __future__ import annotations

import base64
import json
import secrets
import uuid
from dataclasses import dataclass, replace
from typing import Any, Literal
from urllib.parse import urlsplit

from authui.actions.authorized import finish_sign_in
from authui.adapters.base import AdapterAccount, AdapterAuthenticator, AdapterCalls, AdapterUser
from authui.callbacks import emit
from authui.context import Context
from authui.errors import (
    AccountNotLinked,
    AdapterError,
    AuthError,
    PasskeyAlreadyRegistered,
    WebAuthnVerificationError,
)
from authui.http import InternalResponse
from authui.providers.webauthn import WebAuthnProvider
from authui.sessions.current import signed_in_user
from authui.sessions.database import adapter_of, user_record
from authui.webauthn.challenges import NEEDED_FOR, issue, spend

Action = Literal["register", "authenticate"]


@dataclass(frozen=True, slots=True)
class Party:
    """The relying party of this request."""

    id: str
    name: str
    origin: str


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


def decide(action: str | None, *, logged_in: bool, known: bool, exists: bool) -> Action | None:
    """Which ceremony a request for options gets (Auth.js's decision rules).

    ``known``: an email (or a session) names a user; ``exists``: that user is stored.
    """
    if action == "authenticate":
        return "authenticate"
    if action == "register":
        return "register" if known and logged_in == exists else None
    if logged_in:
        return None
    return "register" if known and not exists else "authenticate"


async def options(ctx: Context, provider: WebAuthnProvider) -> InternalResponse:
    """``{"action", "options"}`` for the ceremony the rules choose, with the challenge
    cookie; 400 ``{"error": …}`` for a bad or impossible request."""
    from webauthn import generate_authentication_options, generate_registration_options
    from webauthn.helpers import options_to_json
    from webauthn.helpers.structs import (
        AuthenticatorSelectionCriteria,
        ResidentKeyRequirement,
        UserVerificationRequirement,
    )

    action = ctx.query.get("action")
    if action not in (None, "register", "authenticate"):
        return _bad_request("Invalid action")
    adapter = adapter_of(ctx)
    current = await signed_in_user(ctx, adapter, NEEDED_FOR)
    user: dict[str, Any] | None
    if current is not None:
        user, exists = user_record(current), True
    else:
        user, exists = await _user_info(ctx, adapter)
    chosen = decide(action, logged_in=current is not None, known=user is not None, exists=exists)
    if chosen is None or (chosen == "register" and not (user and user.get("email"))):
        return _bad_request("Invalid request")
    party = relying_party(ctx, provider)
    known = await _authenticators(adapter, user["id"]) if user and exists else []
    verification = UserVerificationRequirement(provider.user_verification)
    if chosen == "register":
        assert user is not None
        created = generate_registration_options(
            rp_id=party.id,
            rp_name=party.name,
            user_id=secrets.token_bytes(32),
            user_name=user["email"],
            user_display_name=user.get("name") or user["email"],
            timeout=provider.timeout,
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement(provider.resident_key),
                user_verification=verification,
            ),
            exclude_credentials=[_descriptor(a) for a in known],
        )
        challenge = created.challenge
        ceremony: dict[str, Any] = {
            "register": {k: user.get(k) for k in ("id", "email", "name")} | {"exists": exists},
        }
        body = options_to_json(created)
    else:
        requested = generate_authentication_options(
            rp_id=party.id,
            timeout=provider.timeout,
            allow_credentials=[_descriptor(a) for a in known],
            user_verification=verification,
        )
        challenge, ceremony = requested.challenge, {}
        body = options_to_json(requested)
    return InternalResponse(
        headers=[("Content-Type", "application/json")],
        body={"action": chosen, "options": json.loads(body)},
        cookies=[await issue(ctx, provider, adapter, challenge, ceremony)],
    )


def _bad_request(message: str) -> InternalResponse:
    return InternalResponse(
        status=400, headers=[("Content-Type", "application/json")], body={"error": message}
    )


def _descriptor(authenticator: AdapterAuthenticator) -> Any:
    from webauthn.helpers.structs import AuthenticatorTransport, PublicKeyCredentialDescriptor

    names = [t for t in (authenticator.transports or "").split(",") if t]
    known = {t.value for t in AuthenticatorTransport}
    return PublicKeyCredentialDescriptor(
        id=base64.b64decode(authenticator.credential_id),
        transports=[AuthenticatorTransport(t) for t in names if t in known] or None,
    )


async def _authenticators(adapter: AdapterCalls, user_id: str) -> list[AdapterAuthenticator]:
    found: list[AdapterAuthenticator] = await adapter.call(
        "list_authenticators_by_user_id", NEEDED_FOR, user_id
    )
    return found


async def _user_info(ctx: Context, adapter: AdapterCalls) -> tuple[dict[str, Any] | None, bool]:
    """The user the request's ``email`` names: ``(stored user, True)``, ``({"email"},
    False)`` for a new address, ``(None, False)`` without one."""
    email = ctx.query.get("email") if ctx.method == "GET" else ctx.body.get("email")
    if not isinstance(email, str) or not email.strip():
        return None, False
    address = email.strip().lower()
    found: AdapterUser | None = await adapter.call("get_user_by_email", NEEDED_FOR, address)
    return (user_record(found), True) if found else ({"email": address}, False)


def _credential(ctx: Context) -> dict[str, Any]:
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


def _credential_id(credential: dict[str, Any]) -> str:
    try:
        raw = base64.urlsafe_b64decode(credential["id"] + "=" * (-len(credential["id"]) % 4))
    except ValueError as exc:
        raise WebAuthnVerificationError("The passkey's credential id is not base64url") from exc
    return b64(raw)


async def callback(ctx: Context, provider: WebAuthnProvider) -> InternalResponse:
    """Verify the browser's answer and sign in.

    Raises:
        WebAuthnVerificationError: A bad, replayed, unverified or unknown answer.
        AccountNotLinked: A passkey registration for another user than the signed-in one.
    """
    action = ctx.body.get("action")
    if action not in ("register", "authenticate"):
        raise WebAuthnVerificationError(
            "The passkey answer's action must be register or authenticate"
        )
    credential = _credential(ctx)
    adapter = adapter_of(ctx)
    if action == "authenticate":
        return await _authenticate(ctx, provider, adapter, credential)
    return await _register(ctx, provider, adapter, credential)


async def _authenticate(
    ctx: Context, provider: WebAuthnProvider, adapter: AdapterCalls, credential: dict[str, Any]
) -> InternalResponse:
    from webauthn import verify_authentication_response
    from webauthn.helpers.exceptions import WebAuthnException

    credential_id = _credential_id(credential)
    stored: AdapterAuthenticator | None = await adapter.call(
        "get_authenticator", NEEDED_FOR, credential_id
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
        "update_authenticator_counter", NEEDED_FOR, credential_id, verified.new_sign_count
    )
    account: AdapterAccount | None = await adapter.call(
        "get_account", NEEDED_FOR, stored.provider_account_id, provider.id
    )
    owner: AdapterUser | None = (
        await adapter.call("get_user", NEEDED_FOR, account.user_id) if account else None
    )
    if owner is None:
        raise AuthError("The passkey's account or user is gone")
    current = await signed_in_user(ctx, adapter, NEEDED_FOR)
    if current is not None and current.id != owner.id:
        raise AccountNotLinked("The passkey belongs to another user than the signed-in one")
    return await finish_sign_in(
        ctx,
        user=user_record(owner),
        account=_account_json(provider, stored.provider_account_id, owner.id),
        is_new_user=False,
        keep_session=current is not None,
    )


def _account_json(provider: WebAuthnProvider, account_id: str, user_id: str) -> dict[str, Any]:
    return {
        "providerAccountId": account_id,
        "provider": provider.id,
        "type": "webauthn",
        "userId": user_id,
    }


async def _register(
    ctx: Context, provider: WebAuthnProvider, adapter: AdapterCalls, credential: dict[str, Any]
) -> InternalResponse:
    from webauthn import verify_registration_response
    from webauthn.helpers.exceptions import WebAuthnException

    challenge, ceremony = await spend(ctx, provider, adapter)
    registering = ceremony.get("register")
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
    credential_id = b64(verified.credential_id)
    if await _registered(adapter, provider, credential_id):
        raise PasskeyAlreadyRegistered("The passkey's credential id is stored already")
    transports = credential.get("response", {}).get("transports")
    authenticator = AdapterAuthenticator(
        credential_id=credential_id,
        user_id="",
        provider_account_id=credential_id,
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
    current = await signed_in_user(ctx, adapter, NEEDED_FOR)
    if current is not None:
        if registering.get("id") != current.id:
            raise AccountNotLinked(
                "The passkey was asked for by another user than the signed-in one"
            )
        owner = current
        return await finish_sign_in(
            ctx,
            user=user_record(owner),
            account=_account_json(provider, credential_id, owner.id),
            is_new_user=False,
            store=_storer(ctx, provider, adapter, authenticator, owner, None),
            keep_session=True,
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
        account=_account_json(provider, credential_id, new_user.id),
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
) -> Any:
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
        record = user_record(user)
        if new_user is not None:
            await emit(ctx.options.config.events.create_user, ctx.options.logger, user=record)
        return record

    return store


async def _registered(
    adapter: AdapterCalls, provider: WebAuthnProvider, credential_id: str
) -> bool:
    """Whether the credential is stored already: as a passkey, or as an account of the
    provider."""
    stored: AdapterAuthenticator | None = await adapter.call(
        "get_authenticator", NEEDED_FOR, credential_id
    )
    if stored is not None:
        return True
    account: AdapterAccount | None = await adapter.call(
        "get_account", NEEDED_FOR, credential_id, provider.id
    )
    return account is not None
