"""A small Quart app for running several server processes on one database.

``tests/adapters/test_two_processes.py`` starts two hypercorn processes of it
(``hypercorn tests.peers.shared_app:app``) on the same store and moves one browser's
session between them. Sign in as ``ada`` / ``correct horse``; sessions are database
sessions in the adapter the environment names:

- ``AUTHUI_SHARED_ADAPTER``: ``sql`` or ``redis``;
- ``sql``: ``AUTHUI_SHARED_DATABASE_URL`` (a SQLAlchemy URL: PostgreSQL, MariaDB or a
  SQLite file), with ``AUTHUI_SHARED_SQL_SCHEMA`` and ``AUTHUI_SHARED_SQL_PREFIX`` (a
  schema and a table-name prefix, both optional) saying where the tables are
  (``create_all`` them first);
- ``redis``: ``AUTHUI_SHARED_REDIS_URL`` and ``AUTHUI_SHARED_REDIS_PREFIX``;
- ``AUTH_SECRET`` (and ``AUTH_TRUST_HOST``) as for any authui app.

Routes: ``/auth/*``; ``/me``, signed-in only, answers the session JSON. Every response
carries ``X-Served-By: <pid>`` so a test can tell the processes apart.
"""

from __future__ import annotations

import json
import os
from typing import Any

from quart import Quart, Response

from authui import AuthConfig, Credentials
from authui.adapters.redis import RedisAdapter
from authui.adapters.sqlalchemy import SQLAlchemyAdapter, SQLNaming
from authui.quart import AuthUI

USER = {"name": "Ada Lovelace", "email": "ada@example.com"}
PASSWORD = "correct horse"


async def authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
    """ada / correct horse, without an id: the stored user is found by email."""
    if credentials.get("username") == "ada" and credentials.get("password") == PASSWORD:
        return dict(USER)
    return None


def make_adapter() -> SQLAlchemyAdapter | RedisAdapter:
    """The adapter ``AUTHUI_SHARED_ADAPTER`` names, configured from the environment."""
    kind = os.environ.get("AUTHUI_SHARED_ADAPTER")
    if kind == "sql":
        naming = SQLNaming(schema=os.environ.get("AUTHUI_SHARED_SQL_SCHEMA") or None)
        naming = naming.prefixed(os.environ.get("AUTHUI_SHARED_SQL_PREFIX", ""))
        return SQLAlchemyAdapter(os.environ["AUTHUI_SHARED_DATABASE_URL"], naming=naming)
    if kind == "redis":
        prefix = os.environ["AUTHUI_SHARED_REDIS_PREFIX"]
        return RedisAdapter(os.environ["AUTHUI_SHARED_REDIS_URL"], prefix=prefix)
    raise RuntimeError(f"AUTHUI_SHARED_ADAPTER must be sql or redis, not {kind!r}")


adapter = make_adapter()
config = AuthConfig(
    providers=[
        Credentials(
            credentials={
                "username": {"label": "Username", "autocomplete": "username"},
                "password": {"label": "Password", "type": "password"},
            },
            authorize=authorize,
        )
    ],
    adapter=adapter,
)

app = Quart(__name__)
auth_ui = AuthUI(app, config)
auth = auth_ui.auth


@app.get("/me")
@auth.required
async def me() -> Response:
    """The session, as ``/auth/session`` answers it."""
    return Response(json.dumps(await auth()), content_type="application/json")


@app.after_request
async def served_by(response: Response) -> Response:
    response.headers["X-Served-By"] = str(os.getpid())
    return response


@app.after_serving
async def close_adapter() -> None:
    await adapter.close()
