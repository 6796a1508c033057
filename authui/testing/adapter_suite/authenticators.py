"""The passkey part of the suite: ``AdapterAuthenticatorConformance``, with the account
center's passkey tests (``PasskeyDetailsConformance``)."""

from __future__ import annotations

import dataclasses
import secrets
import uuid
from typing import Any, ClassVar

from authui.adapters.base import (
    Adapter,
)
from authui.testing.adapter_suite.common import (
    AUTHENTICATOR_METHODS,
    absent,
    add_user,
    b64,
    check_coroutine_methods,
    expect,
    new_account,
    new_authenticator,
    same,
)
from authui.testing.adapter_suite.passkey_details import PasskeyDetailsConformance


class AdapterAuthenticatorConformance(PasskeyDetailsConformance):
    """The passkey part of the suite: ``AdapterConformance`` includes it.

    Use it on its own only to test an adapter's authenticator methods alone (with the
    account center's passkey methods, when the adapter has them). Setting
    ``supports_webauthn = False`` on a subclass removes these tests from it (they are not
    collected, rather than reported as skipped).
    """

    supports_webauthn: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in dir(AdapterAuthenticatorConformance):
            if not name.startswith("test_"):
                continue
            test = getattr(AdapterAuthenticatorConformance, name)
            if not cls.supports_webauthn:
                setattr(cls, name, None)  # not callable: pytest does not collect it
            elif getattr(cls, name) is None:
                setattr(cls, name, test)

    async def test_authenticator_methods_are_coroutine_functions(self, adapter: Adapter) -> None:
        check_coroutine_methods(adapter, AUTHENTICATOR_METHODS)

    async def test_create_authenticator_returns_it(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        authenticator = new_authenticator(user.id)
        created = await adapter.create_authenticator(authenticator)
        same(created, authenticator, "create_authenticator")

    async def test_get_authenticator(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        authenticator = new_authenticator(user.id, transports="usb,ble,nfc")
        await adapter.link_account(
            new_account(
                user.id,
                type="webauthn",
                provider="passkey",
                provider_account_id=authenticator.credential_id,
                access_token=None,
                refresh_token=None,
                expires_at=None,
                id_token=None,
                scope=None,
                token_type=None,
                session_state=None,
            )
        )
        await adapter.create_authenticator(authenticator)
        await adapter.create_authenticator(new_authenticator(user.id))
        found = await adapter.get_authenticator(authenticator.credential_id)
        same(found, authenticator, "get_authenticator")

    async def test_authenticator_optional_fields_round_trip(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        authenticator = new_authenticator(
            user.id,
            transports=None,
            credential_backed_up=False,
            credential_device_type="singleDevice",
            counter=0,
        )
        await adapter.create_authenticator(authenticator)
        found = await adapter.get_authenticator(authenticator.credential_id)
        same(found, authenticator, "get_authenticator (transports None)")

    async def test_get_authenticator_unknown_is_none(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        await adapter.create_authenticator(new_authenticator(user.id))
        unknown = b64(secrets.token_bytes(32), url=True)
        absent(await adapter.get_authenticator(unknown), "get_authenticator(unknown)")

    async def test_list_authenticators_by_user_id(self, adapter: Adapter) -> None:
        user_a = await add_user(adapter)
        user_b = await add_user(adapter)
        a1 = new_authenticator(user_a.id)
        a2 = new_authenticator(user_a.id, transports="internal,hybrid")
        b1 = new_authenticator(user_b.id)
        for authenticator in (a1, a2, b1):
            await adapter.create_authenticator(authenticator)

        listed_a = await adapter.list_authenticators_by_user_id(user_a.id)
        expect(isinstance(listed_a, list), f"list_authenticators returned {listed_a!r}")
        expect(len(listed_a) == 2, f"user A has 2 authenticators; listed {listed_a!r}")
        by_id = {a.credential_id: a for a in listed_a}
        expect(
            set(by_id) == {a1.credential_id, a2.credential_id},
            f"user A's authenticators are {sorted(by_id)}",
        )
        for expected in (a1, a2):
            same(by_id[expected.credential_id], expected, "list_authenticators_by_user_id(A)")

        listed_b = await adapter.list_authenticators_by_user_id(user_b.id)
        expect(len(listed_b) == 1, f"user B has 1 authenticator; listed {listed_b!r}")
        same(listed_b[0], b1, "list_authenticators_by_user_id(B)")

        listed_unknown = await adapter.list_authenticators_by_user_id(str(uuid.uuid4()))
        expect(
            listed_unknown == [],
            f"list_authenticators_by_user_id(unknown) returned {listed_unknown!r}; expected []",
        )

    async def test_update_authenticator_counter(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        authenticator = new_authenticator(user.id, counter=7)
        other = new_authenticator(user.id, counter=3)
        await adapter.create_authenticator(authenticator)
        await adapter.create_authenticator(other)

        updated = await adapter.update_authenticator_counter(authenticator.credential_id, 8)
        expected = dataclasses.replace(authenticator, counter=8)
        same(updated, expected, "update_authenticator_counter")
        stored = await adapter.get_authenticator(authenticator.credential_id)
        same(stored, expected, "get_authenticator after update_authenticator_counter")
        same(
            await adapter.get_authenticator(other.credential_id),
            other,
            "get_authenticator of another credential after update_authenticator_counter",
        )

    async def test_update_authenticator_counter_unknown_raises(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        await adapter.create_authenticator(new_authenticator(user.id))
        unknown = b64(secrets.token_bytes(32), url=True)
        try:
            returned = await adapter.update_authenticator_counter(unknown, 1)
            outcome = f"returned {returned!r}"
        except Exception:  # any exception will do: the protocol only says that it raises
            outcome = "raised"
        expect(
            outcome == "raised",
            f"update_authenticator_counter(unknown) {outcome}; expected it to raise",
        )
        absent(await adapter.get_authenticator(unknown), "get_authenticator after the failure")

    async def test_delete_user_deletes_authenticators(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        other = await add_user(adapter)
        mine = [new_authenticator(user.id), new_authenticator(user.id)]
        theirs = new_authenticator(other.id)
        for authenticator in (*mine, theirs):
            await adapter.create_authenticator(authenticator)

        await adapter.delete_user(user.id)

        for authenticator in mine:
            absent(
                await adapter.get_authenticator(authenticator.credential_id),
                "get_authenticator of a deleted user's passkey",
            )
        listed = await adapter.list_authenticators_by_user_id(user.id)
        expect(listed == [], f"a deleted user's authenticators are still listed: {listed!r}")
        same(
            await adapter.get_authenticator(theirs.credential_id),
            theirs,
            "get_authenticator of another user's passkey after delete_user",
        )
