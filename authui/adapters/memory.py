"""An adapter that keeps everything in process memory: for tests and quick starts.

Nothing survives a restart and nothing is shared between processes; use the SQL or Redis
adapter for anything else. Each method body runs without awaiting, so on one event loop
every call is atomic (``use_verification_token`` and ``use_challenge`` hand a token or a
challenge out exactly once, ``increment_rate_limit`` counts every event once, and
``claim_lease`` gives a free lease to one caller). Leases run by the process's monotonic
clock. The account center's methods come from ``MemoryAccountCenter``, those of password
accounts and multi-factor authentication from ``MemoryFactors``.
"""

from __future__ import annotations

import dataclasses
import heapq
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from authui.adapters.base import (
    AdapterAccount,
    AdapterAuthenticator,
    AdapterSession,
    AdapterUser,
    Challenge,
    RateLimitWindow,
    UserChanges,
    VerificationToken,
)
from authui.adapters.memory_factors import MemoryFactors
from authui.adapters.token_refresh import account_changes, lease_seconds, new_lease_holder


class MemoryAdapter(MemoryFactors):
    """Every adapter method, and authui's extensions (rate limits, challenges, account
    updates, leases, deleting a user's sessions, the account center, passwords and
    multi-factor authentication), over dictionaries."""

    def __init__(self) -> None:
        super().__init__()
        self.users: dict[str, AdapterUser] = {}
        self.accounts: dict[tuple[str, str], AdapterAccount] = {}
        self.sessions: dict[str, AdapterSession] = {}
        self.tokens: dict[tuple[str, str], VerificationToken] = {}
        self.authenticators: dict[str, AdapterAuthenticator] = {}
        #: ``(key, window_seconds, window number)`` -> the count in that window.
        self.rate_limits: dict[tuple[str, int, int], int] = {}
        # (when the window ends, its rate_limits key), soonest first: what to drop when.
        self._rate_limit_ends: list[tuple[float, tuple[str, int, int]]] = []
        #: ``key`` -> the challenge stored under it.
        self.challenges: dict[str, Challenge] = {}
        # (when it expires, its key), soonest first: what to drop when.
        self._challenge_ends: list[tuple[datetime, str]] = []
        #: ``key`` -> (its holder's token, when it runs out by ``time.monotonic()``).
        self.leases: dict[str, tuple[str, float]] = {}
        # (when it runs out, its key), soonest first: what to drop when.
        self._lease_ends: list[tuple[float, str]] = []

    async def create_user(self, user: AdapterUser) -> AdapterUser:
        self._check_new(user)
        self.users[user.id] = user
        return user

    async def create_user_and_session(
        self, user: AdapterUser, session_token: str, expires: datetime
    ) -> tuple[AdapterUser, AdapterSession]:
        self._check_new(user)
        session = AdapterSession(session_token=session_token, user_id=user.id, expires=expires)
        self.users[user.id] = user
        self.sessions[session_token] = session
        return user, session

    async def create_user_and_account(
        self, user: AdapterUser, account: AdapterAccount
    ) -> tuple[AdapterUser, AdapterAccount]:
        """Store a new user and its first account: both, or neither when the id, the
        email or the account is taken (``ValueError``)."""
        self._check_new(user)
        key = (account.provider, account.provider_account_id)
        if key in self.accounts:
            raise ValueError(f"the {account.provider} account is linked already")
        linked = dataclasses.replace(account, user_id=user.id)
        self.users[user.id] = user
        self.accounts[key] = linked
        return user, linked

    def _check_new(self, user: AdapterUser) -> None:
        if user.id in self.users:
            raise ValueError(f"user {user.id!r} exists")
        if user.email is not None and any(u.email == user.email for u in self.users.values()):
            raise ValueError(f"another user has the email {user.email!r}")

    async def get_user(self, user_id: str) -> AdapterUser | None:
        return self.users.get(user_id)

    async def get_user_by_email(self, email: str) -> AdapterUser | None:
        return next((u for u in self.users.values() if u.email == email), None)

    async def get_user_by_account(
        self, provider: str, provider_account_id: str
    ) -> AdapterUser | None:
        account = self.accounts.get((provider, provider_account_id))
        return self.users.get(account.user_id) if account else None

    async def update_user(self, user_id: str, changes: UserChanges) -> AdapterUser:
        user = dataclasses.replace(self.users[user_id], **changes)
        self.users[user_id] = user
        return user

    async def delete_user(self, user_id: str) -> AdapterUser | None:
        user = self.users.pop(user_id, None)
        self.accounts = {k: a for k, a in self.accounts.items() if a.user_id != user_id}
        self.sessions = {k: s for k, s in self.sessions.items() if s.user_id != user_id}
        self.authenticators = {k: a for k, a in self.authenticators.items() if a.user_id != user_id}
        self._forget_user(user_id)
        self._forget_factors(user_id)
        return user

    async def link_account(self, account: AdapterAccount) -> AdapterAccount | None:
        self.accounts[(account.provider, account.provider_account_id)] = account
        return account

    async def unlink_account(
        self, provider: str, provider_account_id: str
    ) -> AdapterAccount | None:
        return self.accounts.pop((provider, provider_account_id), None)

    async def get_account(self, provider_account_id: str, provider: str) -> AdapterAccount | None:
        return self.accounts.get((provider, provider_account_id))

    async def list_user_accounts(self, user_id: str) -> list[AdapterAccount]:
        found = [a for key, a in sorted(self.accounts.items()) if a.user_id == user_id]
        return found

    async def update_account(
        self, provider: str, provider_account_id: str, changes: Mapping[str, Any]
    ) -> AdapterAccount | None:
        """authui extension: set the account's fields in ``changes`` (its OAuth tokens) and
        return it; ``None`` if there is no such account. ``ValueError`` for a field that
        accounts don't have or that identifies the account (``account_changes``)."""
        fields = account_changes(changes)
        key = (provider, provider_account_id)
        account = self.accounts.get(key)
        if account is None:
            return None
        self.accounts[key] = dataclasses.replace(account, **fields)
        return self.accounts[key]

    async def create_session(self, session: AdapterSession) -> AdapterSession:
        self.sessions[session.session_token] = session
        return session

    async def get_session_and_user(
        self, session_token: str
    ) -> tuple[AdapterSession, AdapterUser] | None:
        session = self.sessions.get(session_token)
        user = self.users.get(session.user_id) if session else None
        return (session, user) if session and user else None

    async def update_session(self, session_token: str, expires: datetime) -> AdapterSession | None:
        session = self.sessions.get(session_token)
        if session is None:
            return None
        self.sessions[session_token] = dataclasses.replace(session, expires=expires)
        return self.sessions[session_token]

    async def delete_session(self, session_token: str) -> AdapterSession | None:
        self.session_details.pop(session_token, None)
        return self.sessions.pop(session_token, None)

    async def delete_user_sessions(self, user_id: str, except_token: str | None = None) -> int:
        """authui extension: delete every session of the user but ``except_token``'s, with
        their details; how many sessions it deleted."""
        tokens = [
            token
            for token, s in self.sessions.items()
            if s.user_id == user_id and token != except_token
        ]
        for token in tokens:
            del self.sessions[token]
            self.session_details.pop(token, None)
        return len(tokens)

    async def create_verification_token(self, token: VerificationToken) -> VerificationToken:
        self.tokens[(token.identifier, token.token)] = token
        return token

    async def use_verification_token(self, identifier: str, token: str) -> VerificationToken | None:
        return self.tokens.pop((identifier, token), None)

    async def get_authenticator(self, credential_id: str) -> AdapterAuthenticator | None:
        return self.authenticators.get(credential_id)

    async def create_authenticator(
        self, authenticator: AdapterAuthenticator
    ) -> AdapterAuthenticator:
        self.authenticators[authenticator.credential_id] = authenticator
        return authenticator

    async def list_authenticators_by_user_id(self, user_id: str) -> list[AdapterAuthenticator]:
        return [a for a in self.authenticators.values() if a.user_id == user_id]

    async def update_authenticator_counter(
        self, credential_id: str, counter: int
    ) -> AdapterAuthenticator:
        authenticator = dataclasses.replace(self.authenticators[credential_id], counter=counter)
        self.authenticators[credential_id] = authenticator
        return authenticator

    async def increment_rate_limit(self, key: str, window_seconds: int) -> int:
        """authui extension: count one event for ``key`` in the current window of
        ``window_seconds`` and return the window's count, this one included. The counts of
        windows that have ended are dropped on the next call."""
        window = RateLimitWindow.current(window_seconds)
        ends = self._rate_limit_ends
        while ends and ends[0][0] <= window.now:
            self.rate_limits.pop(heapq.heappop(ends)[1], None)  # gone if reset
        entry = (key, window_seconds, window.number)
        count = self.rate_limits.get(entry, 0) + 1
        if count == 1:
            heapq.heappush(ends, (window.ends_at, entry))
        self.rate_limits[entry] = count
        return count

    async def reset_rate_limit(self, key: str) -> None:
        """authui extension: forget every count of ``key``, in windows of any length."""
        for entry in [entry for entry in self.rate_limits if entry[0] == key]:
            del self.rate_limits[entry]

    async def create_challenge(self, challenge: Challenge) -> None:
        """authui extension: store ``challenge`` unless its key is stored already. The
        challenges that have expired are dropped first."""
        now, ends = datetime.now(UTC), self._challenge_ends
        while ends and ends[0][0] <= now:
            _, key = heapq.heappop(ends)
            stored = self.challenges.get(key)
            if stored is not None and stored.expires <= now:  # not a newer one of that key
                del self.challenges[key]
        if challenge.key not in self.challenges:
            self.challenges[challenge.key] = challenge
            heapq.heappush(ends, (challenge.expires, challenge.key))

    async def use_challenge(self, key: str) -> Challenge | None:
        """authui extension: delete the challenge stored under ``key`` and return it."""
        return self.challenges.pop(key, None)

    async def claim_lease(self, key: str, seconds: int) -> str | None:
        """authui extension: take the lease ``key`` for ``seconds`` if nobody holds it or
        its holder's time has run out, and return the new holder's token; else ``None``.
        The leases that have run out are dropped first."""
        lease_seconds(seconds)
        now, ends = time.monotonic(), self._lease_ends
        while ends and ends[0][0] <= now:
            _, ended = heapq.heappop(ends)
            stored = self.leases.get(ended)
            if stored is not None and stored[1] <= now:  # not a newer lease of that key
                del self.leases[ended]
        held = self.leases.get(key)
        if held is not None and held[1] > now:
            return None
        holder, until = new_lease_holder(), now + seconds
        self.leases[key] = (holder, until)
        heapq.heappush(ends, (until, key))
        return holder

    async def release_lease(self, key: str, holder: str) -> None:
        """authui extension: end the lease ``key`` if ``holder`` still holds it."""
        stored = self.leases.get(key)
        if stored is not None and stored[0] == holder:
            del self.leases[key]
