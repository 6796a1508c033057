"""The suite's tests of the account center's passkeys (authui's optional methods), which
need stored authenticators: ``PasskeyDetailsConformance``, part of
``AdapterAuthenticatorConformance``."""

from __future__ import annotations

import dataclasses
import secrets
import uuid
from typing import Any

from authui.adapters.base import Adapter, AdapterAuthenticator
from authui.testing.adapter_suite.common import (
    ConformanceBase,
    Method,
    absent,
    add_user,
    b64,
    date_in,
    expect,
    new_authenticator,
    new_passkey_details,
    optional,
    same,
)


class PasskeyDetailsConformance(ConformanceBase):
    """``save_authenticator_details``, ``update_authenticator_details``,
    ``list_authenticator_details`` and ``delete_authenticator``. Each test is skipped for
    an adapter without the optional methods it uses."""

    async def test_authenticator_details_round_trip_in_order(self, adapter: Adapter) -> None:
        """Listed without ``created`` first (by credential id), then oldest first."""
        save, list_details = _passkey_methods(adapter)
        user, other = await add_user(adapter), await add_user(adapter)
        # Credential ids that sort alike in every collation: a lowercase letter, then hex.
        first, second = [await _passkey(adapter, user.id, prefix) for prefix in "ab"]
        older, newer = await _passkey(adapter, user.id), await _passkey(adapter, user.id)
        expected = [
            new_passkey_details(first, name="YubiKey 5", created=None, last_used=None),
            new_passkey_details(second, name="Pixel", created=None),
            new_passkey_details(older, created=date_in(days=-30, microsecond=1_001)),
            new_passkey_details(newer, name="iPhone", last_used=None),
        ]
        for details in (expected[3], expected[1], expected[2], expected[0]):
            await save(details)
        await save(new_passkey_details(await _passkey(adapter, other.id)))

        listed = await list_details(user.id)
        expect(
            isinstance(listed, list) and len(listed) == len(expected),
            f"list_authenticator_details returned {listed!r}; expected the user's 4",
        )
        for found, details in zip(listed, expected, strict=True):
            same(found, details, "list_authenticator_details (no created first, then oldest)")
        unknown = await list_details(str(uuid.uuid4()))
        expect(unknown == [], f"list_authenticator_details(unknown user) returned {unknown!r}")

    async def test_save_authenticator_details_replaces_them(self, adapter: Adapter) -> None:
        save, list_details = _passkey_methods(adapter)
        user = await add_user(adapter)
        authenticator = await _passkey(adapter, user.id)
        await save(new_passkey_details(authenticator))
        renamed = new_passkey_details(authenticator, name="Work laptop", last_used=None)
        await save(renamed)
        listed = await list_details(user.id)
        expect(len(listed) == 1, f"details saved twice are listed as {listed!r}")
        same(listed[0], renamed, "list_authenticator_details after a second save")

    async def test_update_authenticator_details(self, adapter: Adapter) -> None:
        save, list_details = _passkey_methods(adapter)
        update = optional(adapter, "update_authenticator_details")
        user = await add_user(adapter)
        authenticator, other = await _passkey(adapter, user.id), await _passkey(adapter, user.id)
        details = new_passkey_details(authenticator, last_used=None)
        kept = new_passkey_details(other, created=None)
        for each in (details, kept):
            await save(each)

        renamed = dataclasses.replace(details, name="Büro-Schlüssel 🔑")
        same(await update(authenticator.credential_id, {"name": renamed.name}), renamed, "update")
        used = dataclasses.replace(renamed, last_used=date_in(days=0, microsecond=424_242))
        returned = await update(authenticator.credential_id, {"last_used": used.last_used})
        same(returned, used, "update_authenticator_details(last_used)")
        same(await update(authenticator.credential_id, {}), used, "update with no changes")
        listed = {d.credential_id: d for d in await list_details(user.id)}
        same(listed.get(authenticator.credential_id), used, "the updated details, listed")
        same(listed.get(other.credential_id), kept, "other details after an update")

        unknown = b64(secrets.token_bytes(32), url=True)
        absent(await update(unknown, {"name": "x"}), "update_authenticator_details(unknown)")
        expect(len(await list_details(user.id)) == 2, "an update of unknown details stored some")

    async def test_update_authenticator_details_checks_the_changes(self, adapter: Adapter) -> None:
        save, list_details = _passkey_methods(adapter)
        update = optional(adapter, "update_authenticator_details")
        user = await add_user(adapter)
        details = new_passkey_details(await _passkey(adapter, user.id))
        await save(details)
        refused: list[tuple[dict[str, Any], type[Exception]]] = [
            ({"name": ""}, ValueError),
            ({"name": "n" * 101}, ValueError),
            ({"credential_id": "another"}, ValueError),
            ({"user_id": user.id}, ValueError),
            ({"created": date_in(days=0, microsecond=0)}, ValueError),
            ({"colour": "red"}, ValueError),
            ({"name": "ok", "colour": "red"}, ValueError),
            ({"name": 5}, TypeError),
            ({"last_used": "yesterday"}, TypeError),
        ]
        for changes, error in refused:
            try:
                returned = await update(details.credential_id, changes)
                outcome = f"returned {returned!r}"
            except error:
                continue
            except Exception as exc:
                outcome = f"raised {exc!r}"
            raise AssertionError(
                f"update_authenticator_details({changes!r}) {outcome}; expected {error.__name__}"
            )
        listed = await list_details(user.id)
        expect(len(listed) == 1, f"details after refused updates: {listed!r}")
        same(listed[0], details, "details after refused updates (nothing written)")

    async def test_delete_authenticator_deletes_it_and_its_details(self, adapter: Adapter) -> None:
        save, list_details = _passkey_methods(adapter)
        delete = optional(adapter, "delete_authenticator")
        user = await add_user(adapter)
        gone, kept = await _passkey(adapter, user.id), await _passkey(adapter, user.id)
        for authenticator in (gone, kept):
            await save(new_passkey_details(authenticator))

        same(await delete(gone.credential_id), gone, "delete_authenticator")
        absent(await adapter.get_authenticator(gone.credential_id), "a deleted passkey")
        listed = await adapter.list_authenticators_by_user_id(user.id)
        expect(
            [a.credential_id for a in listed] == [kept.credential_id],
            f"list_authenticators_by_user_id after delete_authenticator: {listed!r}",
        )
        details = await list_details(user.id)
        expect(
            [d.credential_id for d in details] == [kept.credential_id],
            f"list_authenticator_details after delete_authenticator: {details!r}",
        )
        absent(await delete(gone.credential_id), "delete_authenticator of a deleted passkey")
        unknown = b64(secrets.token_bytes(32), url=True)
        absent(await delete(unknown), "delete_authenticator(unknown)")
        same(await adapter.get_authenticator(kept.credential_id), kept, "the other passkey")

    async def test_delete_user_deletes_passkey_details(self, adapter: Adapter) -> None:
        save, list_details = _passkey_methods(adapter)
        user, other = await add_user(adapter), await add_user(adapter)
        mine = new_passkey_details(await _passkey(adapter, user.id))
        theirs = new_passkey_details(await _passkey(adapter, other.id))
        for details in (mine, theirs):
            await save(details)
        await adapter.delete_user(user.id)
        gone = await list_details(user.id)
        expect(gone == [], f"a deleted user's passkey details are still listed: {gone!r}")
        listed = await list_details(other.id)
        expect(len(listed) == 1, f"another user's passkey details: {listed!r}")
        same(listed[0], theirs, "another user's passkey details after delete_user")


def _passkey_methods(adapter: object) -> tuple[Method, Method]:
    """The adapter's ``save_authenticator_details`` and ``list_authenticator_details``;
    the test is skipped for an adapter without them."""
    __tracebackhide__ = True
    return (
        optional(adapter, "save_authenticator_details"),
        optional(adapter, "list_authenticator_details"),
    )


async def _passkey(adapter: Adapter, user_id: str, prefix: str = "") -> AdapterAuthenticator:
    """A passkey of the user, stored; with ``prefix``, its credential id is ``prefix``
    then hex (the same order in every collation)."""
    if not prefix:
        authenticator = new_authenticator(user_id)
    else:
        credential_id = prefix + secrets.token_hex(16)
        authenticator = new_authenticator(
            user_id, credential_id=credential_id, provider_account_id=credential_id
        )
    await adapter.create_authenticator(authenticator)
    return authenticator
