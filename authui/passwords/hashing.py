"""Password hashes: argon2id through argon2-cffi, in PHC strings
(``$argon2id$v=19$m=65536,t=3,p=4$<salt>$<hash>``).

Hashing takes tens of milliseconds of CPU by design; it runs in a worker thread, so the
event loop goes on serving other requests meanwhile (argon2-cffi releases the GIL). A
sign-in for an address without a password hashes the typed password all the same, so that
it takes as long as one with a password (no enumeration by timing).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from argon2 import PasswordHasher


@dataclass(frozen=True, slots=True, kw_only=True)
class Argon2:
    """The argon2id parameters of new hashes. The defaults are RFC 9106's second
    recommended option (argon2-cffi's own): 64 MiB, 3 passes, 4 lanes. A stored hash made
    with other parameters is replaced at the user's next sign-in.

    Attributes:
        time_cost: Passes over the memory.
        memory_cost: Memory in KiB.
        parallelism: Lanes (threads) per hash.
        hash_len: Length of the hash in bytes.
        salt_len: Length of the random salt in bytes.

    Raises:
        ValueError: A parameter argon2 refuses (``memory_cost`` below 8 times
            ``parallelism``, a value below 1, a salt shorter than 8 bytes).
    """

    time_cost: int = 3
    memory_cost: int = 64 * 1024
    parallelism: int = 4
    hash_len: int = 32
    salt_len: int = 16

    def __post_init__(self) -> None:
        for name in ("time_cost", "memory_cost", "parallelism", "hash_len", "salt_len"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"Argon2.{name} must be a positive integer, not {value!r}")
        if self.memory_cost < 8 * self.parallelism:
            raise ValueError("Argon2.memory_cost must be at least 8 KiB per lane (parallelism)")
        if self.salt_len < 8 or self.hash_len < 4:
            raise ValueError("Argon2 needs a salt of at least 8 bytes and a hash of 4")

    def hasher(self) -> PasswordHasher:
        """argon2-cffi's hasher for these parameters (``pip install authui[passwords]``)."""
        from argon2 import PasswordHasher, Type

        return PasswordHasher(
            time_cost=self.time_cost,
            memory_cost=self.memory_cost,
            parallelism=self.parallelism,
            hash_len=self.hash_len,
            salt_len=self.salt_len,
            type=Type.ID,
        )


@dataclass(frozen=True, slots=True)
class Checked:
    """A password checked against a stored hash.

    Attributes:
        matches: Whether it is the password.
        new_hash: For a match whose hash was made with other parameters than the current
            ones: the hash to store instead; else ``None``.
    """

    matches: bool
    new_hash: str | None = None


async def hash_password(params: Argon2, password: str) -> str:
    """A new hash of ``password`` (with a new random salt)."""
    return await asyncio.to_thread(params.hasher().hash, password)


def _check(params: Argon2, stored: str, password: str) -> Checked:
    from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

    hasher = params.hasher()
    try:
        hasher.verify(stored, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return Checked(False)
    if hasher.check_needs_rehash(stored):
        return Checked(True, hasher.hash(password))
    return Checked(True)


async def check_password(params: Argon2, stored: str | None, password: str) -> Checked:
    """Check ``password`` against the ``stored`` hash. Without one (an unknown address,
    a user without a password), the password is hashed anyway, so the answer takes as
    long, and does not match."""
    if stored is None:
        await hash_password(params, password)
        return Checked(False)
    return await asyncio.to_thread(_check, params, stored, password)
