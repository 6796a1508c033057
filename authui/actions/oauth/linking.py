"""Which user an OAuth sign-in belongs to: the account linking rules.

Decided before the ``sign_in`` callback runs, written only after it allows the sign-in:

- account linked to the signed-in user: that user;
- linked to another user than the signed-in one: ``OAuthAccountNotLinked``;
- linked, nobody signed in: the linked user;
- not linked, someone signed in: linked to them ("connect another provider"), if they
  signed in less than ``AccountOptions.reauthenticate_after`` ago (else
  ``ReauthenticationRequired``: a stolen session cookie must not add its thief's account);
- not linked, nobody signed in, a user has the email: ``OAuthAccountNotLinked``, unless
  the provider allows email linking *and* vouches for the address (then linked to them);
- not linked, nobody signed in, no such user: a new user, with the account linked
  (both in one atomic step when the adapter has ``create_user_and_account``).

Without an adapter nothing is stored: the user's id is derived from the provider and
the account id, so it is the same at every sign-in.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, fields, replace
from typing import Any

from authui.actions.activity import ACCOUNT_LINKED, record
from authui.actions.oauth.callback import Authorized
from authui.actions.password.common import forget_unproven_password
from authui.adapters.base import AdapterAccount, AdapterUser, user_record
from authui.callbacks import emit
from authui.context import Context
from authui.errors import OAuthAccountNotLinked, ReauthenticationRequired
from authui.providers.oauth import OAuthProvider, stable_user_id
from authui.sessions.current import signed_in
from authui.sessions.facts import recent_enough

NEEDED_FOR = "OAuth sign-in with an adapter"

Store = Callable[[], Awaitable[dict[str, Any]]]
"""Writes what the sign-in needs (a new user, a linked account); returns the stored user."""

_ACCOUNT_FIELDS = frozenset(f.name for f in fields(AdapterAccount))


@dataclass(frozen=True, slots=True)
class Linking:
    """The outcome of the rules.

    Attributes:
        user: The user the ``sign_in`` callback sees.
        is_new_user: ``True`` when a user will be created, ``None`` without an adapter.
        store: What to write once ``sign_in`` allows it, if anything.
        signed_in: The user is the one already signed in: a database session is kept
            rather than a second one made.
    """

    user: dict[str, Any]
    is_new_user: bool | None
    store: Store | None = None
    signed_in: bool = False

    @property
    def proves_identity(self) -> bool:
        """Whether the sign-in shows who the user is: all but linking a new account to
        the signed-in user (see ``finish_sign_in``)."""
        return not (self.signed_in and self.store is not None)


async def decide(ctx: Context, provider: OAuthProvider, authorized: Authorized) -> Linking:
    """Apply the rules for this sign-in.

    Raises:
        OAuthAccountNotLinked: The account belongs to another user than the signed-in
            one, or its email belongs to a user it may not be linked to.
    """
    adapter = ctx.options.adapter
    account_id = authorized.account["providerAccountId"]
    if adapter is None:
        return Linking({**authorized.user, "id": stable_user_id(provider.id, account_id)}, None)
    current = await signed_in(ctx, adapter, NEEDED_FOR)
    linked: AdapterUser | None = await adapter.call(
        "get_user_by_account", NEEDED_FOR, provider.id, account_id
    )
    if linked is not None:
        if current is not None and current.user.id != linked.id:
            raise OAuthAccountNotLinked(
                f"The {provider.id} account is already linked to another user than the "
                "signed-in one"
            )
        return Linking(user_record(linked), False, signed_in=current is not None)
    if current is not None:
        if not recent_enough(ctx, current.facts):
            raise ReauthenticationRequired(
                f"Linking a {provider.id} account needs a recent sign-in of the signed-in user"
            )
        link = _linker(ctx, provider, authorized, current.user)
        return Linking(user_record(current.user), False, link, signed_in=True)
    email = authorized.user.get("email")
    owner: AdapterUser | None = (
        await adapter.call("get_user_by_email", NEEDED_FOR, email) if email else None
    )
    if owner is not None:
        if not provider.allow_dangerous_email_account_linking:
            raise OAuthAccountNotLinked(
                f"Another user already has the email of this {provider.id} account; sign in "
                "as that user first to link it"
            )
        if not provider.email_verified(authorized.profile):
            raise OAuthAccountNotLinked(
                f"{provider.id} allows linking by email, but does not say this email "
                "address is verified, so it is not linked"
            )
        link = _linker(ctx, provider, authorized, owner)

        async def store() -> dict[str, Any]:
            assert adapter is not None
            await forget_unproven_password(adapter, owner)
            return await link()

        return Linking(user_record(owner), False, store)
    new_user = AdapterUser(
        id=str(uuid.uuid4()),
        email=email,
        name=authorized.user.get("name"),
        image=authorized.user.get("image"),
    )
    return Linking(
        {**authorized.user, "id": new_user.id},
        True,
        _creator(ctx, provider, authorized, new_user),
    )


def _account(provider: OAuthProvider, authorized: Authorized, user_id: str) -> AdapterAccount:
    kept = provider.account(authorized.account) or {}
    return AdapterAccount(
        **{k: v for k, v in kept.items() if k in _ACCOUNT_FIELDS - {"user_id", "type"}},
        user_id=user_id,
        type=provider.type,
        provider=provider.id,
        provider_account_id=authorized.account["providerAccountId"],
    )


async def _emit_link(ctx: Context, authorized: Authorized, user: AdapterUser) -> None:
    """The ``link_account`` event, for an account linked to ``user``."""
    await emit(
        ctx.options.config.events.link_account,
        ctx.options.logger,
        user=user_record(user),
        account=authorized.account,
        profile=authorized.profile,
    )


def _linker(
    ctx: Context, provider: OAuthProvider, authorized: Authorized, user: AdapterUser
) -> Store:
    async def store() -> dict[str, Any]:
        adapter = ctx.options.adapter
        assert adapter is not None
        await adapter.call("link_account", NEEDED_FOR, _account(provider, authorized, user.id))
        await _emit_link(ctx, authorized, user)
        await record(ctx, user.id, ACCOUNT_LINKED, provider=provider.id)
        return user_record(user)

    return store


def _creator(
    ctx: Context, provider: OAuthProvider, authorized: Authorized, new_user: AdapterUser
) -> Store:
    async def store() -> dict[str, Any]:
        stored = await _create_with_account(
            ctx, new_user, _account(provider, authorized, new_user.id)
        )
        record = user_record(stored)
        await emit(ctx.options.config.events.create_user, ctx.options.logger, user=record)
        await _emit_link(ctx, authorized, stored)
        return record

    return store


async def _create_with_account(
    ctx: Context, new_user: AdapterUser, account: AdapterAccount
) -> AdapterUser:
    """Store ``new_user`` with ``account`` linked to it: in one atomic step when the adapter
    has ``create_user_and_account``, else ``create_user`` then ``link_account``, deleting
    the user again if linking fails (no user without its account). Returns the stored
    user."""
    adapter = ctx.options.adapter
    assert adapter is not None
    if adapter.has("create_user_and_account"):
        stored: AdapterUser
        stored, _ = await adapter.call("create_user_and_account", NEEDED_FOR, new_user, account)
        return stored
    stored = await adapter.call("create_user", NEEDED_FOR, new_user)
    try:
        await adapter.call("link_account", NEEDED_FOR, replace(account, user_id=stored.id))
    except BaseException:
        await adapter.call("delete_user", NEEDED_FOR, stored.id)
        raise
    return stored
