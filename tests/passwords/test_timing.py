"""No enumeration of accounts by timing: a password sign-in for an address without an
account takes as long as one for an account with a wrong password, with the default
Argon2 parameters (a hash is made whether or not there is one to check).

This is a security property, measured loosely: the medians of interleaved tries must be
within a factor of two of each other. Without the dummy hash, the unknown address would
answer in well under a tenth of the time."""

from __future__ import annotations

import statistics
import time

from authui import Argon2
from tests.passwords.support import CREDENTIALS_SIGNIN, password_sign_in, password_site

TRIES = 15


async def test_an_unknown_address_takes_as_long_as_a_wrong_password() -> None:
    site = await password_site(hashing=Argon2(), throttle=None)
    await site.add_user("ann@example.com", hashing=Argon2())
    browser = site.browser()
    await browser.csrf_token()

    async def timed(email: str) -> float:
        started = time.perf_counter()
        answer = await password_sign_in(browser, email, "not-the-password-at-all")
        elapsed = time.perf_counter() - started
        assert answer.header("location") == CREDENTIALS_SIGNIN
        return elapsed

    await timed("ann@example.com")  # warm up: the hasher, the templates, the thread pool
    await timed("zed@example.com")
    known: list[float] = []
    unknown: list[float] = []
    for n in range(TRIES):
        first, second = ("ann", "zed") if n % 2 else ("zed", "ann")
        for name in (first, second):
            (known if name == "ann" else unknown).append(await timed(f"{name}@example.com"))
    ratio = statistics.median(unknown) / statistics.median(known)
    assert 0.5 <= ratio <= 2, (ratio, statistics.median(unknown), statistics.median(known))
