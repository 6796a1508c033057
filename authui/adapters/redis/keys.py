"""``RedisKeys``: the names of the keys holding Auth.js's records, the per-user indexes, the
account center's records and those of password accounts and multi-factor authentication,
which ``delete_user`` deletes with the user (the package docstring shows the whole
layout)."""

from __future__ import annotations

from authui.adapters.redis.store import RedisStore, escape


class RedisKeys(RedisStore):
    """The key of every Auth.js record, per-user index, account center record and record of
    password accounts and multi-factor authentication, each starting with the prefix."""

    def user_key(self, user_id: str) -> str:
        """``<prefix>user:<id>``: the user's JSON."""
        return f"{self._prefix}user:{user_id}"

    def email_key(self, email: str) -> str:
        """``<prefix>user-by-email:<email>``: the id of the user with that email."""
        return f"{self._prefix}user-by-email:{email}"

    def _email_key_of(self, email: str | None) -> str | None:
        """The email index key for ``email``; ``None`` for a user without email."""
        return None if email is None else self.email_key(email)

    def account_key(self, provider: str, provider_account_id: str) -> str:
        """``<prefix>account:<provider>:<providerAccountId>``: the account's JSON."""
        return f"{self._prefix}account:{account_member(provider, provider_account_id)}"

    def user_accounts_key(self, user_id: str) -> str:
        """``<prefix>user-accounts:<userId>``: set of ``<provider>:<providerAccountId>``."""
        return f"{self._prefix}user-accounts:{user_id}"

    def session_key(self, session_token: str) -> str:
        """``<prefix>session:<sessionToken>``: the session's JSON, expiring at ``expires``."""
        return f"{self._prefix}session:{session_token}"

    def user_sessions_key(self, user_id: str) -> str:
        """``<prefix>user-sessions:<userId>``: sorted set of session tokens by expiry."""
        return f"{self._prefix}user-sessions:{user_id}"

    def verification_token_key(self, identifier: str, token: str) -> str:
        """``<prefix>token:<identifier>:<token>``: the token's JSON, expiring at ``expires``."""
        return f"{self._prefix}token:{escape(identifier)}:{token}"

    def authenticator_key(self, credential_id: str) -> str:
        """``<prefix>authenticator:<credentialID>``: the authenticator's JSON."""
        return f"{self._prefix}authenticator:{credential_id}"

    def user_authenticators_key(self, user_id: str) -> str:
        """``<prefix>user-authenticators:<userId>``: list of credential ids, oldest first."""
        return f"{self._prefix}user-authenticators:{user_id}"

    def session_details_key(self, session_token: str) -> str:
        """``<prefix>session-details:<sessionToken>``: the session's details (JSON),
        expiring at their ``expires``."""
        return f"{self._prefix}session-details:{session_token}"

    def passkey_details_key(self, credential_id: str) -> str:
        """``<prefix>passkey-details:<credentialID>``: the passkey's details (JSON)."""
        return f"{self._prefix}passkey-details:{credential_id}"

    def user_events_key(self, user_id: str) -> str:
        """``<prefix>user-events:<userId>``: list of the user's security events (JSON),
        newest first."""
        return f"{self._prefix}user-events:{user_id}"

    def session_version_key(self, user_id: str) -> str:
        """``<prefix>session-version:<userId>``: the user's session version."""
        return f"{self._prefix}session-version:{user_id}"

    def password_key(self, user_id: str) -> str:
        """``<prefix>password:<userId>``: the user's password record (JSON)."""
        return f"{self._prefix}password:{user_id}"

    def mfa_key(self, user_id: str) -> str:
        """``<prefix>mfa:<userId>``: the user's MFA enrolment (JSON)."""
        return f"{self._prefix}mfa:{user_id}"

    def recovery_codes_key(self, user_id: str) -> str:
        """``<prefix>recovery-codes:<userId>``: set of the hashes of the user's recovery
        codes."""
        return f"{self._prefix}recovery-codes:{user_id}"

    def trusted_browser_key(self, browser_id: str) -> str:
        """``<prefix>trusted-browser:<browserId>``: the trusted browser (JSON), expiring at
        its ``expires``."""
        return f"{self._prefix}trusted-browser:{browser_id}"

    def user_trusted_browsers_key(self, user_id: str) -> str:
        """``<prefix>user-trusted-browsers:<userId>``: sorted set of the user's trusted
        browser ids by expiry (ms), expiring with the last of them."""
        return f"{self._prefix}user-trusted-browsers:{user_id}"


def account_member(provider: str, provider_account_id: str) -> str:
    """``<provider>:<providerAccountId>`` with the provider escaped: the account's entry in
    its user's ``user-accounts:`` set, and the end of its ``account:`` key."""
    return f"{escape(provider)}:{provider_account_id}"
