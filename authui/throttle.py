"""Throttling of sign-in attempts: the policy, where the counts live, the checks.

Every sign-in path is counted per client (IP address) and, where there is one, per
account, in fixed windows. An attempt over a limit raises ``TooManyAttempts``: 429 with
``Retry-After`` (the seconds until the window ends) and the sign-in page saying how long to
wait. The counts go through the adapter's ``increment_rate_limit``, so that every process
of the app sees the same numbers; without it (or without an adapter) they stay in this
process, in a ``LocalCounter`` of bounded size.

Keys hold SHA-256 digests, never an identifier or an address:
``throttle:<provider id>:<account|client|address>:<sha256 hex>``.

Credentials count *failed* attempts, without reading a count back (adapters only
increment): each attempt counts on ``<key>:a`` (attempts) and on ``<key>:m`` (marks), and a
success counts once more on ``<key>:m``, so the failures are ``2a - m``. An attempt
counts as failed from its start, so a guess over the limit is refused before the password
is checked. A successful sign-in also resets the account's count (not the client's) when
the counter can reset.
"""

from __future__ import annotations

import hashlib
import math
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from authui.adapters.base import AdapterCalls, RateLimitWindow
from authui.errors import TooManyAttempts
from authui.providers.credentials import Credentials
from authui.providers.oauth import OAuthProvider
from authui.providers.webauthn import WebAuthnProvider
from authui.proxies import client_address

if TYPE_CHECKING:
    from authui.context import Context
    from authui.options import Options
    from authui.providers.email import EmailProvider

LOCAL_MAX_KEYS = 10_000
"""How many keys a ``LocalCounter`` keeps at most (a few MB at worst)."""
NEEDED_FOR = "throttling sign-in attempts"


@dataclass(frozen=True, slots=True)
class Limit:
    """At most ``count`` attempts per fixed window of ``window`` seconds.

    Raises:
        ValueError: ``count`` or ``window`` is not a positive integer.
    """

    count: int
    window: int

    def __post_init__(self) -> None:
        for name in ("count", "window"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"Limit.{name} must be a positive integer, not {value!r}")

    def __str__(self) -> str:
        return f"{self.count}/{self.window}s"


@dataclass(frozen=True, slots=True, kw_only=True)
class Throttle:
    """Limits on sign-in attempts (``AuthConfig.throttle``); ``None`` turns one off.

    The defaults are django-allauth's (``ACCOUNT_RATE_LIMITS``) for the same paths. Email
    sign-in has its limits on the provider (``EmailProvider.limits``), as each provider
    sends its own mail.

    Attributes:
        credentials_per_account: Failed credentials sign-ins per account (the first
            field of the provider that is not a password, lower-cased): 5 per 5 minutes,
            allauth's ``login_failed`` ``5/5m/key``. A successful sign-in starts it again.
        credentials_per_client: Failed credentials sign-ins per client, whatever the
            account: 10 per minute, allauth's ``login_failed`` ``10/m/ip``.
        passkey_per_client: Passkey answers per client: 30 per minute, allauth's
            ``login`` ``30/m/ip``.
        oauth_per_client: OAuth and OIDC callbacks per client: 30 per minute, allauth's
            ``login`` ``30/m/ip``.
        passkey_options_per_client: Passkey ceremonies started per client (each stores
            a challenge until it is answered or expires): 300 per minute. Generous, as
            every load of a sign-in page with passkey autofill starts one and many users
            may share an address; it bounds a flood, not a user.
    """

    credentials_per_account: Limit | None = Limit(5, 5 * 60)
    credentials_per_client: Limit | None = Limit(10, 60)
    passkey_per_client: Limit | None = Limit(30, 60)
    oauth_per_client: Limit | None = Limit(30, 60)
    passkey_options_per_client: Limit | None = Limit(300, 60)


# -- where the counts live ----------------------------------------------------------------


class Counter(Protocol):
    """Fixed-window counts, shared by every process or kept in this one."""

    @property
    def can_reset(self) -> bool:
        """Whether ``reset`` clears counts (else it does nothing)."""

    async def increment(self, key: str, window_seconds: int) -> int:
        """Count one event for ``key``; its count in the current window."""

    async def reset(self, key: str) -> None:
        """Forget the counts of ``key``."""


class LocalCounter:
    """Fixed-window counts in this process, for configurations whose adapter has no
    ``increment_rate_limit`` (or that have no adapter).

    Its size is bounded: keys whose windows have all ended are dropped from the oldest
    end, and beyond ``max_keys`` the least recently counted keys go first.
    """

    can_reset = True

    def __init__(self, max_keys: int | None = None) -> None:
        self._max_keys = max_keys
        # key -> {window_seconds: (window number, count)}, least recently counted first
        self._counts: OrderedDict[str, dict[int, tuple[int, int]]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._counts)

    async def increment(self, key: str, window_seconds: int) -> int:
        window = RateLimitWindow.current(window_seconds)
        windows = self._counts.pop(key, {})
        number, count = windows.get(window_seconds, (window.number, 0))
        count = count + 1 if number == window.number else 1
        windows[window_seconds] = (window.number, count)
        self._counts[key] = windows
        self._forget(window.now)
        return count

    async def reset(self, key: str) -> None:
        self._counts.pop(key, None)

    def _forget(self, now: float) -> None:
        while self._counts:
            windows = next(iter(self._counts.values()))
            if any((number + 1) * seconds > now for seconds, (number, _) in windows.items()):
                break
            self._counts.popitem(last=False)
        while len(self._counts) > (self._max_keys or LOCAL_MAX_KEYS):
            self._counts.popitem(last=False)


class SharedCounter:
    """The adapter's counts (``increment_rate_limit``, and ``reset_rate_limit`` when it
    has it), which every process of the app shares."""

    def __init__(self, adapter: AdapterCalls) -> None:
        self._adapter = adapter

    @property
    def can_reset(self) -> bool:
        return self._adapter.has("reset_rate_limit")

    async def increment(self, key: str, window_seconds: int) -> int:
        count = await self._adapter.call("increment_rate_limit", NEEDED_FOR, key, window_seconds)
        return int(count)

    async def reset(self, key: str) -> None:
        if self.can_reset:
            await self._adapter.call("reset_rate_limit", NEEDED_FOR, key)


_LOCAL = LocalCounter()
"""The in-process counts: one bounded store per process, so that a configuration built per
request (a lazy configuration) is counted like a static one. Keys name the provider, so
two apps in one process share counts only for a provider id they share."""


def counter_for(options: Options) -> Counter:
    """Where the counts of a resolved configuration go."""
    adapter = options.adapter
    if adapter is not None and adapter.has("increment_rate_limit"):
        return SharedCounter(adapter)
    return _LOCAL


# -- keys and counting --------------------------------------------------------------------


def digest(value: str) -> str:
    """What keys and logs hold instead of an identifier or address: its SHA-256."""
    return hashlib.sha256(value.encode()).hexdigest()


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
            attempts = await self.counter.increment(counted.key + ":a", counted.limit.window)
            marks = await self.counter.increment(counted.key + ":m", counted.limit.window)
            self.counted.append(counted)
            _over(counted, 2 * attempts - marks)

    async def succeeded(self) -> None:
        """The sign-in succeeded: it is no failure; the account's count starts again."""
        for counted in self.counted:
            if counted is self.account and self.counter.can_reset:
                await self.counter.reset(counted.key + ":a")
                await self.counter.reset(counted.key + ":m")
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
    client = client_address(ctx.request, ctx.options)
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
