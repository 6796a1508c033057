"""The suite's public classes, assembled from its parts."""

from __future__ import annotations

from typing import Any, ClassVar

from authui.testing.adapter_suite.account import AccountConformance
from authui.testing.adapter_suite.authenticators import AdapterAuthenticatorConformance
from authui.testing.adapter_suite.extensions import ExtensionConformance
from authui.testing.adapter_suite.factors import FactorConformance
from authui.testing.adapter_suite.new_users import NewUserConformance
from authui.testing.adapter_suite.sessions import SessionConformance
from authui.testing.adapter_suite.users import UserConformance


class AdapterConformanceWithoutWebAuthn(
    UserConformance,
    NewUserConformance,
    SessionConformance,
    ExtensionConformance,
    AccountConformance,
    FactorConformance,
):
    """The conformance suite without the passkey (authenticator) tests, the account
    center's passkey tests among them.

    For adapters that do not store passkeys. Subclass it as you would
    :class:`AdapterConformance`; see that class for the fixture and options.

    Attributes:
        supports_webauthn: Always ``False`` here; setting it to ``True`` is an error
            (subclass ``AdapterConformance`` to test authenticators).
        concurrency: How many concurrent ``use_verification_token`` (or
            ``use_challenge``) calls race for one token (or challenge), and how many
            concurrent ``increment_rate_limit`` (or ``bump_session_version``) calls count
            one key (or user), and how many concurrent ``use_totp_step``,
            ``use_recovery_code`` (or compare-and-set ``set_password``) calls race for one
            step (or code, or hash); at least 20.
    """

    supports_webauthn: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.supports_webauthn and not issubclass(cls, AdapterAuthenticatorConformance):
            raise TypeError(
                f"{cls.__name__} sets supports_webauthn = True but has no authenticator "
                "tests: subclass AdapterConformance instead"
            )


class AdapterConformance(AdapterAuthenticatorConformance, AdapterConformanceWithoutWebAuthn):
    """The adapter conformance suite, like Auth.js's ``runBasicTests``: subclass it.

    Each test is an ``async def test_*`` method that takes an ``adapter`` fixture, which
    the subclass (or a conftest) provides: a fresh, empty adapter for every test. Tests
    are independent and may run in any order. The class name does not start with
    ``Test``, so pytest collects only your subclass. Failures raise ``AssertionError``
    naming the method and the field.

    Example:
        ::

            import pytest
            from collections.abc import AsyncIterator

            from authui.testing import AdapterConformance


            class TestMyAdapter(AdapterConformance):
                concurrency = 20  # optional

                @pytest.fixture
                async def adapter(self) -> AsyncIterator[MyAdapter]:
                    adapter = MyAdapter(await make_empty_database())
                    yield adapter
                    await adapter.close()

    The tests need pytest-asyncio with ``asyncio_mode = "auto"``; in strict mode set
    ``pytestmark = pytest.mark.asyncio`` on the class and decorate the fixture with
    ``@pytest_asyncio.fixture``.

    What is checked: every protocol method exists and is ``async def``; lookups that find
    nothing return ``None`` (``[]`` for lists); records round-trip field for field and come
    back as the record types of ``authui.adapters``; several users without email can be
    stored, found by id and by account, given an email and have it taken away, and deleted;
    dates come back timezone-aware in UTC and within one millisecond of the value stored
    (millisecond storage passes, second storage fails); ``use_verification_token`` hands a
    token out once, also to ``concurrency`` concurrent callers; ``delete_user`` deletes the
    user's sessions, accounts and authenticators and nothing of other users;
    ``increment_rate_limit``, when the adapter has it, counts 1, 2, … per key and window
    length, gives ``concurrency`` concurrent callers 1 to ``concurrency`` each once, and
    starts again from 1 in a new window, and after ``reset_rate_limit`` of its key in
    every window length (other keys count on); ``use_challenge``, when the adapter has
    it, returns the challenge ``create_challenge`` stored once (also to ``concurrency``
    concurrent callers, and also when it was stored twice), ``None`` for an unknown key,
    and an expired challenge as itself or not at all; ``create_user_and_session`` and
    ``create_user_and_account``, when the adapter has them, store both records or
    neither; ``update_authenticator_counter`` raises for an unknown credential.

    The account center's methods, when the adapter has them: session details round-trip
    field for field, a second save replaces them, a touch sets ``last_seen`` and
    ``expires`` (and does nothing without details); ``list_user_sessions`` lists the
    user's sessions that have not expired, latest ``expires`` first, with their details or
    ``None`` (a session made without details, as Auth.js makes them), none of another
    user; ``delete_session``, ``delete_user_sessions`` (which keeps the session of
    ``except_token``) and ``delete_user`` delete the details of the sessions they end, and
    nothing of other users; session versions count 0, 1, 2, and ``concurrency``
    concurrent ``bump_session_version`` calls return 1 to ``concurrency`` each once;
    passkey details round-trip and are listed without ``created`` first, then oldest
    first; ``update_authenticator_details`` changes the given fields, returns ``None`` for
    unknown details and refuses bad changes (``ValueError``, ``TypeError``) before writing;
    ``delete_authenticator`` returns the passkey and deletes it with its details (unknown:
    ``None``); security events are listed newest first, at most ``limit`` (``ValueError``
    for a limit that is not a positive integer), none older than ``SECURITY_EVENT_DAYS``
    and none of another user; ``delete_user`` deletes the user's session version,
    passkey details and security events.

    The methods of password accounts and multi-factor authentication, when the adapter
    has them: passwords, enrolments and trusted browsers round-trip field for field and a
    second save replaces them; ``set_password`` with ``replaces`` stores only over exactly
    that hash (``False`` otherwise, also without a stored one), and of ``concurrency``
    concurrent compare-and-sets over one hash exactly one stores; ``use_totp_step``
    accepts each step once and never an earlier one, only with a ``totp_secret``, and of
    ``concurrency`` concurrent calls with one step exactly one gets ``True``; recovery
    codes are exactly the last ones given, each used once (also by ``concurrency``
    concurrent callers), and another user's never match; ``delete_mfa`` also deletes the
    user's recovery codes and trusted browsers (and says whether there was an
    enrolment); trusted browsers are listed newest ``created`` first (ties by
    ``browser_id``), an expired one is neither found nor listed nor counted when deleted,
    ``delete_trusted_browsers`` deletes one of the user's or all of them and none of
    another user's; values too long to keep, bad steps and code lists, and unknown users
    are refused with ``ValueError`` before anything is written; ``delete_user`` deletes
    the user's password, enrolment, recovery codes and trusted browsers.

    Methods whose
    protocol return is ``Record | None`` (``link_account``, ``unlink_account``,
    ``delete_session``, ``delete_user``, ``create_verification_token``) may return ``None``
    or the record. ``create_user`` may assign its own id; the suite then uses the returned
    one.

    Attributes:
        supports_webauthn: ``True``. Set it to ``False`` to leave out the passkey tests
            (they are then not collected at all, rather than skipped); or subclass
            :class:`AdapterConformanceWithoutWebAuthn`.
        concurrency: How many concurrent ``use_verification_token`` calls race for one
            token (default 50, at least 20); exactly one must get it. As many concurrent
            ``use_challenge`` calls race for one challenge, as many concurrent
            ``increment_rate_limit`` calls count one key, as many concurrent
            ``bump_session_version`` calls count one user's version, and as many
            concurrent ``use_totp_step``, ``use_recovery_code`` and compare-and-set
            ``set_password`` calls race for one step, code or hash.
    """

    supports_webauthn: ClassVar[bool] = True
