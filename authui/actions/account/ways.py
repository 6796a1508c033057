"""The ways a user can sign in, so that the account center never removes the last one.

Counted: each linked account of a configured OAuth or OpenID provider, each passkey (with a
passkey provider configured), sign-in links to the user's address (with an email
provider configured), and the user's password (with a password provider configured). A
credentials provider is not counted: whether the user has credentials is the app's to
know.
"""

from __future__ import annotations

from dataclasses import dataclass

from authui.actions.account.gate import NEEDED_FOR, Holder
from authui.adapters.base import AdapterAccount, AdapterAuthenticator
from authui.context import Context
from authui.options import Options
from authui.providers.email import EmailProvider
from authui.providers.oauth import OAuthProvider
from authui.providers.password import Password
from authui.providers.webauthn import WebAuthnProvider


@dataclass(frozen=True, slots=True)
class WaysIn:
    """A user's ways to sign in."""

    accounts: list[AdapterAccount]
    passkeys: list[AdapterAuthenticator]
    email: bool
    password: bool = False

    @property
    def count(self) -> int:
        return len(self.accounts) + len(self.passkeys) + int(self.email) + int(self.password)


def passkey_provider(options: Options) -> WebAuthnProvider | None:
    """The configuration's passkey provider (the first), if any."""
    return next((p for p in options.providers.values() if isinstance(p, WebAuthnProvider)), None)


def email_provider(options: Options) -> EmailProvider | None:
    """The configuration's email provider (the first), if any."""
    return next((p for p in options.providers.values() if isinstance(p, EmailProvider)), None)


async def linked_accounts(ctx: Context, holder: Holder) -> list[AdapterAccount]:
    """The user's accounts at the configured OAuth and OpenID providers."""
    if not holder.can("list_user_accounts"):
        return []
    found: list[AdapterAccount] = await holder.adapter.call(
        "list_user_accounts", NEEDED_FOR, holder.user.id
    )
    providers = ctx.options.providers
    return [a for a in found if isinstance(providers.get(a.provider), OAuthProvider)]


async def user_passkeys(ctx: Context, holder: Holder) -> list[AdapterAuthenticator]:
    """The user's passkeys (none without a passkey provider)."""
    if passkey_provider(ctx.options) is None:
        return []
    found: list[AdapterAuthenticator] = await holder.adapter.call(
        "list_authenticators_by_user_id", NEEDED_FOR, holder.user.id
    )
    return found


async def ways_in(ctx: Context, holder: Holder) -> WaysIn:
    """Every way the user can sign in (see the module's docstring)."""
    email = bool(holder.user.email) and email_provider(ctx.options) is not None
    accounts, passkeys = await linked_accounts(ctx, holder), await user_passkeys(ctx, holder)
    return WaysIn(accounts, passkeys, email, await has_password(ctx, holder))


def password_provider(options: Options) -> Password | None:
    """The configuration's password provider, if any."""
    return next((p for p in options.providers.values() if isinstance(p, Password)), None)


async def has_password(ctx: Context, holder: Holder) -> bool:
    """Whether the user has a password that signs in: with a password provider
    configured, and an address to sign in with."""
    if password_provider(ctx.options) is None or not holder.can("get_password"):
        return False
    if not holder.user.email:
        return False
    return await holder.adapter.call("get_password", NEEDED_FOR, holder.user.id) is not None
