"""The suite's tests of storing a new user together with what it signs in with: its first
session (``create_user_and_session``) and its first account (``create_user_and_account``),
each both or neither."""

from __future__ import annotations

import dataclasses
import inspect
import uuid
from collections.abc import Awaitable, Callable
from typing import cast

from authui.adapters.base import Adapter, AdapterAccount, AdapterSession, AdapterUser
from authui.testing.adapter_suite.common import (
    ConformanceBase,
    absent,
    add_user,
    date_in,
    email_of,
    expect,
    new_account,
    new_user,
    optional,
    present,
    same,
)

CreateWithAccount = Callable[
    [AdapterUser, AdapterAccount], Awaitable[tuple[AdapterUser, AdapterAccount]]
]
"""An adapter's ``create_user_and_account(user, account)``."""


def creator(adapter: object) -> CreateWithAccount:
    """The adapter's ``create_user_and_account``; for an adapter without it (it is
    optional), the test is skipped."""
    __tracebackhide__ = True
    return cast("CreateWithAccount", optional(adapter, "create_user_and_account"))


async def refused(call: Awaitable[object]) -> bool:
    """Whether ``call`` raised."""
    try:
        await call
    except Exception:
        return True
    return False


class NewUserConformance(ConformanceBase):
    """A new user with its first session, and with its first account."""

    async def test_new_user_with_first_session(self, adapter: Adapter) -> None:
        """authui stores a new user with its first session: in one call when the adapter
        offers ``create_user_and_session`` (then both or neither: a refused user leaves no
        session), else with ``create_user`` then ``create_session``."""
        user = new_user()
        token, expires = str(uuid.uuid4()), date_in(days=30, microsecond=654_321)
        atomic = getattr(adapter, "create_user_and_session", None)
        if atomic is None:
            stored = await adapter.create_user(user)
            await adapter.create_session(
                AdapterSession(session_token=token, user_id=stored.id, expires=expires)
            )
        else:
            expect(
                inspect.iscoroutinefunction(atomic),
                "create_user_and_session must be a coroutine function",
            )
            stored, session = await atomic(user, token, expires)
            expect(session.user_id == stored.id, "create_user_and_session: session.user_id")
            # The same email again: a schema with unique emails refuses the user; then the
            # session must not be stored either. Without that constraint both are stored.
            second_token = str(uuid.uuid4())
            failed = await refused(atomic(new_user(email=user.email), second_token, expires))
            second = await adapter.get_session_and_user(second_token)
            if failed:
                absent(second, "a session from a create_user_and_session that failed")
            else:
                present(second, "the session of a create_user_and_session that succeeded")
        session_found, user_found = present(
            await adapter.get_session_and_user(token),
            "get_session_and_user after storing a new user and its first session",
        )
        same(user_found, dataclasses.replace(user, id=stored.id), "the new user")
        same(
            session_found,
            AdapterSession(session_token=token, user_id=stored.id, expires=expires),
            "the new user's first session",
        )

    async def test_new_user_with_account(self, adapter: Adapter) -> None:
        create = creator(adapter)
        user = new_user()
        account = new_account(user.id, type="oidc", provider="google")
        result = await create(user, account)
        expect(
            isinstance(result, tuple) and len(result) == 2,
            f"create_user_and_account returned {result!r}; expected (user, account)",
        )
        stored, linked = result
        expected_user = same(stored, dataclasses.replace(user, id=stored.id), "the new user")
        expected_account = dataclasses.replace(account, user_id=expected_user.id)
        same(linked, expected_account, "create_user_and_account: the account")
        same(await adapter.get_user(stored.id), expected_user, "get_user of the new user")
        same(
            await adapter.get_user_by_account(account.provider, account.provider_account_id),
            expected_user,
            "get_user_by_account of the new user's account",
        )
        same(
            await adapter.get_account(account.provider_account_id, account.provider),
            expected_account,
            "get_account of the new user's account",
        )

    async def test_new_user_with_account_is_both_or_neither(self, adapter: Adapter) -> None:
        """A refused user leaves no account, and a refused account leaves no user. Which
        rows are refused is the schema's: authui's tables have unique emails and accounts;
        Auth.js's own DDL has neither, and then both rows are stored."""
        create = creator(adapter)
        owner = await add_user(adapter)
        taken = new_account(owner.id)
        await adapter.link_account(taken)

        newcomer = new_user()
        same_account = new_account(
            newcomer.id, provider=taken.provider, provider_account_id=taken.provider_account_id
        )
        if await refused(create(newcomer, same_account)):
            absent(
                await adapter.get_user_by_email(email_of(newcomer)),
                "a user from a create_user_and_account whose account was refused",
            )
            same(
                await adapter.get_user_by_account(taken.provider, taken.provider_account_id),
                owner,
                "get_user_by_account of an account a refused create_user_and_account named",
            )
        else:
            present(
                await adapter.get_user_by_email(email_of(newcomer)),
                "the user of a create_user_and_account that succeeded",
            )

        same_email = new_user(email=owner.email)
        fresh = new_account(same_email.id, provider="gitlab")
        if await refused(create(same_email, fresh)):
            absent(
                await adapter.get_account(fresh.provider_account_id, fresh.provider),
                "an account from a create_user_and_account whose user was refused",
            )
        else:
            present(
                await adapter.get_account(fresh.provider_account_id, fresh.provider),
                "the account of a create_user_and_account that succeeded",
            )
        same(await adapter.get_user(owner.id), owner, "get_user of the user already there")
