"""The suite's tests of users and accounts, and of deleting users."""

from __future__ import annotations

import dataclasses
import uuid

from authui.adapters.base import (
    Adapter,
    AdapterAccount,
    AdapterUser,
)
from authui.testing.adapter_suite.common import (
    ADAPTER_METHODS,
    NO_EMAIL,
    ConformanceBase,
    absent,
    add_user,
    check_coroutine_methods,
    check_utc,
    date_in,
    email_of,
    expect,
    new_account,
    new_session,
    new_user,
    present,
    same,
    same_or_none,
)


class UserConformance(ConformanceBase):
    """Users, users without email, accounts, and what deleting a user deletes."""

    # -- the protocol ---------------------------------------------------------------------

    async def test_adapter_methods_are_coroutine_functions(self, adapter: Adapter) -> None:
        check_coroutine_methods(adapter, ADAPTER_METHODS)

    # -- users ----------------------------------------------------------------------------

    async def test_create_user_returns_the_user(self, adapter: Adapter) -> None:
        user = new_user()
        created = await adapter.create_user(user)
        expect(
            isinstance(created, AdapterUser) and isinstance(created.id, str) and bool(created.id),
            f"create_user returned {created!r}; expected an AdapterUser with an id",
        )
        # An adapter may assign its own id (as in Auth.js); every other field is kept.
        same(created, dataclasses.replace(user, id=created.id), "create_user")

    async def test_get_user(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        await add_user(adapter)
        same(await adapter.get_user(user.id), user, "get_user")

    async def test_get_user_unknown_id_is_none(self, adapter: Adapter) -> None:
        await add_user(adapter)
        absent(await adapter.get_user(str(uuid.uuid4())), "get_user(unknown id)")

    async def test_get_user_by_email(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        await add_user(adapter)
        same(await adapter.get_user_by_email(email_of(user)), user, "get_user_by_email")

    async def test_get_user_by_email_unknown_is_none(self, adapter: Adapter) -> None:
        await add_user(adapter)
        unknown = f"nobody.{uuid.uuid4().hex[:12]}@example.com"
        absent(await adapter.get_user_by_email(unknown), "get_user_by_email(unknown)")

    async def test_email_verified_round_trips_as_utc(self, adapter: Adapter) -> None:
        verified = date_in(days=-3, microsecond=987_654)
        user = await add_user(adapter, email_verified=verified)
        found = same(await adapter.get_user(user.id), user, "get_user")
        check_utc(found.email_verified, "get_user: AdapterUser.email_verified")
        by_email = same(await adapter.get_user_by_email(email_of(user)), user, "get_user_by_email")
        check_utc(by_email.email_verified, "get_user_by_email: AdapterUser.email_verified")

    async def test_optional_user_fields_round_trip_none(self, adapter: Adapter) -> None:
        user = await add_user(adapter, name=None, image=None, email_verified=None)
        same(await adapter.get_user(user.id), user, "get_user (name, image None)")
        same(await adapter.get_user_by_email(email_of(user)), user, "get_user_by_email")

    async def test_update_user_changes_only_given_fields(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        other = await add_user(adapter)
        updated = await adapter.update_user(user.id, {"name": "Augusta Ada King"})
        expected = dataclasses.replace(user, name="Augusta Ada King")
        same(updated, expected, "update_user")
        same(await adapter.get_user(user.id), expected, "get_user after update_user")

        updated = await adapter.update_user(user.id, {"image": None})
        expected = dataclasses.replace(expected, image=None)
        same(updated, expected, "update_user(image=None)")
        same(await adapter.get_user(user.id), expected, "get_user after update_user")
        same(await adapter.get_user(other.id), other, "get_user of another user")

    async def test_update_user_email_moves_email_lookup(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        new_email = f"ada.king.{uuid.uuid4().hex[:12]}@example.com"
        updated = await adapter.update_user(user.id, {"email": new_email})
        expected = dataclasses.replace(user, email=new_email)
        same(updated, expected, "update_user(email)")
        same(await adapter.get_user_by_email(new_email), expected, "get_user_by_email(new)")
        absent(await adapter.get_user_by_email(email_of(user)), "get_user_by_email(old email)")

    async def test_update_user_sets_and_clears_email_verified(self, adapter: Adapter) -> None:
        user = await add_user(adapter, email_verified=None)
        verified = date_in(days=0, microsecond=500_999)
        updated = await adapter.update_user(user.id, {"email_verified": verified})
        expected = dataclasses.replace(user, email_verified=verified)
        same(updated, expected, "update_user(email_verified=date)")
        same(await adapter.get_user(user.id), expected, "get_user after setting it")

        cleared = await adapter.update_user(user.id, {"email_verified": None})
        same(cleared, user, "update_user(email_verified=None)")
        same(await adapter.get_user(user.id), user, "get_user after clearing it")

    # -- users without an email -----------------------------------------------------------
    # OAuth providers such as Twitter/X, Bitbucket and Reddit give no address. Auth.js's
    # ``email`` may be NULL and is unique only among addresses: any number of users have none.

    async def test_users_without_email_are_stored(self, adapter: Adapter) -> None:
        first = await add_user(adapter, **NO_EMAIL)
        try:
            second = await add_user(adapter, **NO_EMAIL)
        except Exception as exc:
            raise AssertionError(
                f"create_user refused a second user without email ({exc!r}); emails are "
                "unique only among addresses"
            ) from exc
        for user in (first, second):
            account = new_account(user.id, provider="twitter")
            await adapter.link_account(account)
            same(await adapter.get_user(user.id), user, "get_user (no email)")
            same(
                await adapter.get_user_by_account(account.provider, account.provider_account_id),
                user,
                "get_user_by_account (no email)",
            )

    async def test_update_user_sets_and_clears_email(self, adapter: Adapter) -> None:
        user = await add_user(adapter, **NO_EMAIL)
        other = await add_user(adapter, **NO_EMAIL)
        address = f"ada.{uuid.uuid4().hex[:12]}@example.com"
        with_email = dataclasses.replace(user, email=address)
        updated = await adapter.update_user(user.id, {"email": address})
        same(updated, with_email, "update_user(email=address) of a user without email")
        same(await adapter.get_user(user.id), with_email, "get_user after setting the email")
        same(
            await adapter.get_user_by_email(address),
            with_email,
            "get_user_by_email after setting the email",
        )

        cleared = await adapter.update_user(user.id, {"email": None})
        same(cleared, user, "update_user(email=None)")
        same(await adapter.get_user(user.id), user, "get_user after clearing the email")
        absent(await adapter.get_user_by_email(address), "get_user_by_email of a cleared email")
        # The address is free again: another user may have it.
        taker = await add_user(adapter, email=address)
        same(
            await adapter.get_user_by_email(address),
            taker,
            "get_user_by_email of a cleared email another user then took",
        )
        same(await adapter.get_user(other.id), other, "get_user of another user without email")

    async def test_delete_user_without_email(self, adapter: Adapter) -> None:
        user = await add_user(adapter, **NO_EMAIL)
        other = await add_user(adapter, **NO_EMAIL)
        account = new_account(user.id, provider="twitter")
        other_account = new_account(other.id, provider="twitter")
        other_session = new_session(other.id)
        for a in (account, other_account):
            await adapter.link_account(a)
        await adapter.create_session(other_session)

        same_or_none(await adapter.delete_user(user.id), user, "delete_user (no email)")
        absent(await adapter.get_user(user.id), "get_user after delete_user (no email)")
        absent(
            await adapter.get_user_by_account(account.provider, account.provider_account_id),
            "get_user_by_account of a deleted user without email",
        )
        same(await adapter.get_user(other.id), other, "get_user of another user without email")
        same(
            await adapter.get_user_by_account(
                other_account.provider, other_account.provider_account_id
            ),
            other,
            "get_user_by_account of another user without email",
        )
        pair = present(
            await adapter.get_session_and_user(other_session.session_token),
            "get_session_and_user of another user without email after delete_user",
        )
        same(pair[1], other, "get_session_and_user: the user without email")

    # -- accounts -------------------------------------------------------------------------

    async def test_link_account_and_get_user_by_account(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        other = await add_user(adapter)
        account = new_account(user.id)
        same_or_none(await adapter.link_account(account), account, "link_account")
        await adapter.link_account(new_account(other.id))
        found = await adapter.get_user_by_account(account.provider, account.provider_account_id)
        same(found, user, "get_user_by_account")

    async def test_get_user_by_account_unknown_pair_is_none(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        account = new_account(user.id)
        await adapter.link_account(account)
        for provider, provider_account_id in (
            ("github", str(uuid.uuid4())),
            ("google", account.provider_account_id),
            (account.provider_account_id, account.provider),
        ):
            absent(
                await adapter.get_user_by_account(provider, provider_account_id),
                f"get_user_by_account({provider!r}, {provider_account_id!r})",
            )

    async def test_get_account(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        account = new_account(user.id)
        await adapter.link_account(account)
        await adapter.link_account(new_account(user.id, provider="gitlab"))
        found = await adapter.get_account(account.provider_account_id, account.provider)
        same(found, account, "get_account(provider_account_id, provider)")

    async def test_get_account_mismatched_arguments_are_none(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        account = new_account(user.id)
        await adapter.link_account(account)
        for provider_account_id, provider in (
            (account.provider, account.provider_account_id),  # arguments swapped
            (account.provider_account_id, "google"),
            (str(uuid.uuid4()), account.provider),
            (account.provider, account.provider),
            (account.provider_account_id, account.provider_account_id),
        ):
            absent(
                await adapter.get_account(provider_account_id, provider),
                f"get_account({provider_account_id!r}, {provider!r})",
            )

    async def test_account_oauth_fields_round_trip(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        account = new_account(user.id, type="oidc", provider="google")
        await adapter.link_account(account)
        found = same(
            await adapter.get_account(account.provider_account_id, account.provider),
            account,
            "get_account (every OAuth field)",
        )
        expect(
            type(found.expires_at) is int,
            f"AdapterAccount.expires_at is {found.expires_at!r}; expected an int",
        )

    async def test_account_without_tokens_round_trips(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        account = AdapterAccount(
            user_id=user.id, type="email", provider="email", provider_account_id=email_of(user)
        )
        await adapter.link_account(account)
        found = await adapter.get_account(account.provider_account_id, account.provider)
        same(found, account, "get_account (token fields None)")

    async def test_unlink_account(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        account = new_account(user.id)
        kept = new_account(user.id, provider="gitlab")
        await adapter.link_account(account)
        await adapter.link_account(kept)

        removed = await adapter.unlink_account(account.provider, account.provider_account_id)
        same_or_none(removed, account, "unlink_account")
        absent(
            await adapter.get_account(account.provider_account_id, account.provider),
            "get_account after unlink_account",
        )
        absent(
            await adapter.get_user_by_account(account.provider, account.provider_account_id),
            "get_user_by_account after unlink_account",
        )
        same(
            await adapter.get_account(kept.provider_account_id, kept.provider),
            kept,
            "get_account of the user's other account after unlink_account",
        )
        same(await adapter.get_user(user.id), user, "get_user after unlink_account")

    # -- deleting users -------------------------------------------------------------------

    async def test_delete_user_cascades(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        other = await add_user(adapter)
        session, account = new_session(user.id), new_account(user.id)
        other_session, other_account = new_session(other.id), new_account(other.id)
        for s in (session, other_session):
            await adapter.create_session(s)
        for a in (account, other_account):
            await adapter.link_account(a)

        deleted = await adapter.delete_user(user.id)
        same_or_none(deleted, user, "delete_user")

        absent(await adapter.get_user(user.id), "get_user after delete_user")
        absent(
            await adapter.get_user_by_email(email_of(user)), "get_user_by_email after delete_user"
        )
        absent(
            await adapter.get_session_and_user(session.session_token),
            "get_session_and_user of a deleted user's session",
        )
        absent(
            await adapter.get_account(account.provider_account_id, account.provider),
            "get_account of a deleted user's account",
        )
        absent(
            await adapter.get_user_by_account(account.provider, account.provider_account_id),
            "get_user_by_account of a deleted user's account",
        )

        same(await adapter.get_user(other.id), other, "get_user of another user")
        pair = present(
            await adapter.get_session_and_user(other_session.session_token),
            "get_session_and_user of another user's session after delete_user",
        )
        same(pair[0], other_session, "another user's session")
        same(
            await adapter.get_account(other_account.provider_account_id, other_account.provider),
            other_account,
            "get_account of another user's account after delete_user",
        )
