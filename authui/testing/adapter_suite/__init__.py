"""The adapter conformance suite: pytest tests every authui adapter should pass.

It is the counterpart of Auth.js's ``runBasicTests``, with independent tests: each test
makes the users, accounts, sessions and tokens it needs, in an adapter that starts empty.
Subclass :class:`AdapterConformance` (or :class:`AdapterConformanceWithoutWebAuthn`) in
your own test module and give it an ``adapter`` fixture::

    import pytest
    from collections.abc import AsyncIterator

    from authui.testing import AdapterConformance


    class TestMyAdapter(AdapterConformance):
        @pytest.fixture
        async def adapter(self) -> AsyncIterator[MyAdapter]:
            adapter = await MyAdapter.connect(...)
            yield adapter  # fresh and empty for every test
            await adapter.close()

The tests are ``async def`` methods, so pytest needs pytest-asyncio with
``asyncio_mode = "auto"`` (or, in strict mode, ``pytestmark = pytest.mark.asyncio`` on
the class and ``@pytest_asyncio.fixture`` on ``adapter``).

The suite raises ``AssertionError`` itself, with a message naming the method and field,
rather than relying on pytest's assertion rewriting (which does not reach installed
packages), so failures read the same under any configuration.

authui's optional extensions of Auth.js's interface, ``increment_rate_limit`` with
``reset_rate_limit``, ``create_challenge`` with ``use_challenge``,
``create_user_and_account``, ``delete_user_sessions``, the account center's methods
(session details and ``list_user_sessions``, session versions, passkey details and
``delete_authenticator``, security events) and those of password accounts and
multi-factor authentication (passwords, MFA enrolments and TOTP steps, recovery codes,
trusted browsers), are tested when the adapter has them, and those tests are skipped when
it has not. One of them waits for the next second (1-second windows), so the suite takes
up to a second longer for it.

The suite is a package of parts (users and accounts, new users with their first session
or account, sessions and tokens, the extensions, the account center, password accounts
and multi-factor authentication, passkeys with the account center's passkey details),
assembled in ``authui.testing.adapter_suite.suite``; import the classes from here or from
``authui.testing``.

Dates are compared to the millisecond: a returned ``datetime`` must be timezone-aware,
in UTC (``utcoffset() == 0``) and less than one millisecond away from the value given,
so adapters that keep milliseconds (JSON ``toISOString`` dates, ``DATETIME(3)``,
JavaScript's ``Date``) pass, and adapters that keep only seconds do not.
"""

from __future__ import annotations

from authui.testing.adapter_suite.authenticators import AdapterAuthenticatorConformance
from authui.testing.adapter_suite.common import ADAPTER_METHODS, AUTHENTICATOR_METHODS
from authui.testing.adapter_suite.suite import (
    AdapterConformance,
    AdapterConformanceWithoutWebAuthn,
)

__all__ = [
    "ADAPTER_METHODS",
    "AUTHENTICATOR_METHODS",
    "AdapterAuthenticatorConformance",
    "AdapterConformance",
    "AdapterConformanceWithoutWebAuthn",
]
