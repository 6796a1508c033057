"""authui on a database exactly as an Auth.js app left it: Auth.js's five tables from its
documented SQL (``SERIAL`` ids), nothing of authui's, and no authui command run.

``AuthConfig(adapter=URL)`` learns the tables and the id type on its own: sessions, email
sign-in (the limits counted in the process) and passkeys work; what needs authui's tables
is named at start-up with the one command that adds them, and that command leaves
Auth.js's tables as they are. On PostgreSQL and MariaDB, and on PostgreSQL beside
``@auth/pg-adapter`` writing to the same tables.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import secrets
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from quart import Quart
from sqlalchemy import inspect, text
from sqlalchemy.ext.asyncio import create_async_engine

from authui import AuthConfig, Experimental, MfaOptions, SessionOptions
from authui.adapters.from_url import adapter_from_url
from authui.adapters.sql.migrations import LATEST_VERSION, SchemaMigrator
from authui.adapters.sqlalchemy import SQLAlchemyAdapter
from authui.mail.message import VerificationEmail
from authui.options import ready, resolve
from authui.providers.email import EmailProvider
from authui.providers.password import Password
from authui.providers.webauthn import Passkey
from authui.quart import AuthUI
from authui.testing import AuthClient
from tests.actions.test_webauthn import APP, register, sets_session
from tests.conftest import make_config
from tests.peers.databases import AUTHJS_TABLES, authjs_database
from tests.peers.pgadapter_node import PgAdapter, js_date, pg_adapter_peer, run_isolated
from tests.soft_authenticator import SoftAuthenticator

__all__ = ["pg_adapter_peer"]


@pytest.fixture(params=["postgres", "mariadb"])
def database(request: pytest.FixtureRequest) -> Iterator[str]:
    """The URL of a new database with Auth.js's tables alone."""
    server: str = request.getfixturevalue(f"{request.param}_url")
    with authjs_database(server) as url:
        yield url


class Outbox:
    def __init__(self) -> None:
        self.sent: list[VerificationEmail] = []

    async def __call__(self, message: VerificationEmail, provider: EmailProvider) -> None:
        self.sent.append(message)


def email_config(url: str, outbox: Outbox, *more: Any) -> AuthConfig:
    email = EmailProvider(transport=outbox, sender="Acme <login@acme.example>")
    return make_config(
        providers=[email, *more], adapter=url, session=SessionOptions(strategy="database")
    )


@contextlib.asynccontextmanager
async def email_site(database: str, **changes: Any) -> AsyncIterator[tuple[AuthClient, Outbox]]:
    """A browser on an email sign-in site over ``database`` (``changes`` made to its
    configuration) and its outbox; the adapter made from the URL is closed afterwards."""
    outbox = Outbox()
    config = dataclasses.replace(email_config(database, outbox), **changes)
    try:
        yield AuthClient(config, origin=APP), outbox
    finally:
        await resolve(config).config.adapter.close()


async def tables_in(url: str) -> set[str]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            return set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
    finally:
        await engine.dispose()


async def sign_in_by_email(client: AuthClient, outbox: Outbox, email: str) -> Any:
    form = {"csrfToken": await client.csrf_token(), "email": email, "callbackUrl": "/home"}
    asked = await client.post("signin/email", form=form)
    assert asked.header("location") == f"{APP}/auth/verify-request?provider=email&type=email"
    link = urlsplit(outbox.sent[-1].url)
    page = await client.get(f"callback/email?{link.query}")
    if page.status != 200:  # refused on sight
        return page
    token = page.text.split('name="token" value="', 1)[1].split('"', 1)[0]
    form = {"token": token, "email": email, "callbackUrl": "/home"}
    form["csrfToken"] = await client.csrf_token()
    return await client.post("callback/email", form=form)


def warned(caplog: pytest.LogCaptureFixture, code: str) -> bool:
    return any(f"[auth][warn][{code}]" in r.getMessage() for r in caplog.records)


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


