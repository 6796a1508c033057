"""The data layer's contract: records, the ``Adapter`` protocol, and how authui calls it.

Every method is async and optional: an adapter implements what its features need, and
``assert_config`` reports what is missing for the configured providers and strategy.
Records use Python names; SQL adapters map them to the Auth.js columns (``emailVerified``,
``providerAccountId``, …) so one database can serve both stacks.

Rules every adapter follows (the conformance suite in ``authui.testing`` checks them):
- a lookup that finds nothing returns ``None`` (or ``[]`` for lists), never raises;
- dates are timezone-aware UTC ``datetime`` values going in and coming out;
- ``use_verification_token`` returns the token and deletes it atomically: of many
  concurrent calls for one token exactly one gets it;
- ``delete_user`` also deletes the user's sessions, accounts and authenticators;
- a user's ``email`` may be ``None`` (OAuth providers such as Twitter/X give none), and
  any number of users may have none;
- ``update_authenticator_counter`` raises for an unknown credential.

Beyond Auth.js's interface, authui knows more optional methods (see ``Adapter``):
``increment_rate_limit`` and ``reset_rate_limit`` count events in fixed time windows for
limits shared by every process of an app (``RateLimitWindow`` is the window arithmetic
the adapters share); ``create_challenge`` and ``use_challenge`` keep WebAuthn challenges
(``Challenge``) on the server, so that each is accepted once; ``update_account`` stores an
account's refreshed OAuth tokens; ``claim_lease`` and ``release_lease`` let one process of
many do a thing at a time (one token refresh per account; ``authui.adapters.token_refresh``
holds what the adapters share for both); ``delete_user_sessions`` ends every database
session of a user (back-channel logout, "sign out everywhere"). The account center's
methods keep the records of ``authui.adapters.account``: details of database sessions,
session versions, passkey names and security events. The methods of password accounts and
multi-factor authentication keep the records of ``authui.adapters.factors``: password
hashes, MFA enrolments (TOTP, passkey as second factor), recovery codes and trusted
browsers. ``OPTIONAL_METHODS`` names every optional method.

An adapter may also say what its data store can serve: ``prepare()`` is awaited once before
authui's first call, and ``unavailable(method)`` then names why a method it has cannot run
(the SQL adapter on a database without that method's table); ``AdapterCalls`` treats such
a method as missing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from types import TracebackType
from typing import Any, Literal, Protocol, Self, TypedDict

from authui.adapters.outages import adapter_failure
from authui.adapters.to_the_end import to_the_end
from authui.errors import MissingAdapter, MissingAdapterMethods
from authui.logger import Logger

AccountType = Literal["oauth", "oidc", "email", "webauthn", "credentials"]


@dataclass(frozen=True, slots=True, kw_only=True)
class AdapterUser:
    """A user as the data layer keeps it; ``email`` is ``None`` for a user signed in
    through a provider that gives no address (Twitter/X, Bitbucket, Reddit)."""

    id: str
    email: str | None = None
    email_verified: datetime | None = None
    name: str | None = None
    image: str | None = None


def user_record(user: AdapterUser) -> dict[str, Any]:
    """A stored user as callbacks and events see it."""
    return {
        "id": user.id,
        "name": user.name,
        "email": user.email,
        "image": user.image,
        "email_verified": user.email_verified,
    }


class UserChanges(TypedDict, total=False):
    """Fields ``update_user`` may change (``email`` also to or from ``None``)."""

    email: str | None
    email_verified: datetime | None
    name: str | None
    image: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class AdapterAccount:
    """A user's account with a provider. OAuth token fields keep their OAuth names."""

    user_id: str
    type: AccountType
    provider: str
    provider_account_id: str
    access_token: str | None = None
    refresh_token: str | None = None
    expires_at: int | None = None
    id_token: str | None = None
    scope: str | None = None
    token_type: str | None = None
    session_state: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class AdapterSession:
    """A database session: the cookie holds ``session_token``."""

    session_token: str
    user_id: str
    expires: datetime


@dataclass(frozen=True, slots=True, kw_only=True)
class VerificationToken:
    """A sign-in link's token, stored hashed (``sha256hex(token + secret)``)."""

    identifier: str
    token: str
    expires: datetime


