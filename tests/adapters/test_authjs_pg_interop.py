"""One PostgreSQL database, two stacks: Auth.js's own adapter (``@auth/pg-adapter`` over
node-postgres, run by node) and ``SQLAlchemyAdapter(id_type="integer")`` read what the
other wrote.

The module makes a PostgreSQL schema of its own and Auth.js's tables in it with the DDL
the pg adapter documents (``SERIAL`` ids). Both sides find the tables through
``search_path`` (node: the ``-c search_path=…`` startup option; authui: asyncpg's
``server_settings``), not through a schema-qualified name. authui writes its records
first; then one node process both writes Auth.js's records (``createUser``,
``linkAccount``, ``createSession``, ``createVerificationToken``) and reads authui's
(``getUser``, ``getUserByEmail``, ``getUserByAccount``, ``getSessionAndUser``,
``useVerificationToken``); the tests compare. Each side also writes a user without email
(signed in through Twitter/X) with an account, and the other reads it by id and account.
A JavaScript ``Date`` holds milliseconds, so dates are compared to the millisecond.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest

from authui.adapters.base import AdapterAccount, AdapterSession, AdapterUser, VerificationToken
from authui.adapters.sqlalchemy import SQLAlchemyAdapter
from tests.peers import pgadapter_node
from tests.peers.pgadapter_node import (
    AUTHJS_DDL,
    Answer,
    Call,
    PgAdapter,
    fresh_schema,
    js_date,
    run_isolated,
    to_ms,
)

pg_adapter_peer = pgadapter_node.pg_adapter_peer  # fails under CI, skips elsewhere, without node

KEY = uuid.uuid4().hex[:8]

# What Auth.js writes (through the pg adapter) -----------------------------------------

NODE_VERIFIED = datetime(2024, 5, 1, 12, 0, 0, 123_000, tzinfo=UTC)
NODE_EXPIRES = datetime(2031, 1, 2, 3, 4, 5, 678_000, tzinfo=UTC)
NODE_USER: dict[str, Any] = {
    "name": "Fill Murray",
    "email": f"fill.{KEY}@murray.com",
    "emailVerified": js_date(NODE_VERIFIED),
    "image": "https://www.fillmurray.com/460/300",
}
NODE_BARE_USER: dict[str, Any] = {
    "email": f"bare.{KEY}@murray.com"
}  # name, image, emailVerified: undefined
NODE_ACCOUNT: dict[str, Any] = {
    "type": "oauth",
    "provider": "github",
    "providerAccountId": f"gh-{KEY}",
    "access_token": "gho_16C7e42F292c6912E7710c838347Ae178B4a",
    "refresh_token": "ghr_1B4a2e77838347a7E420ce178F2E7c6912E169246c",
    "expires_at": 1_900_000_000,
    "id_token": "eyJhbGciOiJSUzI1NiJ9.e30.c2ln",
    "scope": "read:user user:email",
    "session_state": "state-xyz",
    "token_type": "bearer",
}
NODE_OIDC_ACCOUNT: dict[str, Any] = {  # the optional OAuth fields left out
    "type": "oidc",
    "provider": "google",
    "providerAccountId": f"1170{KEY}",
    "access_token": "ya29.a0Af",
    "expires_at": 1_700_000_000,
    "token_type": "Bearer",
    "scope": "openid email",
}
NODE_NO_EMAIL_USER: dict[str, Any] = {"name": "Bill Murray", "email": None}
NODE_TWITTER_ACCOUNT: dict[str, Any] = {
    "type": "oauth",
    "provider": "twitter",
    "providerAccountId": f"tw-node-{KEY}",
}
NODE_SESSION_TOKEN = f"node-session-{KEY}"
NODE_TOKEN: dict[str, Any] = {"identifier": NODE_USER["email"], "token": f"node-hashed-{KEY}"}

# What authui writes (the user's id is the database's) -----------------------------------

AUTHUI_VERIFIED = datetime(2024, 6, 1, 9, 30, 15, 987_654, tzinfo=UTC)  # microseconds
AUTHUI_EXPIRES = datetime(2032, 2, 3, 4, 5, 6, 789_123, tzinfo=UTC)
AUTHUI_EMAIL = f"ada.{KEY}@example.com"
AUTHUI_USER = AdapterUser(
    id=str(uuid.uuid4()),  # replaced by the SERIAL id
    email=AUTHUI_EMAIL,
    email_verified=AUTHUI_VERIFIED,
    name="Ada Lovelace",
    image="https://x/ada.png",
)
AUTHUI_BARE_USER = AdapterUser(id=str(uuid.uuid4()), email=f"bare.{KEY}@example.com")
AUTHUI_NO_EMAIL_USER = AdapterUser(id=str(uuid.uuid4()), name="Grace Hopper")
AUTHUI_TWITTER_ACCOUNT_ID = f"tw-authui-{KEY}"


def authui_account(user_id: str) -> AdapterAccount:
    return AdapterAccount(
        user_id=user_id,
        type="oidc",
        provider="keycloak",
        provider_account_id=f"kc-{KEY}",
        access_token="eyJ.access",
        refresh_token="eyJ.refresh",
        expires_at=1_800_000_001,
        id_token="eyJ.id",
        scope="openid profile email",
        token_type="Bearer",
        session_state="c0ffee",
    )


AUTHUI_SESSION_TOKEN = f"authui-session-{KEY}"
AUTHUI_TOKEN = VerificationToken(
    identifier=AUTHUI_EMAIL, token=f"authui-hashed-{KEY}", expires=AUTHUI_EXPIRES
)


@dataclass(frozen=True)
class World:
    """The module's database after both sides wrote: where it is, authui's ids, and what
    node answered for each call by name."""

    url: str
    schema: str
    authui_user_id: str
    authui_bare_user_id: str
    authui_no_email_user_id: str
    node: dict[str, Answer]

    def result(self, name: str) -> Any:
        answer = self.node[name]
        assert "error" not in answer, f"{name}: {answer}"
        return answer["result"]

    def adapter(self) -> SQLAlchemyAdapter:
        return adapter_for(self.url, self.schema)


def adapter_for(url: str, schema: str) -> SQLAlchemyAdapter:
    """authui over Auth.js's tables, found through ``search_path`` like the node side."""
    return SQLAlchemyAdapter(
        url,
        id_type="integer",
        engine_options={"connect_args": {"server_settings": {"search_path": schema}}},
    )


