"""Fixtures of the account center's tests: a real OpenID provider (npm ``oidc-provider``)
whose client is the test site at ``http://localhost:3000``, with refresh tokens and token
revocation (RFC 7009); and the stores of every kind (``tests.adapters.conftest``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.account.support import OP_CALLBACK, OP_CLIENT, OP_SECRET
from tests.adapters.conftest import (  # noqa: F401  (fixtures)
    adapter,
    mariadb_tables,
    mariadb_url,
    pg_tables,
    postgres_url,
    redis_url,
)
from tests.peers.oidc_provider import OIDCProvider, client, oidc_provider


@pytest.fixture(scope="session")
def op() -> Iterator[OIDCProvider]:
    """The provider: refresh tokens that do not rotate (each stays usable until revoked),
    and its revocation endpoint in its discovery document."""
    registered = client(OP_CLIENT, OP_CALLBACK, "client_secret_basic", OP_SECRET, refresh=True)
    with oidc_provider([registered], refresh_tokens={"rotate": False}, revocation=True) as running:
        yield running
