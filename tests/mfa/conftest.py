"""Fixtures of the second factors' tests: the TOTP clock, both session strategies, and the
stores of every kind (``tests.adapters.conftest``)."""

from __future__ import annotations

import time

import pytest

from tests.adapters.conftest import (  # noqa: F401  (fixtures)
    adapter,
    mariadb_tables,
    mariadb_url,
    pg_tables,
    postgres_url,
    redis_url,
)
from tests.mfa.support import Clock


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The time of ``authui.mfa.totp``: now, at the start of the current step (a second
    in), moved by the test."""
    moved = Clock((int(time.time()) // 30) * 30 + 1)
    monkeypatch.setattr("authui.mfa.totp.time", moved)
    return moved


@pytest.fixture(params=["jwt", "database"])
def strategy(request: pytest.FixtureRequest) -> str:
    """Each session strategy in turn."""
    value: str = request.param
    return value