async def authui_writes(url: str, schema: str) -> tuple[str, str, str]:
    """authui's records; the three users' ids."""
    async with adapter_for(url, schema) as adapter:
        user = await adapter.create_user(AUTHUI_USER)
        bare = await adapter.create_user(AUTHUI_BARE_USER)
        no_email = await adapter.create_user(AUTHUI_NO_EMAIL_USER)
        await adapter.link_account(authui_account(user.id))
        await adapter.link_account(
            AdapterAccount(
                user_id=no_email.id,
                type="oauth",
                provider="twitter",
                provider_account_id=AUTHUI_TWITTER_ACCOUNT_ID,
            )
        )
        await adapter.create_session(
            AdapterSession(
                session_token=AUTHUI_SESSION_TOKEN, user_id=user.id, expires=AUTHUI_EXPIRES
            )
        )
        await adapter.create_verification_token(AUTHUI_TOKEN)
    return user.id, bare.id, no_email.id


def node_calls(
    authui_user_id: str, authui_bare_user_id: str, authui_no_email_id: str
) -> list[Call]:
    """Auth.js writes its records, then reads authui's."""
    user_id = int(authui_user_id)
    node_id = {"$ref": "createUser", "path": ["id"]}
    bare_id = {"$ref": "createBareUser", "path": ["id"]}
    no_email_id = {"$ref": "createNoEmailUser", "path": ["id"]}
    twitter = {"provider": "twitter", "providerAccountId": AUTHUI_TWITTER_ACCOUNT_ID}
    account = {"provider": "keycloak", "providerAccountId": f"kc-{KEY}"}
    token = {"identifier": AUTHUI_TOKEN.identifier, "token": AUTHUI_TOKEN.token}
    calls: list[tuple[str, str, list[Any]]] = [
        # Auth.js writes
        ("createUser", "createUser", [NODE_USER]),
        ("createBareUser", "createUser", [NODE_BARE_USER]),
        ("linkAccount", "linkAccount", [{**NODE_ACCOUNT, "userId": node_id}]),
        ("linkOidcAccount", "linkAccount", [{**NODE_OIDC_ACCOUNT, "userId": bare_id}]),
        ("createNoEmailUser", "createUser", [NODE_NO_EMAIL_USER]),
        ("linkTwitterAccount", "linkAccount", [{**NODE_TWITTER_ACCOUNT, "userId": no_email_id}]),
        (
            "createSession",
            "createSession",
            [
                {
                    "sessionToken": NODE_SESSION_TOKEN,
                    "userId": node_id,
                    "expires": js_date(NODE_EXPIRES),
                }
            ],
        ),
        (
            "createVerificationToken",
            "createVerificationToken",
            [{**NODE_TOKEN, "expires": js_date(NODE_EXPIRES)}],
        ),
        # Auth.js reads what authui wrote
        ("getUser", "getUser", [user_id]),
        ("getBareUser", "getUser", [int(authui_bare_user_id)]),
        ("getUserByEmail", "getUserByEmail", [AUTHUI_EMAIL]),
        ("getUserByAccount", "getUserByAccount", [account]),
        ("getNoEmailUser", "getUser", [int(authui_no_email_id)]),
        ("getNoEmailUserByAccount", "getUserByAccount", [twitter]),
        ("getSessionAndUser", "getSessionAndUser", [AUTHUI_SESSION_TOKEN]),
        ("useVerificationToken", "useVerificationToken", [token]),
        ("useVerificationTokenAgain", "useVerificationToken", [token]),
    ]
    return [{"name": name, "method": method, "args": args} for name, method, args in calls]


