"""``<base>/account/passkeys``: the user's passkeys, with the names they give them, the
kind (synced across devices, or on this device only), when each was made and last used;
add one (the passkey registration flow, after a recent sign-in), rename one, delete one
(after a recent sign-in; never the last way to sign in).

A passkey's signature counter is no use count: synced passkeys keep it at 0. When a
passkey was made and last used are kept in authui's own table (``PasskeyDetails``), which
passkeys made before it, or by Auth.js, lack until their next use.
"""

from __future__ import annotations

from typing import Any

from authui.actions.account.gate import (
    NEEDED_FOR,
    Holder,
    page_url,
    recent,
    step_up,
    step_up_url,
    unavailable,
)
from authui.actions.account.outcome import Outcome, done, refused
from authui.actions.account.pages import Page, iso
from authui.actions.account.ways import passkey_provider, user_passkeys, ways_in
from authui.actions.activity import PASSKEY_DELETED, PASSKEY_RENAMED, record
from authui.actions.mfa.gate import enrolment
from authui.adapters.account import MAX_PASSKEY_NAME, PasskeyChanges, PasskeyDetails
from authui.adapters.base import AdapterAuthenticator
from authui.context import Context
from authui.i18n import N_, translate, translate_plural
from authui.options import Options
from authui.urls import with_query


def _offered(options: Options) -> bool:
    return passkey_provider(options) is not None


async def _details(holder: Holder) -> dict[str, PasskeyDetails]:
    if not holder.can("list_authenticator_details"):
        return {}
    found: list[PasskeyDetails] = await holder.adapter.call(
        "list_authenticator_details", NEEDED_FOR, holder.user.id
    )
    return {d.credential_id: d for d in found}


def _row(passkey: AdapterAuthenticator, details: PasskeyDetails | None) -> dict[str, Any]:
    synced = passkey.credential_backed_up or passkey.credential_device_type == "multiDevice"
    return {
        "id": passkey.credential_id,
        "name": details.name if details else translate("Passkey"),
        "synced": synced,
        "created": iso(details.created) if details else None,
        "lastUsed": iso(details.last_used) if details else None,
    }


async def view(ctx: Context, holder: Holder) -> dict[str, Any]:
    provider = passkey_provider(ctx.options)
    assert provider is not None
    passkeys = await user_passkeys(ctx, holder)
    details = await _details(holder)
    rows = [_row(p, details.get(p.credential_id)) for p in passkeys]
    rows.sort(key=lambda r: (r["created"] or "", r["id"]))
    return {
        "unavailable": unavailable(holder, "delete_authenticator", "list_authenticator_details"),
        "passkeys": rows,
        "canDelete": (await ways_in(ctx, holder)).count > 1,
        "maxNameLength": MAX_PASSKEY_NAME,
        "providerId": provider.id,
        "optionsUrl": ctx.action_url("webauthn-options", provider.id),
        "callbackUrl": ctx.action_url("callback", provider.id),
        "returnUrl": with_query(page_url(ctx, "passkeys"), {"notice": "passkey-added"}),
        "fresh": recent(ctx, holder),
        "reauthenticateUrl": step_up_url(ctx, page_url(ctx, "passkeys")),
    }


async def _rename(ctx: Context, holder: Holder, passkey: AdapterAuthenticator) -> Outcome:
    raw = ctx.body.get("name")
    name = " ".join(raw.split()) if isinstance(raw, str) else ""
    if not 1 <= len(name) <= MAX_PASSKEY_NAME:
        message = translate_plural(
            "Enter a name of 1 to {n} character.",
            "Enter a name of 1 to {n} characters.",
            MAX_PASSKEY_NAME,
        )
        outcome = refused(message, field_name="name")
        outcome.values = {"name": name, "passkey": passkey.credential_id}
        return outcome
    missing = unavailable(holder, "update_authenticator_details", "save_authenticator_details")
    if missing is not None:
        return refused(missing, status=501)
    changes: PasskeyChanges = {"name": name}
    found = await holder.adapter.call(
        "update_authenticator_details", NEEDED_FOR, passkey.credential_id, changes
    )
    if found is None:
        details = PasskeyDetails(
            credential_id=passkey.credential_id, user_id=holder.user.id, name=name
        )
        await holder.adapter.call("save_authenticator_details", NEEDED_FOR, details)
    await record(ctx, holder.user.id, PASSKEY_RENAMED, detail={"passkey": name})
    return done("passkey-renamed")


async def _delete(ctx: Context, holder: Holder, passkey: AdapterAuthenticator) -> Outcome:
    missing = unavailable(holder, "delete_authenticator")
    if missing is not None:
        return refused(missing, status=501)
    stepped = step_up(ctx, holder, page_url(ctx, "passkeys"))
    if stepped is not None:
        return stepped
    if (await ways_in(ctx, holder)).count <= 1:
        return refused(
            "This passkey is your only way to sign in: add another one before you delete it.",
            status=409,
        )
    if await _only_second_step(ctx, holder):
        return refused(
            "Your passkeys are your only second step of signing in: set up an authenticator "
            "app, or turn two-step verification off, before you delete the last one.",
            status=409,
        )
    details = (await _details(holder)).get(passkey.credential_id)
    await holder.adapter.call("delete_authenticator", NEEDED_FOR, passkey.credential_id)
    provider = passkey_provider(ctx.options)
    if provider is not None and holder.can("unlink_account"):
        await holder.adapter.call(
            "unlink_account", NEEDED_FOR, provider.id, passkey.provider_account_id
        )
    name = details.name if details else translate("Passkey")
    await record(ctx, holder.user.id, PASSKEY_DELETED, detail={"passkey": name})
    return done("passkey-deleted")


async def _only_second_step(ctx: Context, holder: Holder) -> bool:
    """Whether this is the user's last passkey, and passkeys their only second factor (the
    recovery codes alone would be left)."""
    factors = await enrolment(ctx, holder.user.id)
    if factors is None or not factors.passkey or factors.totp_secret is not None:
        return False
    return len(await user_passkeys(ctx, holder)) <= 1


async def act(ctx: Context, holder: Holder) -> Outcome:
    intent = ctx.body.get("intent")
    if intent not in ("rename", "delete"):
        return refused("This form cannot do that.")
    wanted = ctx.body.get("passkey")
    passkey = next((p for p in await user_passkeys(ctx, holder) if p.credential_id == wanted), None)
    if passkey is None:
        return refused("This passkey is not one of yours.", status=404)
    if intent == "rename":
        return await _rename(ctx, holder, passkey)
    return await _delete(ctx, holder, passkey)


PAGE = Page("passkeys", N_("Passkeys"), "account/passkeys.html", view, act, offered=_offered)
