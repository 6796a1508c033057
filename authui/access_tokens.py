"""Fresh access tokens for a user's linked OAuth account: the stored one while it is valid,
else one refresh through the provider's token endpoint, whose result every concurrent
caller gets.

Providers that rotate refresh tokens (a refresh answers a new one and spends the old) punish
two refreshes of one account at once: the second sends a spent token and, at many providers,
revokes the whole grant. So a refresh first takes a lease on the account through the
adapter (``claim_lease``: a row in SQL, ``SET NX`` in Redis, the process's memory), which is
atomic across processes; the holder refreshes and stores the new tokens
(``update_account``), while every other caller waits for them and reads them back.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from authui.adapters.base import AdapterAccount, AdapterCalls, require_adapter
from authui.context import Context
from authui.cookies import Cookie, deletion
from authui.errors import InvalidProvider, RefreshTokenError
from authui.oauth.discovery import DiscoveryCache
from authui.oauth.refreshing import REFRESH_SKEW, refreshed, still_valid
from authui.providers.oauth import OAuthProvider
from authui.sessions.current import signed_in_user
from authui.sessions.kept_tokens import kept_access_token

NEEDED_FOR = "fresh access tokens"

LEASE_SECONDS = 30
"""How long one refresh may hold its account's lease: longer than a token request takes,
short enough that a crashed holder does not stop the account's refreshes for long."""

POLL_SECONDS = 0.05
"""How often a caller waiting for another's refresh looks at the account again."""

_TOKEN_FIELDS = ("access_token", "refresh_token", "expires_at", "id_token", "scope")


@dataclass(frozen=True, slots=True)
class Refresher:
    """What a refresh needs: the adapter, the discovery cache, and the timing settings.

    Attributes:
        adapter: The configuration's adapter (with ``update_account``, ``claim_lease`` and
            ``release_lease``).
        discovery: Where the provider's token endpoint is found.
        skew: See ``REFRESH_SKEW``.
        wait: Seconds a caller waits for another's refresh before giving up.
    """

    adapter: AdapterCalls
    discovery: DiscoveryCache
    skew: int = REFRESH_SKEW
    wait: float = LEASE_SECONDS

    def valid(self, account: AdapterAccount) -> bool:
        """Whether the account's access token may still be sent."""
        return still_valid(account.access_token, account.expires_at, self.skew)

    async def fresh(self, provider: OAuthProvider, account: AdapterAccount) -> AdapterAccount:
        """``account`` with a valid access token: as stored, or refreshed (once, whoever
        else asks at the same time, in this process or another).

        Raises:
            RefreshTokenError: It cannot be refreshed.
        """
        if self.valid(account):
            return account
        key = f"refresh:{provider.id}:{account.provider_account_id}"
        deadline = time.monotonic() + self.wait
        while True:
            holder = await self.adapter.call("claim_lease", NEEDED_FOR, key, LEASE_SECONDS)
            if holder is not None:
                try:
                    return await self._refresh(provider, account)
                finally:
                    await self.adapter.call("release_lease", NEEDED_FOR, key, holder)
            await asyncio.sleep(POLL_SECONDS)
            current = await self._stored(provider, account)
            if self.valid(current):
                return current
            if time.monotonic() > deadline:
                raise RefreshTokenError(
                    f"Another refresh of the {provider.id} account did not finish in time"
                )

    async def _stored(self, provider: OAuthProvider, account: AdapterAccount) -> AdapterAccount:
        found: AdapterAccount | None = await self.adapter.call(
            "get_account", NEEDED_FOR, account.provider_account_id, provider.id
        )
        if found is None:
            raise RefreshTokenError(f"The {provider.id} account is no longer linked")
        return found

    async def _refresh(self, provider: OAuthProvider, account: AdapterAccount) -> AdapterAccount:
        """Under the lease: the stored account if another refresh got there first, else
        a refresh through the provider, stored."""
        current = await self._stored(provider, account)
        if self.valid(current):
            return current
        if not current.refresh_token:
            raise RefreshTokenError(f"The {provider.id} account has no refresh token")
        tokens = await refreshed(self.discovery, provider, current.refresh_token)
        changes = {name: tokens[name] for name in _TOKEN_FIELDS if tokens.get(name) is not None}
        changes["token_type"] = tokens.get("token_type", "bearer")
        stored: AdapterAccount | None = await self.adapter.call(
            "update_account", NEEDED_FOR, provider.id, current.provider_account_id, changes
        )
        if stored is None:
            raise RefreshTokenError(f"The {provider.id} account is no longer linked")
        return stored


async def access_token(
    ctx: Context, provider_id: str, *, skew: int = REFRESH_SKEW
) -> tuple[str | None, list[Cookie]]:
    """The signed-in user's valid access token at ``provider_id`` (refreshed when it has
    expired), or ``None`` when the request has no signed-in user; with the cookies to set
    (a JWT session that keeps the tokens is re-issued after a refresh).

    The tokens come from the accounts table when the configuration has an adapter, else from
    the JWT (``JWTOptions.provider_tokens``).

    Raises:
        RefreshTokenError: The user has no account at that provider, or its token cannot
            be refreshed.
        InvalidProvider: ``provider_id`` is no OAuth provider of the configuration.
        MissingAdapter: Neither an adapter nor tokens kept in the JWT.
    """
    provider = ctx.options.provider(provider_id)
    if not isinstance(provider, OAuthProvider):
        raise InvalidProvider(f"{provider_id!r} is not an OAuth provider: it has no tokens")
    options = ctx.options
    if options.adapter is None and options.strategy == "jwt" and options.config.jwt.provider_tokens:
        return await kept_access_token(ctx, provider, skew)
    adapter = require_adapter(options.adapter, NEEDED_FOR)
    user = await signed_in_user(ctx, adapter, NEEDED_FOR)
    if user is None:
        return None, []
    accounts: list[AdapterAccount] = await adapter.call("list_user_accounts", NEEDED_FOR, user.id)
    account = next((a for a in accounts if a.provider == provider.id), None)
    if account is None:
        raise RefreshTokenError(f"The signed-in user has no {provider.id} account")
    option = ctx.cookies.refresh_error
    try:
        fresh = await Refresher(adapter, options.discovery, skew).fresh(provider, account)
    except RefreshTokenError as error:  # the session says so from now on (its cookie)
        error.cookies = (Cookie(option.name, provider.id, option.options),)
        raise
    recovered = ctx.request.cookies.get(option.name) == provider.id
    return fresh.access_token, [deletion(option.name, option.options)] if recovered else []
