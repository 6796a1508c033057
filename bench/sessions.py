"""Sessions to benchmark with: signed in over HTTP (JWT), or stored in the database."""

from __future__ import annotations

import datetime as dt
import http.cookiejar
import json
import secrets
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from authui import jwt
from authui.adapters import AdapterSession, AdapterUser

PG_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
PG_SCHEMA = "authui_bench"
MARIADB_DATABASE = "authui_bench"
MARIADB_URL = f"mysql+asyncmy://root@127.0.0.1:3306/{MARIADB_DATABASE}"
REDIS_URL = "redis://127.0.0.1:6379/15"
USER = AdapterUser(id="1", email="bench@example.com", name="Bench User")
SESSION_COOKIE = "authjs.session-token"
STORED_SESSIONS = 1_000
"""Database sessions the benchmark sends in turn, each its own row (as many browsers would):
checks read together then read distinct rows."""
ROTATING_TOKENS = 2 * jwt.DECRYPTED_CACHE_SIZE
"""Distinct session tokens sent in turn: twice as many as authui keeps decrypted, so that
every request brings a token the server has to decrypt."""


def sign_in(url: str) -> str:
    """Sign in as bench/bench at ``url`` (csrf, then the credentials callback); the
    ``Cookie`` header of the signed-in browser."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), _NoRedirect())
    with opener.open(f"{url}/auth/csrf") as answer:
        csrf = json.load(answer)["csrfToken"]
    body = urllib.parse.urlencode({"csrfToken": csrf, "username": "bench", "password": "bench"})
    try:
        opener.open(f"{url}/auth/callback/credentials", data=body.encode())
    except urllib.error.HTTPError as redirect:
        if redirect.code != 302:
            raise
    names = [c.name for c in jar]
    if not any("session-token" in n for n in names):
        raise RuntimeError(f"signing in at {url} set no session cookie: {names}")
    return "; ".join(f"{c.name}={c.value}" for c in jar if "session-token" in c.name)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


SEEDING_TIMEOUT = 600
"""Seconds the seeding statements may take: a million sessions in one ``INSERT … SELECT``
outlast the adapter's own limit per statement on a slow machine."""


def pg_adapter(schema: str = PG_SCHEMA, *, seeding: bool = False) -> Any:
    """The adapter on a bench schema; for ``seeding``, without the adapter's time limit
    per statement (``STATEMENT_TIMEOUT``), which is for a server that stops answering."""
    from authui.adapters.sqlalchemy import SQLAlchemyAdapter

    connect_args: dict[str, Any] = {"server_settings": {"search_path": schema}}
    if seeding:
        connect_args["command_timeout"] = SEEDING_TIMEOUT
    return SQLAlchemyAdapter(PG_URL, engine_options={"connect_args": connect_args})


async def reset_pg(schema: str = PG_SCHEMA) -> None:
    """A fresh schema (by default ``authui_bench``) with authui's (Auth.js's) tables."""
    import sqlalchemy

    await drop_pg_schema(schema)
    adapter = pg_adapter(schema)
    async with adapter.engine.begin() as conn:
        await conn.execute(sqlalchemy.text(f"CREATE SCHEMA {schema}"))
    await adapter.create_all()
    await adapter.close()


async def drop_pg_schema(schema: str) -> None:
    """Drop a bench schema and its tables, if it is there."""
    import sqlalchemy

    adapter = pg_adapter(schema)
    async with adapter.engine.begin() as conn:
        await conn.execute(sqlalchemy.text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
    await adapter.close()


async def fresh_mariadb() -> Any:
    """A fresh ``authui_bench`` database in MariaDB with authui's tables; its adapter."""
    import sqlalchemy

    from authui.adapters.sqlalchemy import SQLAlchemyAdapter

    server = SQLAlchemyAdapter(MARIADB_URL.rsplit("/", 1)[0] + "/test")
    async with server.engine.begin() as conn:
        await conn.execute(sqlalchemy.text(f"DROP DATABASE IF EXISTS {MARIADB_DATABASE}"))
        await conn.execute(sqlalchemy.text(f"CREATE DATABASE {MARIADB_DATABASE}"))
    await server.close()
    adapter = SQLAlchemyAdapter(MARIADB_URL)
    await adapter.create_all()
    return adapter


async def stored_sessions(
    adapter: Any, count: int = STORED_SESSIONS, extra_sessions: int = 0
) -> list[str]:
    """Store the bench user and ``count`` sessions of it (plus ``extra_sessions`` others,
    in bulk, on PostgreSQL); their tokens, which the benchmark sends in turn."""
    if await adapter.get_user(USER.id) is None:
        await adapter.create_user(USER)
    expires = dt.datetime.now(dt.UTC) + dt.timedelta(days=30)
    tokens = [secrets.token_hex(32) for _ in range(count)]
    for token in tokens:
        await adapter.create_session(
            AdapterSession(session_token=token, user_id=USER.id, expires=expires)
        )
    if extra_sessions:
        await _bulk_sessions(adapter, extra_sessions, expires)
    engine = getattr(adapter, "engine", None)  # the Redis adapter has none
    if engine is not None and engine.dialect.name == "postgresql":
        await _settle(adapter)
    return tokens


async def _settle(adapter: Any) -> None:
    """``VACUUM ANALYZE`` the sessions table, so that every count is measured alike, not
    with the autovacuum that a burst of inserts sets off running under the load."""
    from sqlalchemy import text

    autocommit = adapter.engine.execution_options(isolation_level="AUTOCOMMIT")
    async with autocommit.connect() as conn:
        await conn.execute(text("VACUUM ANALYZE sessions"))  # the adapter's search_path


async def _bulk_sessions(adapter: Any, count: int, expires: dt.datetime) -> None:
    """``count`` sessions of the bench user in one ``INSERT … SELECT`` over PostgreSQL's
    ``generate_series`` (random 64-hex-digit tokens)."""
    from sqlalchemy import Text, func, insert, literal, select

    sessions = adapter.tables.sessions
    number = func.generate_series(1, count).column_valued("n")
    token = func.md5(func.random().cast(Text)).concat(func.md5(number.cast(Text)))
    rows = select(token, literal(USER.id), literal(expires, sessions.c.expires.type))
    columns = [sessions.c.session_token, sessions.c.user_id, sessions.c.expires]
    async with adapter.engine.begin() as conn:
        await conn.execute(insert(sessions).from_select(columns, rows))


def rotating_tokens_script(folder: Path, secret: str) -> Path:
    """A wrk script sending the bench user's session with ``ROTATING_TOKENS`` distinct
    tokens in turn (all valid: minted with ``secret`` as a sign-in would mint them)."""
    claims = {"name": USER.name, "email": USER.email, "sub": USER.id}
    tokens = [
        jwt.encode(token=claims, secret=secret, salt=SESSION_COOKIE) for _ in range(ROTATING_TOKENS)
    ]
    return cookies_script(folder, tokens)


def cookies_script(folder: Path, tokens: list[str]) -> Path:
    """A wrk script sending a session cookie with each of ``tokens`` in turn."""
    script = folder / "rotating-tokens.lua"
    script.write_text(
        "local tokens = {\n"
        + "".join(f'  "{token}",\n' for token in tokens)
        + "}\n"
        + "local next = 0\n"
        + "request = function()\n"
        + "  next = next % #tokens + 1\n"
        + f'  local cookie = "{SESSION_COOKIE}=" .. tokens[next]\n'
        + '  return wrk.format(nil, nil, { ["Cookie"] = cookie })\n'
        + "end\n"
    )
    return script