@dataclass(frozen=True, slots=True, kw_only=True)
class AdapterAuthenticator:
    """A passkey. ``credential_id`` and ``credential_public_key`` are base64 strings."""

    credential_id: str
    user_id: str
    provider_account_id: str
    counter: int
    credential_backed_up: bool
    credential_public_key: str
    credential_device_type: str
    transports: str | None = None


@dataclass(frozen=True, slots=True)
class Challenge:
    """A WebAuthn challenge handed to a browser, kept until its answer comes back so that
    it is accepted once. ``key`` is a hash of the challenge (hex SHA-256) made by the
    caller, never the challenge itself; ``expires`` is when it stops being accepted."""

    key: str
    expires: datetime


class Adapter(Protocol):
    """The full adapter interface. Implement the methods your features need.

    Optionally, ``create_user_and_session(user, session_token, expires)`` stores a new user
    and its first session atomically (both or neither); without it authui makes the two
    calls one after the other.

    Optionally too, ``create_user_and_account(user, account) -> tuple[AdapterUser,
    AdapterAccount]`` stores a new user and its first account (an OAuth sign-in's) in one
    atomic step: both or neither, so that an outage or a refused row never leaves a user
    without its account. A taken id or email refuses both, and so does an account that is
    linked already (same ``provider`` and ``provider_account_id``) where the store can tell
    (authui's SQL tables, Redis, memory). The account's ``user_id`` is the new user's (an
    adapter that assigns ids replaces it); both stored records are returned. Without it
    authui calls ``create_user`` then ``link_account``, and ``delete_user`` if linking
    fails.

    Optionally too, as an authui extension that Auth.js does not have,
    ``increment_rate_limit(key, window_seconds) -> int`` counts one event for ``key`` in the
    current fixed window (number ``floor(now / window_seconds)``, see ``RateLimitWindow``)
    and returns how many events ``key`` has in that window, this one included. It is
    atomic: ``N`` concurrent calls in one window return ``1`` to ``N``, each once. Counts of
    different keys, and of one key with different ``window_seconds``, are independent; a
    new window starts again from ``1``, and the counts of windows that have ended are
    removed in time (the store does not grow without bound). ``window_seconds`` is a
    positive integer (authui's adapters raise ``ValueError`` otherwise). authui's limits on
    sign-in emails count through it, so that every process of the app sees the same
    counts; an adapter without it makes authui count in each process on its own.

    ``reset_rate_limit(key) -> None`` goes with it: it removes every count of ``key``, in
    windows of every length, so that the next ``increment_rate_limit`` of ``key`` returns
    ``1`` whatever ``window_seconds``; counts of other keys stay. authui calls it when a
    sign-in succeeds.

    ``create_challenge(challenge) -> None`` and ``use_challenge(key) -> Challenge | None``
    keep WebAuthn challenges on the server until their answer comes, so that each is
    accepted once. ``create_challenge`` stores a ``Challenge`` under its ``key`` (a hash
    the caller makes); storing a key that is stored already is no error, and one of the
    two is kept. ``use_challenge`` deletes the challenge stored under ``key`` and returns
    it, atomically: of ``N`` concurrent calls for one key, in one process or many, exactly
    one gets it and the others ``None``; an unknown or used key gives ``None``. A
    challenge past its ``expires`` may still be returned (the caller checks ``expires``),
    but expired challenges are removed in time: the store does not grow without bound.

    ``update_account(provider, provider_account_id, changes) -> AdapterAccount | None``
    sets fields of the account ``provider_account_id`` at ``provider`` (the OAuth tokens a
    refresh brings: ``access_token``, ``refresh_token``, ``expires_at``, ``id_token``,
    ``scope``, ``token_type``, ``session_state``; also ``type``) to the values in
    ``changes`` (``None`` empties a field), leaves its other fields as they are, and returns
    the account as stored after the change; ``None`` when there is no such account (and
    nothing is written). Only the columns Auth.js's accounts table has are written. A name
    that is not such a field, or one of the fields that identify the account (``user_id``,
    ``provider``, ``provider_account_id``), raises ``ValueError``, and a value of the wrong
    type ``TypeError``, before anything is written (``token_refresh.account_changes`` checks
    both). Empty ``changes`` return the account unchanged.

    ``claim_lease(key, seconds) -> str | None`` takes the lease named ``key`` for
    ``seconds`` (a positive integer, ``ValueError`` otherwise; see
    ``token_refresh.lease_seconds``) when nobody holds it or its holder's time has run out,
    and returns a new random holder token (``token_refresh.new_lease_holder``); while
    another holds it, ``None``. It is atomic: of ``N`` concurrent calls for a free key, in
    one process or many, exactly one gets a token.
    Leases of different keys are independent, and leases that have run out are removed in
    time (the store does not grow without bound). authui refreshes an account's OAuth
    tokens under a lease, so that concurrent refreshes in any number of processes make one
    call to the provider (which may rotate the refresh token).

    ``release_lease(key, holder) -> None`` goes with it: it ends the lease ``key`` if
    ``holder`` (a token ``claim_lease`` returned) still holds it, so that the next
    ``claim_lease`` of ``key`` gets it at once. A holder whose time ran out, and whose lease
    another has claimed since, releases nothing: the other keeps it. Releasing a lease
    nobody holds is no error.

    ``delete_user_sessions(user_id, except_token=None) -> int`` deletes every database
    session of the user but the one whose token is ``except_token`` (and its details, see
    below), and returns how many it deleted (``0`` for a user without any, or an unknown
    user); other users' sessions stay. authui calls it for an OpenID back-channel logout and
    to sign a user out everywhere else. A store that drops expired sessions by itself
    (Redis) counts only those that had not expired.

    ``list_user_accounts(user_id) -> list[AdapterAccount]`` returns every account linked to
    the user (none for an unknown user), ordered by provider then provider account id.
    ``get_access_token`` finds the user's account at a provider through it.

    The account center (a signed-in user's pages about their account) keeps what it shows
    with the records of ``authui.adapters.account``, in tables or keys of the adapter's own
    beside Auth.js's, which stay as they are:

    ``save_session_details(details) -> None`` stores a session's ``SessionDetails``,
    replacing those of its token; ``touch_session_details(session_token, last_seen,
    expires) -> None`` sets their ``last_seen`` and ``expires`` (without details it does
    nothing); ``get_session_details(session_token)`` returns them, or ``None``.
    ``delete_session``, ``delete_user_sessions`` and ``delete_user`` delete the details of
    the sessions they delete, and details past their ``expires`` are removed in time (so
    those of sessions that Auth.js deleted go too). ``list_user_sessions(user_id) ->
    list[UserSession]`` returns every session of the user that has not expired, whoever
    made it, latest ``expires`` first, each with its details or ``None``.

    ``get_session_version(user_id) -> int`` is the user's session version, ``0`` until
    ``bump_session_version(user_id) -> int`` adds one to it and returns the new version,
    atomically: ``N`` concurrent calls, in one process or many, return ``N`` consecutive
    versions. "Sign out everywhere" bumps it, which ends JWT sessions made before.

    ``save_authenticator_details(details) -> None`` stores the ``PasskeyDetails`` of a
    stored passkey (its name), replacing those of its credential id;
    ``update_authenticator_details(credential_id, changes) -> PasskeyDetails | None`` sets
    the fields in ``changes`` (``PasskeyChanges``, checked by ``passkey_changes`` before
    anything is written) and returns the details, or ``None`` when there are none;
    ``list_authenticator_details(user_id)`` returns the user's, without ``created`` first,
    then oldest first (ties by credential id). ``delete_authenticator(credential_id) ->
    AdapterAuthenticator | None`` deletes a passkey and its details in one atomic step and
    returns the passkey, or ``None`` for an unknown one.

    ``record_security_event(event) -> None`` stores a ``SecurityEvent``, and
    ``list_security_events(user_id, limit=50)`` returns the user's newest first, at most
    ``limit`` (a positive integer, ``ValueError`` otherwise). Events older than
    ``SECURITY_EVENT_DAYS`` are not listed and are removed in time; a store may keep only
    a user's newest ``SECURITY_EVENTS_KEPT``.

    ``delete_user`` also deletes the user's session details, passkey details and security
    events. It keeps the user's session version (an id and a number, nothing personal):
    the account center bumps it once the user is deleted, so that the deleted user's JWT
    sessions elsewhere end as "sign out everywhere" ends them. authui's adapters refuse a
    value too long to keep (``ValueError``, before anything is written: the checks of
    ``authui.adapters.account``).

    Password accounts and multi-factor authentication keep the records of
    ``authui.adapters.factors``, also in tables or keys of the adapter's own. Every write
    that stores a record of a user refuses an unknown user (``ValueError``, nothing
    written), and a value too long to keep (``ValueError``, before anything is written: the
    checks of ``authui.adapters.factors``):

    ``get_password(user_id) -> PasswordRecord | None`` returns the user's password hash.
    ``set_password(record, replaces=None) -> bool`` stores it, replacing the user's (one
    per user), and returns ``True``; with ``replaces`` it stores only if the stored hash is
    exactly ``replaces`` (compare and set, atomically: a re-hash after a sign-in never
    overwrites a password changed meanwhile), and returns whether it stored (``False``
    without a stored hash). ``delete_password(user_id) -> bool`` deletes it and says
    whether there was one.

    ``get_mfa(user_id) -> MfaEnrolment | None`` returns the user's enrolment in
    multi-factor authentication, ``save_mfa(enrolment) -> None`` stores it (replacing the
    user's), and ``delete_mfa(user_id) -> bool`` deletes it together with the user's
    recovery codes and trusted browsers in one atomic step, and says whether there was an
    enrolment. ``use_totp_step(user_id, step) -> bool`` sets the enrolment's
    ``totp_last_step`` to ``step`` (an integer from 0 to ``MAX_TOTP_STEP``, else
    ``ValueError``) when the user has an enrolment with a ``totp_secret`` whose
    ``totp_last_step`` is ``None`` or below ``step``, and says whether it did, atomically:
    of ``N`` concurrent calls with one step, in one process or many, exactly one gets
    ``True``, so that a TOTP code is accepted once.

    ``replace_recovery_codes(user_id, code_hashes) -> None`` makes the user's recovery
    codes exactly ``code_hashes`` (1 to ``RECOVERY_CODES_KEPT`` different hashes, checked
    by ``recovery_code_hashes``), the old ones gone, atomically.
    ``use_recovery_code(user_id, code_hash) -> bool`` deletes that code of that user and
    says whether it was there, atomically: of ``N`` concurrent calls, in one process or
    many, exactly one gets ``True``; another user's code never matches.
    ``count_recovery_codes(user_id) -> int`` counts the user's codes.

    ``save_trusted_browser(browser) -> None`` stores a ``TrustedBrowser``, replacing the
    one with its ``browser_id``; ``get_trusted_browser(browser_id)`` returns it, ``None``
    once it has expired; ``list_trusted_browsers(user_id)`` returns the user's that have
    not expired, newest ``created`` first (ties by ``browser_id``);
    ``delete_trusted_browsers(user_id, browser_id=None) -> int`` deletes that one of the
    user's (another user's stays) or, without ``browser_id``, all of the user's, and
    returns how many of them had not expired. Expired trusted browsers are removed in time
    (the store does not grow without bound).

    ``delete_user`` also deletes the user's password, enrolment, recovery codes and
    trusted browsers.
    """

    async def create_user(self, user: AdapterUser) -> AdapterUser: ...
    async def get_user(self, user_id: str) -> AdapterUser | None: ...
    async def get_user_by_email(self, email: str) -> AdapterUser | None: ...
    async def get_user_by_account(
        self, provider: str, provider_account_id: str
    ) -> AdapterUser | None: ...
    async def update_user(self, user_id: str, changes: UserChanges) -> AdapterUser: ...
    async def delete_user(self, user_id: str) -> AdapterUser | None: ...
    async def link_account(self, account: AdapterAccount) -> AdapterAccount | None: ...
    async def unlink_account(
        self, provider: str, provider_account_id: str
    ) -> AdapterAccount | None: ...
    async def get_account(
        self, provider_account_id: str, provider: str
    ) -> AdapterAccount | None: ...
    async def create_session(self, session: AdapterSession) -> AdapterSession: ...
    async def get_session_and_user(
        self, session_token: str
    ) -> tuple[AdapterSession, AdapterUser] | None: ...
    async def update_session(
        self, session_token: str, expires: datetime
    ) -> AdapterSession | None: ...
    async def delete_session(self, session_token: str) -> AdapterSession | None: ...
    async def create_verification_token(
        self, token: VerificationToken
    ) -> VerificationToken | None: ...
    async def use_verification_token(
        self, identifier: str, token: str
    ) -> VerificationToken | None: ...
    async def get_authenticator(self, credential_id: str) -> AdapterAuthenticator | None: ...
    async def create_authenticator(
        self, authenticator: AdapterAuthenticator
    ) -> AdapterAuthenticator: ...
    async def list_authenticators_by_user_id(self, user_id: str) -> list[AdapterAuthenticator]: ...
    async def update_authenticator_counter(
        self, credential_id: str, counter: int
    ) -> AdapterAuthenticator: ...