@pytest.fixture(scope="module")
def world(postgres_url: str, pg_adapter_peer: PgAdapter) -> Iterator[World]:
    """Auth.js's tables in a fresh schema, written by both sides (see the module's doc)."""
    with fresh_schema(postgres_url, "authui_pgi_", AUTHJS_DDL) as schema:
        ids = run_isolated(lambda: authui_writes(postgres_url, schema))
        answers = pg_adapter_peer.run(postgres_url, schema, node_calls(*ids))
        yield World(postgres_url, schema, *ids, answers)


@pytest.fixture
async def adapter(world: World) -> AsyncIterator[SQLAlchemyAdapter]:
    async with world.adapter() as adapter:
        yield adapter


# Auth.js writes, authui reads ---------------------------------------------------------


def node_user(world: World) -> AdapterUser:
    """The user Auth.js created, as authui should read it."""
    return AdapterUser(
        id=str(world.result("createUser")["id"]),
        email=NODE_USER["email"],
        email_verified=NODE_VERIFIED,
        name=NODE_USER["name"],
        image=NODE_USER["image"],
    )


async def test_node_wrote_its_records(world: World) -> None:
    created = world.result("createUser")
    assert isinstance(created["id"], int)
    assert created["emailVerified"] == NODE_VERIFIED
    assert world.result("linkAccount")["expires_at"] == NODE_ACCOUNT["expires_at"]
    assert world.result("createSession")["expires"] == NODE_EXPIRES
    assert world.result("createVerificationToken")["expires"] == NODE_EXPIRES


async def test_authui_reads_users_auth_js_created(world: World, adapter: SQLAlchemyAdapter) -> None:
    expected = node_user(world)
    assert await adapter.get_user(expected.id) == expected
    assert await adapter.get_user_by_email(NODE_USER["email"]) == expected
    bare_id = str(world.result("createBareUser")["id"])
    bare = AdapterUser(id=bare_id, email=NODE_BARE_USER["email"])
    assert await adapter.get_user(bare_id) == bare
    assert await adapter.get_user_by_email(NODE_BARE_USER["email"]) == bare


async def test_authui_reads_accounts_auth_js_linked(
    world: World, adapter: SQLAlchemyAdapter
) -> None:
    expected = node_user(world)
    assert await adapter.get_user_by_account("github", f"gh-{KEY}") == expected
    account = await adapter.get_account(f"gh-{KEY}", "github")
    assert account == AdapterAccount(
        user_id=expected.id,
        type="oauth",
        provider="github",
        provider_account_id=f"gh-{KEY}",
        access_token=NODE_ACCOUNT["access_token"],
        refresh_token=NODE_ACCOUNT["refresh_token"],
        expires_at=NODE_ACCOUNT["expires_at"],
        id_token=NODE_ACCOUNT["id_token"],
        scope=NODE_ACCOUNT["scope"],
        token_type=NODE_ACCOUNT["token_type"],
        session_state=NODE_ACCOUNT["session_state"],
    )
    bare_id = str(world.result("createBareUser")["id"])
    oidc = await adapter.get_account(f"1170{KEY}", "google")
    assert oidc == AdapterAccount(
        user_id=bare_id,
        type="oidc",
        provider="google",
        provider_account_id=f"1170{KEY}",
        access_token="ya29.a0Af",
        expires_at=1_700_000_000,
        token_type="Bearer",
        scope="openid email",
    )
    assert await adapter.get_user_by_account("google", f"1170{KEY}") == AdapterUser(
        id=bare_id, email=NODE_BARE_USER["email"]
    )


