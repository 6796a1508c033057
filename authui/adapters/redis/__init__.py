"""An adapter that keeps users, accounts, sessions, tokens and passkeys in Redis.

Install the extra (``pip install "authui[redis]"``) and hand the adapter a URL or an
existing ``redis.asyncio.Redis`` client of a Redis 7 or later::

    adapter = RedisAdapter("redis://localhost:6379/0")
    adapter = RedisAdapter(client, prefix="myapp:auth:")

The adapter uses that one client (and so its connection pool) for every call; the session
check keeps one of the pool's connections for itself
(``authui.adapters.redis.own_connection``). When the adapter made the client from a URL it
also owns it: ``await adapter.close()`` (or ``async with``) closes it; a client passed in
stays the caller's to close (``adapter.close()`` gives the check's connection back to its
pool).

Key layout
----------
Every key starts with the prefix (default ``authui:``). Records are JSON strings whose
field names are the Auth.js ones (``emailVerified``, ``userId``, ``providerAccountId``,
``sessionToken``, ``credentialID``, …); dates are ISO 8601 strings with a UTC offset
(``2030-01-01T12:00:00.123456+00:00``)::

    user:<id>                                 user (JSON)
    user-by-email:<email>                     the user's id (none for a user without email)
    account:<provider>:<providerAccountId>    account (JSON)
    user-accounts:<userId>                    SET of "<provider>:<providerAccountId>"
    session:<sessionToken>                    session (JSON), TTL at its expires
    user-sessions:<userId>                    ZSET of session tokens, scored by expiry (ms)
    token:<identifier>:<token>                verification token (JSON), TTL at its expires
    authenticator:<credentialID>              authenticator (JSON)
    user-authenticators:<userId>              LIST of credential ids, oldest first
    rate-limits:<key>                         HASH of counts per window length (below)
    challenge:<key>                           WebAuthn challenge (JSON), TTL at its expires
    lease:<key>                               a lease's holder token, TTL when it runs out
    session-details:<sessionToken>            session details (JSON), TTL at their expires
    passkey-details:<credentialID>            passkey details (JSON)
    user-events:<userId>                      LIST of security events (JSON), newest first
    session-version:<userId>                  the user's session version (an integer)
    password:<userId>                         the user's password record (JSON)
    mfa:<userId>                              the user's MFA enrolment (JSON)
    recovery-codes:<userId>                   SET of the hashes of the user's recovery codes
    trusted-browser:<browserId>               trusted browser (JSON), TTL at its expires
    user-trusted-browsers:<userId>            ZSET of trusted browser ids, scored by expiry (ms)

Sessions, verification tokens and challenges get a TTL at their ``expires`` (``SET …
PXAT``), so Redis drops them by itself once they expire; ``update_session`` moves it.
Expired session tokens left in ``user-sessions:<userId>`` are pruned whenever that user
gets a new session; ``delete_user_sessions`` (an authui extension, for back-channel logout
and "sign out everywhere") deletes every session in the index but the one it keeps, their
details and their entries, in one Lua script.

``rate-limits:`` hashes hold the counts of ``increment_rate_limit`` (an authui extension,
not part of Auth.js's interface): for each window length ``<seconds>`` that ``<key>`` is
counted in, the number of the current window (field ``window:<seconds>``, ``floor(now /
<seconds>)``) and the count in it (``count:<seconds>``); a new window replaces the last
one. The hash lives until the longest of its windows ends (a TTL of the time left, so
clocks that differ between Redis and the app do not matter), and ``reset_rate_limit``
deletes it. ``challenge:`` keys hold the challenges of ``create_challenge`` (also an
authui extension). ``lease:`` keys hold the holder token of ``claim_lease`` (another one),
set with ``SET … NX PX``, so that only a key that is not there is taken, and Redis drops
it when the lease runs out; ``release_lease`` deletes it in a Lua script only if it still
holds the releasing holder's token.

The account center's keys are authui's own too. ``session-details:`` keys expire with
their session (``SET … PXAT``; ``touch_session_details`` moves the TTL), so those of a
session that Auth.js deleted go by themselves; ``delete_session``, ``delete_user_sessions``
and ``delete_user`` delete them at once. ``list_user_sessions`` reads the tokens of
``user-sessions:<userId>`` that expire after now (``ZRANGE … BYSCORE REV``), then their
sessions and details in one ``MGET``. ``passkey-details:`` keys are found through the
user's ``user-authenticators:`` list (details are kept for stored passkeys), and
``delete_authenticator`` deletes a passkey, its details and its entry in one transaction.
``user-events:`` lists get each new event in front (``LPUSH``), are cut to
``SECURITY_EVENTS_KEPT`` (``LTRIM``) and expire ``SECURITY_EVENT_DAYS`` after their newest
event; listing leaves out events older than that. ``session-version:`` keys count with
``INCR``, so of concurrent ``bump_session_version`` calls each gets a version of its own.

So are the keys of password accounts and multi-factor authentication. A write of a
user's ``password:``, ``mfa:``, ``recovery-codes:`` or ``trusted-browser:`` key runs in a
transaction watching the user's key, and refuses a user that is not there, so none
outlives ``delete_user``. ``set_password`` with ``replaces`` compares and sets in a
transaction watching the ``password:`` key, ``use_totp_step`` in one watching the ``mfa:``
key, and ``use_recovery_code`` is one ``SREM``: of concurrent calls exactly one wins.
``trusted-browser:`` keys expire at their ``expires`` (``SET … PXAT``); the user's
``user-trusted-browsers:`` index, which ``list_trusted_browsers``,
``delete_trusted_browsers``, ``delete_mfa`` and ``delete_user`` read, drops its expired
entries when a browser is saved and expires with the last of its browsers. ``delete_mfa``
deletes the enrolment, the codes and the browsers in one Lua script.

The per-user indexes live in their own namespaces (``user-accounts:`` rather than
``account:user:``) so that no id, email or provider can make one key look like another;
in the two keys with two variable parts, ``:`` and ``%`` in the first part (provider,
identifier) are percent-encoded (``%3A``, ``%25``), which leaves ordinary values as they are.

Atomicity: ``use_verification_token`` and ``use_challenge`` are one ``GETDEL`` each, so of
many concurrent calls for one token or challenge exactly one gets it; ``claim_lease`` is
one ``SET … NX``, so of concurrent claims of a free lease exactly one takes it;
``increment_rate_limit`` is one Lua script (Redis runs a script as one command), so every
concurrent call gets a count of its own. Changes that touch several keys
(``create_user``, ``update_user``, ``delete_user``, ``link_account``, ``update_account``,
``create_authenticator``, ``update_session``, ``update_authenticator_counter``,
``delete_authenticator``, …) run as
``WATCH``/``MULTI``/``EXEC`` transactions that retry when a watched key changes underneath
them. The keys of one operation may live in different hash slots, so Redis Cluster is not
supported.

Emails are unique: ``create_user`` and ``update_user`` raise ``ValueError`` for an email
another user has (as the Auth.js SQL schemas' unique constraint would). A user may have no
email (``None``: OAuth providers such as Twitter/X give none); such users have no
``user-by-email:`` key, and any number of them can exist.
"""

from __future__ import annotations

from authui.adapters.redis.adapter import RedisAdapter
from authui.adapters.redis.store import DEFAULT_PREFIX

__all__ = ["DEFAULT_PREFIX", "RedisAdapter"]