async def test_sessions_and_email_sign_in_work_on_auth_js_tables_alone(
    database: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with email_site(database) as (client, outbox):
        done = await sign_in_by_email(client, outbox, "ada@example.com")
        assert done.status == 302
        assert (
            done.header("location")
            == f"{APP}/auth/new-user?callbackUrl={quote(APP + '/home', safe='')}"
        )
        session = (await client.get("session")).data()
        assert session["user"]["email"] == "ada@example.com"
        # The second sign-in finds the user the database numbered.
        again = AuthClient(client.config, origin=APP)
        assert (await sign_in_by_email(again, outbox, "ada@example.com")).header(
            "location"
        ) == f"{APP}/home"
        form = {"csrfToken": await client.csrf_token()}
        out = await client.post("signout", form=form)
        assert out.status == 302
        assert (await client.get("session")).data() is None
        assert (await again.get("session")).data()["user"]["email"] == "ada@example.com"
    assert warned(caplog, "database-tables-missing")
    assert errors(caplog) == []  # nothing configured here needs authui's tables
    assert await tables_in(database) == set(AUTHJS_TABLES)  # nothing was added


async def test_what_needs_authuis_tables_says_so_at_start_up(
    database: str, caplog: pytest.LogCaptureFixture
) -> None:
    config = email_config(database, Outbox(), Password())
    options = resolve(config)
    try:
        await ready(options)
        logged = errors(caplog)
        assert len(logged) == 1, logged
        assert "MissingAdapterMethods: Password accounts cannot work" in logged[0]
        assert "authui_passwords" in logged[0]
        assert "`authui db init --adopt --url " in logged[0]
        assert "leaves Auth.js's as they are" in logged[0]
        # The rest of the app runs: a password sign-in is answered, not a traceback.
        client = AuthClient(config, origin=APP)
        form = {
            "csrfToken": await client.csrf_token(),
            "email": "ada@example.com",
            "password": "correct horse battery staple",
        }
        refused = await client.post("callback/password", form=form)
        assert refused.status == 302
        assert "error=CredentialsSignin" in str(refused.header("location"))
    finally:
        await options.config.adapter.close()


async def test_passkeys_work_on_auth_js_tables_alone(database: str) -> None:
    adapter = adapter_from_url(database)
    config = make_config(
        providers=[Passkey()],
        adapter=adapter,
        experimental=Experimental(enable_webauthn=True),
    )
    client = AuthClient(config, origin=APP)
    try:
        key, done = await register(client, "grace@example.com", SoftAuthenticator(APP))
        assert sets_session(done), done.text
        browser = AuthClient(config, origin=APP)
        csrf = await browser.csrf_token()
        asked = await browser.get("webauthn-options/passkey?action=authenticate")
        form = {
            "csrfToken": csrf,
            "action": "authenticate",
            "data": json.dumps(key.authenticate(asked.data()["options"])),
            "callbackUrl": f"{APP}/home",
        }
        signed_in = await browser.post("callback/passkey", form=form)
        assert signed_in.header("location") == f"{APP}/home"
        assert (await browser.get("session")).data()["user"]["email"] == "grace@example.com"
    finally:
        await adapter.close()  # type: ignore[attr-defined]
    assert await tables_in(database) == set(AUTHJS_TABLES)


async def test_adopting_adds_authuis_tables_in_one_command(
    database: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with SQLAlchemyAdapter(database) as adapter:
        result = await SchemaMigrator(adapter).init(adopt=True)
    assert (result.adopted, result.after) == (True, LATEST_VERSION)
    assert set(AUTHJS_TABLES) < await tables_in(database)
    caplog.clear()
    async with email_site(database) as (client, outbox):
        done = await sign_in_by_email(client, outbox, "ada@example.com")
        assert done.status == 302
        calls = resolve(client.config).adapter
        assert calls is not None
        assert calls.has("increment_rate_limit")  # the limits are shared now
        assert calls.has("list_user_sessions")
    assert not warned(caplog, "database-tables-missing")


def test_a_session_auth_js_wrote_is_read_with_its_integer_ids(
    postgres_url: str, pg_adapter_peer: PgAdapter
) -> None:
    """``@auth/pg-adapter`` creates a user and a database session; authui, given only the
    URL, reads the session from the cookie and signs it out."""
    with authjs_database(postgres_url) as url:
        expires = datetime.now(UTC) + timedelta(days=1)
        answers = pg_adapter_peer.run(
            url,
            "public",
            [
                {
                    "name": "user",
                    "method": "createUser",
                    "args": [{"name": "Fill", "email": "fill@murray.com", "emailVerified": None}],
                },
                {
                    "name": "session",
                    "method": "createSession",
                    "args": [
                        {
                            "sessionToken": "from-nextjs",
                            "userId": {"$ref": "user", "path": ["id"]},
                            "expires": js_date(expires),
                        }
                    ],
                },
            ],
        )
        assert isinstance(answers["user"]["result"]["id"], int)

        async def read() -> tuple[Any, Any]:
            config = make_config(providers=[], adapter=url)
            client = AuthClient(config, origin=APP, cookies={"authjs.session-token": "from-nextjs"})
            try:
                session = (await client.get("session")).data()
                form = {"csrfToken": await client.csrf_token()}
                await client.post("signout", form=form)
                engine = create_async_engine(url)
                async with engine.connect() as conn:
                    left = (await conn.execute(text("SELECT count(*) FROM sessions"))).scalar()
                await engine.dispose()
                return session, left
            finally:
                await resolve(config).config.adapter.close()

        session, left = run_isolated(read)
        assert session["user"] == {"name": "Fill", "email": "fill@murray.com", "image": None}
        assert left == 0


DEMO = """
import asyncio, json
from demo.app import app

async def main():
    await app.startup()
    client = app.test_client()
    headers = {"Host": "127.0.0.1:5077"}
    csrf = (await (await client.get("/auth/csrf", headers=headers)).get_json())["csrfToken"]
    form = {"csrfToken": csrf, "username": "demo", "password": "demo", "callbackUrl": "/"}
    signed_in = await client.post("/auth/callback/credentials", form=form, headers=headers)
    session = await (await client.get("/auth/session", headers=headers)).get_json()
    print(json.dumps({"status": signed_in.status_code, "session": session}))
    await app.shutdown()

asyncio.run(main())
"""


@pytest.mark.parametrize("server", ["postgres", "mariadb"])
def test_the_demo_starts_on_a_database_auth_js_made(
    server: str, request: pytest.FixtureRequest
) -> None:
    """``AUTH_DATABASE_URL`` at Auth.js's tables alone (``SERIAL`` ids): the demo starts,
    its demo user signs in, and the start-up log names what needs authui's tables."""
    with authjs_database(request.getfixturevalue(f"{server}_url")) as url:
        # as an Auth.js app's environment has it: no SQLAlchemy driver named
        plain = url.replace("postgresql+asyncpg://", "postgres://").replace(
            "mysql+asyncmy://", "mysql://"
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("AUTH_")}
        env |= {
            "AUTH_URL": "http://127.0.0.1:5077",
            "AUTH_SECRET": secrets.token_urlsafe(32),
            "AUTH_DATABASE_URL": plain,
        }
        ran = subprocess.run(
            [sys.executable, "-c", DEMO],
            cwd=Path(__file__).resolve().parents[2],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert ran.returncode == 0, ran.stderr
    answer = json.loads(ran.stdout)
    assert answer["status"] == 302
    assert answer["session"]["user"]["name"] == "Demo User"
    assert answer["session"]["user"]["id"] == "1"  # numbered by the database
    assert "Traceback" not in ran.stderr
    assert "[auth][warn][database-tables-missing]" in ran.stderr
    assert "Password accounts cannot work" in ran.stderr
    assert "authui db init --adopt --url" in ran.stderr


async def test_a_two_step_policy_fails_closed_without_its_tables(
    database: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A policy that asks everyone for a second factor cannot be met without the
    enrolments' table: the start-up says so, and a sign-in is refused, not let through
    with one step."""

    def everyone(**_: Any) -> bool:
        return True

    async with email_site(database, mfa=MfaOptions(policy=everyone)) as (client, outbox):
        await ready(resolve(client.config))
        [logged] = errors(caplog)
        assert "A two-step verification policy cannot work" in logged
        assert "authui_mfa" in logged
        done = await sign_in_by_email(client, outbox, "ada@example.com")
        assert "error=Configuration" in str(done.header("location"))
        assert (await client.get("session")).data() is None


async def test_the_integration_says_so_when_the_app_starts(
    database: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Before any request: the Quart app's start-up readies the adapter and logs what the
    database lacks."""
    app = Quart(__name__)
    AuthUI(app, email_config(database, Outbox(), Password()))
    await app.startup()
    try:
        assert warned(caplog, "database-tables-missing")
        assert any("Password accounts cannot work" in line for line in errors(caplog))
    finally:
        await app.shutdown()