class ClosedOnExit:
    """``async with adapter:`` closes the adapter on the way out (its ``close()``)."""

    async def close(self) -> None:
        """Close what the adapter opened."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()


@dataclass(frozen=True, slots=True)
class RateLimitWindow:
    """A fixed window of ``increment_rate_limit``: window ``number`` of ``seconds`` seconds
    each since the Unix epoch (``floor(now / seconds)``), as seen at ``now``.

    Every authui adapter takes the current window from ``current``, so they all count in
    the same windows, by the application's clock.
    """

    seconds: int
    number: int
    now: float

    @classmethod
    def current(cls, seconds: int) -> RateLimitWindow:
        """The window that ``time.time()`` falls in.

        Raises:
            ValueError: ``seconds`` is not a positive integer.
        """
        if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds < 1:
            raise ValueError(f"window_seconds must be a positive integer, not {seconds!r}")
        now = time.time()
        return cls(seconds, int(now // seconds), now)

    @property
    def ends_at(self) -> float:
        """When the window ends (its count is no longer needed), in seconds since the
        epoch; always after ``now``."""
        return (self.number + 1) * self.seconds


OPTIONAL_METHODS: Mapping[str, str] = {
    "create_user_and_session": "a new user and its first database session, both or neither",
    "create_user_and_account": "a new OAuth user and its first account, both or neither",
    "increment_rate_limit": "the limits on sign-in emails, shared by every process",
    "reset_rate_limit": "starting the limits on sign-in emails again after a sign-in",
    "create_challenge": "single-use passkey challenges",
    "use_challenge": "single-use passkey challenges",
    "update_account": "storing an account's refreshed OAuth tokens (get_access_token)",
    "claim_lease": "one token refresh at a time per account, in every process",
    "release_lease": "one token refresh at a time per account, in every process",
    "delete_user_sessions": "back-channel logout and signing out everywhere, database sessions",
    "list_user_accounts": "finding a user's account at a provider (get_access_token)",
    "save_session_details": "the account center's list of sessions (browser, sign-in time)",
    "touch_session_details": "the account center's list of sessions (when last seen)",
    "get_session_details": "the account center's session facts (sign-in time and methods)",
    "list_user_sessions": "the account center's list of sessions",
    "get_session_version": "signing out everywhere with JWT sessions",
    "bump_session_version": "signing out everywhere with JWT sessions",
    "save_authenticator_details": "the account center's passkey names",
    "update_authenticator_details": "renaming passkeys and when each was last used",
    "list_authenticator_details": "the account center's list of passkeys",
    "delete_authenticator": "removing a passkey in the account center",
    "record_security_event": "the account center's security activity",
    "list_security_events": "the account center's security activity",
    "get_password": "signing in with a password (password accounts)",
    "set_password": "setting, changing and re-hashing passwords",
    "delete_password": "removing a user's password",
    "get_mfa": "asking for the second factor after a sign-in (MFA)",
    "save_mfa": "turning on multi-factor authentication (TOTP, passkey)",
    "delete_mfa": "turning off multi-factor authentication",
    "use_totp_step": "accepting each TOTP code once, in every process",
    "replace_recovery_codes": "making new MFA recovery codes",
    "use_recovery_code": "signing in with an MFA recovery code, each once",
    "count_recovery_codes": "showing how many MFA recovery codes are left",
    "save_trusted_browser": "not asking for the second factor again in a trusted browser",
    "get_trusted_browser": "not asking for the second factor again in a trusted browser",
    "list_trusted_browsers": "the account center's list of trusted browsers",
    "delete_trusted_browsers": "forgetting trusted browsers",
}
"""The methods beyond Auth.js's interface (documented on ``Adapter``) and what uses each.
An adapter may lack any of them and still start: callers ask ``AdapterCalls.has`` first
(the features that cannot do without one, as passkeys without ``create_challenge``, say so
at start-up in ``authui.checks``)."""


class AdapterCalls:
    """How authui calls an adapter: a missing method is a clear ``MissingAdapterMethods``
    naming it and what needs it; a failing one is re-raised as ``ServiceUnavailable`` when
    its data store is unreachable (``authui.adapters.outages``), else as ``AdapterError``;
    each call runs to its end though its request is cancelled (``authui.adapters.to_the_end``);
    with ``debug`` every call is logged as ``adapter_<method>``.
    """

    def __init__(self, adapter: object, logger: Logger):
        self._adapter = adapter
        self._logger = logger
        # A FilteredLogger says whether it keeps debug messages: when not, none is built.
        self._debug = bool(getattr(logger, "debug_enabled", True))
        self.prepared = False
        self._preparing = asyncio.Lock()

    async def prepare(self) -> bool:
        """Let the adapter learn its data store before the first call (``prepare()``, for
        adapters that have one: the SQL adapter finds its tables); ``True`` for the one
        call that did it. A failure is an outage or an ``AdapterError``, and the next call
        tries again."""
        async with self._preparing:
            if self.prepared:
                return False
            prepare = getattr(self._adapter, "prepare", None)
            if callable(prepare):
                try:
                    await to_the_end(prepare(), partial(self._failed_unheard, "prepare", ()))
                except Exception as exc:
                    raise adapter_failure(exc, "prepare", ()) from exc
            self.prepared = True
        return True

    def has(self, method: str) -> bool:
        """Whether the adapter implements ``method`` and can serve it (an adapter with an
        ``unavailable(method)`` may lack what one needs, as the SQL adapter its tables):
        ask before calling one of the ``OPTIONAL_METHODS``, which an adapter may lack."""
        return callable(getattr(self._adapter, method, None)) and self.unavailable(method) is None

    def unavailable(self, method: str) -> str | None:
        """Why the adapter cannot serve ``method`` though it has it (the SQL adapter on a
        database without that method's table); ``None`` when it can."""
        why = getattr(self._adapter, "unavailable", None)
        return why(method) if callable(why) else None

    async def call(self, method: str, needed_for: str, *args: Any) -> Any:
        function = getattr(self._adapter, method, None)
        if not callable(function):
            raise MissingAdapterMethods(
                f"The adapter {type(self._adapter).__name__} has no {method}(), "
                f"which {needed_for} needs"
            )
        why = self.unavailable(method)
        if why is not None:
            raise MissingAdapterMethods(f"{needed_for.capitalize()} needs {method}(), but {why}")
        if self._debug:
            self._logger.debug(f"adapter_{method}", {"args": [type(a).__name__ for a in args]})
        try:
            return await to_the_end(function(*args), partial(self._failed_unheard, method, args))
        except Exception as exc:
            raise adapter_failure(exc, method, args) from exc

    def _failed_unheard(self, method: str, args: tuple[Any, ...], exc: Exception) -> None:
        """Log the failure of a call whose request was cancelled while it ran."""
        self._logger.error(adapter_failure(exc, method, args))


def require_adapter(adapter: AdapterCalls | None, needed_for: str) -> AdapterCalls:
    """The configuration's adapter (``options.adapter``), there to serve ``needed_for``.

    Raises:
        MissingAdapter: There is none.
    """
    if adapter is None:
        raise MissingAdapter(f"The configuration has no adapter, which {needed_for} needs")
    return adapter
