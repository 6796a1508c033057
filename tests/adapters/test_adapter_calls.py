"""How authui calls adapters: missing methods are named; a lost connection becomes
ServiceUnavailable, any other failure AdapterError."""

from __future__ import annotations

import pytest

from authui import SessionOptions, assert_config
from authui.adapters.base import AdapterCalls
from authui.errors import AdapterError, MissingAdapterMethods, ServiceUnavailable
from authui.logger import StandardLogger
from tests.conftest import make_config


class OnlyUsers:
    async def get_user(self, user_id: str) -> None:
        return None


class Failing:
    def __init__(self, exc: Exception) -> None:
        self.exc = exc

    async def get_user(self, user_id: str) -> None:
        raise self.exc


async def test_a_missing_method_is_named_with_what_needs_it() -> None:
    calls = AdapterCalls(OnlyUsers(), StandardLogger())
    with pytest.raises(MissingAdapterMethods) as raised:
        await calls.call("create_session", "database sessions", object())
    assert "OnlyUsers has no create_session(), which database sessions needs" in str(raised.value)
    assert calls.has("get_user")
    assert not calls.has("create_user_and_session")


async def test_a_failing_method_becomes_an_adapter_error_with_its_cause() -> None:
    bug = ValueError("invalid literal for int() with base 10: 'x'")
    calls = AdapterCalls(Failing(bug), StandardLogger())
    with pytest.raises(AdapterError) as raised:
        await calls.call("get_user", "the session check", "42")
    assert raised.value.cause == {"method": "get_user"}  # the driver's error is not logged
    assert raised.value.__cause__ is bug
    assert raised.value.client_safe
    assert "ValueError: invalid literal" in raised.value.detail


async def test_a_lost_connection_becomes_service_unavailable() -> None:
    reset = ConnectionResetError(104, "Connection reset by peer")
    calls = AdapterCalls(Failing(reset), StandardLogger())
    with pytest.raises(ServiceUnavailable) as raised:
        await calls.call("get_user", "the session check", "42")
    assert raised.value.cause == {"method": "get_user"}
    assert raised.value.__cause__ is reset
    assert (raised.value.status, raised.value.retry_after) == (503, 30)


def test_assert_config_names_what_each_feature_lacks() -> None:
    jwt = make_config(adapter=OnlyUsers(), session=SessionOptions(strategy="jwt"))
    (credentials_error,) = assert_config(jwt).errors
    assert isinstance(credentials_error, MissingAdapterMethods)
    assert "Credentials sign-in with an adapter" in credentials_error.detail
    assert "'get_user_by_email', 'create_user'" in credentials_error.detail

    database = make_config(adapter=OnlyUsers())
    details = [e.detail for e in assert_config(database).errors]
    assert any(d.startswith("Database sessions need") and "create_session" in d for d in details)