async def test_authui_reads_a_user_without_email_auth_js_created(
    world: World, adapter: SQLAlchemyAdapter
) -> None:
    user_id = str(world.result("createNoEmailUser")["id"])
    expected = AdapterUser(id=user_id, name=NODE_NO_EMAIL_USER["name"])
    assert await adapter.get_user(user_id) == expected
    assert await adapter.get_user_by_account("twitter", f"tw-node-{KEY}") == expected


async def test_authui_reads_the_session_auth_js_created(
    world: World, adapter: SQLAlchemyAdapter
) -> None:
    expected = node_user(world)
    found = await adapter.get_session_and_user(NODE_SESSION_TOKEN)
    assert found == (
        AdapterSession(session_token=NODE_SESSION_TOKEN, user_id=expected.id, expires=NODE_EXPIRES),
        expected,
    )
    assert found[0].expires.tzinfo is not None


async def test_authui_uses_the_token_auth_js_created_once(adapter: SQLAlchemyAdapter) -> None:
    identifier, token = NODE_TOKEN["identifier"], NODE_TOKEN["token"]
    used = await adapter.use_verification_token(identifier, token)
    assert used == VerificationToken(identifier=identifier, token=token, expires=NODE_EXPIRES)
    assert await adapter.use_verification_token(identifier, token) is None


# authui writes, Auth.js reads ---------------------------------------------------------


def authjs_user(user: AdapterUser, user_id: str) -> dict[str, Any]:
    """``user`` as the pg adapter returns it: the row, dates cut to milliseconds."""
    verified = user.email_verified
    return {
        "id": int(user_id),
        "name": user.name,
        "email": user.email,
        "emailVerified": to_ms(verified) if verified else None,
        "image": user.image,
    }


async def test_auth_js_reads_users_authui_created(world: World) -> None:
    expected = authjs_user(AUTHUI_USER, world.authui_user_id)
    assert expected["emailVerified"] == datetime(2024, 6, 1, 9, 30, 15, 987_000, tzinfo=UTC)
    assert world.result("getUser") == expected
    assert world.result("getUserByEmail") == expected
    bare = authjs_user(AUTHUI_BARE_USER, world.authui_bare_user_id)
    assert world.result("getBareUser") == bare
    assert bare["name"] is bare["emailVerified"] is bare["image"] is None


async def test_auth_js_reads_a_user_without_email_authui_created(world: World) -> None:
    expected = authjs_user(AUTHUI_NO_EMAIL_USER, world.authui_no_email_user_id)
    assert expected["email"] is None
    assert world.result("getNoEmailUser") == expected
    assert world.result("getNoEmailUserByAccount") == expected


async def test_auth_js_finds_the_user_by_the_account_authui_linked(world: World) -> None:
    assert world.result("getUserByAccount") == authjs_user(AUTHUI_USER, world.authui_user_id)


async def test_auth_js_reads_the_session_authui_created(world: World) -> None:
    found = world.result("getSessionAndUser")
    assert found["user"] == authjs_user(AUTHUI_USER, world.authui_user_id)
    session = dict(found["session"])
    assert isinstance(session.pop("id"), int)
    assert session == {
        "sessionToken": AUTHUI_SESSION_TOKEN,
        "userId": int(world.authui_user_id),
        "expires": to_ms(AUTHUI_EXPIRES),
    }


async def test_auth_js_uses_the_token_authui_created_once(
    world: World, adapter: SQLAlchemyAdapter
) -> None:
    assert world.result("useVerificationToken") == {
        "identifier": AUTHUI_TOKEN.identifier,
        "token": AUTHUI_TOKEN.token,
        "expires": to_ms(AUTHUI_EXPIRES),
    }
    assert world.result("useVerificationTokenAgain") is None
    assert await adapter.use_verification_token(AUTHUI_TOKEN.identifier, AUTHUI_TOKEN.token) is None


async def test_authui_reads_its_own_records_back_from_the_shared_tables(
    world: World, adapter: SQLAlchemyAdapter
) -> None:
    """The same rows through authui: the microseconds Auth.js can't see are still there."""
    user = await adapter.get_user(world.authui_user_id)
    assert user == dataclasses.replace(AUTHUI_USER, id=world.authui_user_id)
