"""Recovery codes: ten one-time codes a user keeps on paper, for when their authenticator
app and passkeys are out of reach. Shown once, stored only as hashes
(``sha256hex(code + secret)``, as sign-in link tokens are: the codes are random, so a slow
hash adds nothing), each accepted once (``use_recovery_code`` deletes it atomically).

A code is ten characters of a 31-letter alphabet without look-alikes (``i``, ``l``,
``o``, ``0``, ``1``; about 49 bits), shown as ``xxxxx-xxxxx``; typing ignores case,
spaces and dashes.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from authui.csrf import token_hash

COUNT = 10
LENGTH = 10
_LETTERS = "abcdefghjkmnpqrstuvwxyz23456789"


def new_codes() -> list[str]:
    """``COUNT`` new codes, as shown to the user."""
    codes = ("".join(secrets.choice(_LETTERS) for _ in range(LENGTH)) for _ in range(COUNT))
    return [f"{code[:5]}-{code[5:]}" for code in codes]


def normalized(typed: object) -> str | None:
    """A typed code as it is hashed (lower case, without spaces and dashes), when it can
    be one; else ``None``."""
    if not isinstance(typed, str):
        return None
    code = "".join(typed.split()).replace("-", "").lower()
    return code if len(code) == LENGTH and all(c in _LETTERS for c in code) else None


def code_hash(code: str, secret: str) -> str:
    """The stored hash of a (normalized) code with one of the app's secrets."""
    return token_hash(code, secret)


def hashes(codes: Sequence[str], secret: str) -> list[str]:
    """The hashes to store for new ``codes`` (as ``new_codes`` shows them)."""
    return [code_hash(code.replace("-", ""), secret) for code in codes]
