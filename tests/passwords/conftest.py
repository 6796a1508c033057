"""Fixtures of the password accounts' tests: both session strategies, and the stores of
every kind (``tests.adapters.conftest``)."""

from __future__ import annotations

import pytest

from tests.adapters.conftest import (  # noqa: F401  (fixtures)
    adapter,
    mariadb_tables,
    mariadb_url,
    pg_tables,
    postgres_url,
    redis_url,
)


@pytest.fixture(params=["jwt", "database"])
def strategy(request: pytest.FixtureRequest) -> str:
    """Each session strategy in turn."""
    value: str = request.param
    return value
