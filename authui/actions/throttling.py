"""The throttle's checks, made by the sign-in actions and the email flow (the policy and
the counters are in ``authui.throttle``).

Keys hold SHA-256 digests, never an identifier or an address:
``throttle:<provider id>:<account|client|address>:<sha256 hex>``. Credentials count
*failed* attempts as ``authui.throttle`` explains.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from authui.adapters.base import RateLimitWindow
from authui.context import Context
from authui.errors import TooManyAttempts
from authui.options import Options
from authui.providers.credentials import Credentials
from authui.providers.oauth import OAuthProvider
from authui.providers.webauthn import WebAuthnProvider
from authui.proxies import client_address
from authui.throttle import Counter, Limit, SharedCounter, digest

if TYPE_CHECKING:
    from authui.providers.email import EmailProvider


def counter_for(options: Options) -> Counter:
    """Where the counts of a resolved configuration go."""
    adapter = options.adapter
    if adapter is not None and adapter.has("increment_rate_limit"):
        return SharedCounter(adapter)
    return options.local_counts


# -- keys and counting --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Counted:
    """One thing counted under one limit: a client, an account, an address."""

    provider: str
    scope: str
    value: str
    limit: Limit

    @property
    def key(self) -> str:
        return f"throttle:{self.provider}:{self.scope}:{digest(self.value)}"


def seconds_left(limit: Limit) -> int:
    """Seconds until the current window of ``limit`` ends (at least 1)."""
    window = RateLimitWindow.current(limit.window)
    return max(1, math.ceil(window.ends_at - window.now))


def _over(counted: Counted, count: int) -> None:
    """Raise ``TooManyAttempts`` when ``count`` passes the limit; the error's ``cause``
    says which limit (and holds the account or address as its SHA-256), for the one log
    line of the refused request."""
    limit = counted.limit
    if count <= limit.count:
        return
    cause: dict[str, Any] = {"per": counted.scope, "limit": str(limit)}
    if counted.scope != "client":
        cause[counted.scope] = "sha256:" + digest(counted.value)
    raise TooManyAttempts(
        f"Too many sign-in attempts per {counted.scope} with {counted.provider}",
        retry_after=seconds_left(limit),
        window=limit.window,
        cause=cause,
    )


@dataclass(slots=True)
class Attempt:
    """A credentials sign-in in progress, counted as failed until ``succeeded``."""

    counter: Counter
    client: Counted | None = None
    account: Counted | None = None
    counted: list[Counted] = field(default_factory=list)

    async def start(self) -> None:
        """Count the attempt, client first (a client already refused does not use up the
        account's allowance).

        Raises:
            TooManyAttempts: The client or the account has too many failures.
        """
        for counted in (self.client, self.account):
            if counted is None:
                continue
            attempts, marks = await self._count(counted)
            self.counted.append(counted)
            _over(counted, 2 * attempts - marks)

    async def _count(self, counted: Counted) -> tuple[int, int]:
        """The attempts and the marks of ``counted``'s window, this attempt counted on
        both. When the window ends between the two counts, they belong to different
        windows (2a - m would be all of the old window's successes), so both are counted
        again in the new one, which then holds one mark too many: a client may fail once
        more at a window's end, rather than a busy one be refused for its successes."""
        seconds = counted.limit.window
        while True:
            window = RateLimitWindow.current(seconds).number
            attempts = await self.counter.increment(counted.key + ":a", seconds)
            marks = await self.counter.increment(counted.key + ":m", seconds)
            if RateLimitWindow.current(seconds).number == window:
                return attempts, marks

    async def succeeded(self) -> None:
        """The sign-in succeeded: it is no failure; the account's count starts again."""
        for counted in self.counted:
            if counted is self.account and self.counter.can_reset:
                # Marks first: an attempt that starts between the two resets loses its
                # attempt (and is counted short, for a moment) rather than its mark
                # (which would count it, and every sign-in in flight, as a failure).
                await self.counter.reset(counted.key + ":m")
                await self.counter.reset(counted.key + ":a")
            else:
                await self.counter.increment(counted.key + ":m", counted.limit.window)


def account_of(provider: Credentials, body: dict[str, Any]) -> str | None:
    """The account a credentials sign-in is for: the value of the provider's first field
    that is not a password, trimmed and lower-cased (``None`` when empty)."""
    name = next(
        (n for n, spec in provider.credentials.items() if spec.get("type") != "password"), None
    )
    value = body.get(name) if name is not None else None
    if not isinstance(value, str) or not value.strip():
        return None
    return value.strip().lower()


async def check_sign_in(ctx: Context) -> Attempt | None:
    """Count a sign-in attempt at ``/callback/<provider>`` (credentials, passkey answer,
    OAuth callback), or the start of a passkey ceremony (``/webauthn-options/<provider>``),
    from the request's client (``authui.proxies.client_address``); a credentials attempt is
    returned, to be told when it succeeded. Requests naming no provider (the session
    check among them) return at once.

    Raises:
        TooManyAttempts: A limit of the path is passed.
    """
    policy = ctx.options.config.throttle
    provider = ctx.options.providers.get(ctx.provider_id or "")
    if policy is None or provider is None:
        return None
    client = client_address(ctx.request, ctx.options.config.trusted_proxies)
    counter = counter_for(ctx.options)
    if ctx.action == "webauthn-options" and isinstance(provider, WebAuthnProvider):
        await _count_client(
            counter, f"{provider.id}:options", client, policy.passkey_options_per_client
        )
    if ctx.action != "callback":
        return None
    if isinstance(provider, Credentials) and ctx.method == "POST":
        attempt = Attempt(counter)
        if client and policy.credentials_per_client:
            attempt.client = Counted(provider.id, "client", client, policy.credentials_per_client)
        account = account_of(provider, ctx.body)
        if account and policy.credentials_per_account:
            attempt.account = Counted(
                provider.id, "account", account, policy.credentials_per_account
            )
        await attempt.start()
        return attempt
    if isinstance(provider, WebAuthnProvider) and ctx.method == "POST":
        limit = policy.passkey_per_client
    elif isinstance(provider, OAuthProvider):
        limit = policy.oauth_per_client
    else:
        return None
    await _count_client(counter, provider.id, client, limit)
    return None


async def _count_client(
    counter: Counter, counted_as: str, client: str | None, limit: Limit | None
) -> None:
    """Count one request of ``client`` under ``limit`` (nothing without either)."""
    if client and limit:
        counted = Counted(counted_as, "client", client, limit)
        _over(counted, await counter.increment(counted.key, limit.window))


async def count_request(ctx: Context, counted: Counted) -> None:
    """Count one request under ``counted``'s limit.

    Raises:
        TooManyAttempts: The limit is passed.
    """
    _over(counted, await counter_for(ctx.options).increment(counted.key, counted.limit.window))


async def check_email(
    ctx: Context, provider: EmailProvider, address: str, client: str | None
) -> None:
    """Count a request for a sign-in email to ``address`` (the normalised address) from
    ``client``, per client and per address, under ``provider.limits``; client first.

    Raises:
        TooManyAttempts: A limit is passed; nothing is to be sent.
    """
    limits = provider.limits
    if limits is None:
        return
    checks = [("client", client, limits.per_client), ("address", address, limits.per_address)]
    counter = counter_for(ctx.options)
    for scope, value, count in checks:
        if value and count is not None:
            counted = Counted(provider.id, scope, value, Limit(count, limits.window))
            _over(counted, await counter.increment(counted.key, limits.window))
