"""``AuthConfig(adapter="<URL>")``: the embedded SQLite default and bad URLs."""

from __future__ import annotations

from pathlib import Path

import pytest

from authui.adapters.sql.migrations import SchemaMigrator
from authui.options import resolve
from authui.testing import AuthClient
from tests.conftest import make_config


async def test_sqlite_url_creates_its_tables_and_keeps_sessions_across_restarts(
    tmp_path: Path,
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'auth.db'}"
    config = make_config(adapter=url)
    first = AuthClient(config)
    response = await first.sign_in_with_credentials(username="ada", password="correct horse")
    assert response.status == 302
    assert (await first.get("session")).data()["user"]["email"] == "ada@example.com"
    assert (tmp_path / "auth.db").stat().st_size > 0

    status = await SchemaMigrator(resolve(config).config.adapter.adapter).status()
    assert (status.version, status.pending) == (status.latest, ())
    await resolve(config).config.adapter.close()

    again = make_config(adapter=url)
    restarted = AuthClient(again, cookies=dict(first.cookies))
    session = (await restarted.get("session")).data()
    assert session["user"]["name"] == "Ada Lovelace"
    await resolve(again).config.adapter.close()


async def test_an_unknown_database_url_is_a_configuration_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = AuthClient(make_config(adapter="nosuchdb://localhost/x"))
    response = await client.get("session")
    assert response.status == 500
    assert "nosuchdb://localhost/x" in caplog.text
