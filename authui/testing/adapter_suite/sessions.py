"""The suite's tests of database sessions, verification tokens and dates."""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
import uuid

from authui.adapters.base import (
    Adapter,
)
from authui.config import AuthConfig, SessionOptions
from authui.csrf import token_hash
from authui.mail.message import VerificationEmail
from authui.providers.email import EmailProvider
from authui.testing.adapter_suite.common import (
    SECRET,
    ConformanceBase,
    absent,
    add_user,
    check_dates_utc,
    date_in,
    email_of,
    expect,
    new_account,
    new_session,
    new_token,
    present,
    same,
    same_or_none,
)
from authui.testing.client import AuthClient


class SessionConformance(ConformanceBase):
    """Database sessions, sign-in tokens (once, also under concurrency), UTC dates."""

    # -- sessions -------------------------------------------------------------------------

    async def test_create_session_and_get_session_and_user(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        other = await add_user(adapter)
        session = new_session(user.id)
        same(await adapter.create_session(session), session, "create_session")
        await adapter.create_session(new_session(other.id))

        found = await adapter.get_session_and_user(session.session_token)
        pair = present(found, "get_session_and_user")
        expect(
            isinstance(pair, tuple) and len(pair) == 2,
            f"get_session_and_user returned {pair!r}; expected (session, user)",
        )
        same(pair[0], session, "get_session_and_user: session")
        same(pair[1], user, "get_session_and_user: user")

    async def test_get_session_and_user_invalid_token_is_none(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        await adapter.create_session(new_session(user.id))
        absent(
            await adapter.get_session_and_user(str(uuid.uuid4())),
            "get_session_and_user(invalid token)",
        )

    async def test_update_session_changes_expires(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        session = new_session(user.id)
        await adapter.create_session(session)
        later = date_in(days=60, microsecond=111_222)
        expected = dataclasses.replace(session, expires=later)

        updated = await adapter.update_session(session.session_token, later)
        same(updated, expected, "update_session")
        pair = present(
            await adapter.get_session_and_user(session.session_token),
            "get_session_and_user after update_session",
        )
        same(pair[0], expected, "get_session_and_user after update_session: session")
        same(pair[1], user, "get_session_and_user after update_session: user")

    async def test_update_session_unknown_token_is_none(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        await adapter.create_session(new_session(user.id))
        token = str(uuid.uuid4())
        absent(
            await adapter.update_session(token, date_in(days=60, microsecond=0)),
            "update_session(unknown token)",
        )
        absent(
            await adapter.get_session_and_user(token),
            "get_session_and_user after update_session(unknown token)",
        )

    async def test_delete_session(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        session = new_session(user.id)
        kept = new_session(user.id)
        await adapter.create_session(session)
        await adapter.create_session(kept)

        deleted = await adapter.delete_session(session.session_token)
        same_or_none(deleted, session, "delete_session")
        absent(
            await adapter.get_session_and_user(session.session_token),
            "get_session_and_user after delete_session",
        )
        pair = present(
            await adapter.get_session_and_user(kept.session_token),
            "get_session_and_user of the user's other session after delete_session",
        )
        same(pair[0], kept, "the user's other session")
        same(await adapter.get_user(user.id), user, "get_user after delete_session")

    async def test_concurrent_session_checks_each_get_their_own(self, adapter: Adapter) -> None:
        """Many checks at once (an adapter may read them together): each finds its own
        session and user, and an unknown token finds nothing."""
        users = [await add_user(adapter) for _ in range(5)]
        sessions = [new_session(users[n % 5].id) for n in range(40)]
        for session in sessions:
            await adapter.create_session(session)
        tokens = [s.session_token for s in sessions] + [str(uuid.uuid4()) for _ in range(10)]
        order = [*tokens, *reversed(tokens), *tokens]
        found = await asyncio.gather(*(adapter.get_session_and_user(t) for t in order))
        expected = {s.session_token: (s, users[n % 5]) for n, s in enumerate(sessions)}
        for token, pair in zip(order, found, strict=True):
            if token not in expected:
                absent(pair, "get_session_and_user(unknown token), among concurrent checks")
                continue
            session, user = present(pair, "get_session_and_user, among concurrent checks")
            same(session, expected[token][0], "a concurrent check's session")
            same(user, expected[token][1], "a concurrent check's user")

    async def test_deleting_what_is_not_there_returns_none(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        await adapter.create_session(new_session(user.id))
        await adapter.link_account(new_account(user.id))
        absent(await adapter.delete_session(str(uuid.uuid4())), "delete_session(unknown)")
        absent(await adapter.unlink_account("github", str(uuid.uuid4())), "unlink_account(unknown)")
        absent(await adapter.delete_user(str(uuid.uuid4())), "delete_user(unknown)")
        same(await adapter.get_user(user.id), user, "get_user after deleting unknown keys")

    # -- verification tokens --------------------------------------------------------------

    async def test_create_and_use_verification_token(self, adapter: Adapter) -> None:
        _, token = new_token()
        created = await adapter.create_verification_token(token)
        same_or_none(created, token, "create_verification_token")
        used = await adapter.use_verification_token(token.identifier, token.token)
        same(used, token, "use_verification_token")

    async def test_use_verification_token_twice_is_none(self, adapter: Adapter) -> None:
        _, token = new_token()
        await adapter.create_verification_token(token)
        present(
            await adapter.use_verification_token(token.identifier, token.token),
            "use_verification_token (first use)",
        )
        absent(
            await adapter.use_verification_token(token.identifier, token.token),
            "use_verification_token (second use)",
        )

    async def test_use_verification_token_wrong_identifier_is_none(self, adapter: Adapter) -> None:
        _, token = new_token()
        await adapter.create_verification_token(token)
        wrong = f"mallory.{uuid.uuid4().hex[:12]}@example.com"
        absent(
            await adapter.use_verification_token(wrong, token.token),
            "use_verification_token(wrong identifier)",
        )
        # A failed lookup consumes nothing: the right identifier still gets the token.
        same(
            await adapter.use_verification_token(token.identifier, token.token),
            token,
            "use_verification_token after a wrong-identifier attempt",
        )

    async def test_verification_token_is_stored_as_given(self, adapter: Adapter) -> None:
        raw, token = new_token()
        await adapter.create_verification_token(token)
        absent(
            await adapter.use_verification_token(token.identifier, raw),
            "use_verification_token(raw, unhashed token)",
        )
        used = same(
            await adapter.use_verification_token(token.identifier, token.token),
            token,
            "use_verification_token(hashed token)",
        )
        expect(
            used.token == token_hash(raw, SECRET),
            f"use_verification_token returned token {used.token!r}; expected the caller's hash",
        )

    async def test_verification_tokens_are_keyed_by_identifier_and_token(
        self, adapter: Adapter
    ) -> None:
        _, first = new_token()
        _, second = new_token(first.identifier)  # a second link sent to the same address
        _, elsewhere = new_token()
        for token in (first, second, elsewhere):
            await adapter.create_verification_token(token)
        absent(
            await adapter.use_verification_token(elsewhere.identifier, first.token),
            "use_verification_token(another identifier, this token)",
        )
        for token in (first, second, elsewhere):
            same(
                await adapter.use_verification_token(token.identifier, token.token),
                token,
                "use_verification_token with three tokens stored, two for one identifier",
            )

    async def test_use_verification_token_is_atomic(self, adapter: Adapter) -> None:
        _, token = new_token()
        await adapter.create_verification_token(token)
        results = await asyncio.gather(
            *(
                adapter.use_verification_token(token.identifier, token.token)
                for _ in range(self.concurrency)
            )
        )
        winners = [result for result in results if result is not None]
        expect(
            len(winners) == 1,
            f"{len(winners)} of {self.concurrency} concurrent use_verification_token calls "
            "got the token; expected exactly 1",
        )
        same(winners[0], token, "use_verification_token (the one concurrent winner)")
        absent(
            await adapter.use_verification_token(token.identifier, token.token),
            "use_verification_token after the race",
        )

    async def test_one_magic_link_followed_by_many_browsers_signs_in_once(
        self, adapter: Adapter
    ) -> None:
        """The email flow through authui on this adapter: ``concurrency`` browsers follow
        one sign-in link at once, and exactly one of them is signed in (``one_click``: the
        link signs in when opened, as in Auth.js)."""
        sent: list[VerificationEmail] = []

        async def keep(message: VerificationEmail, provider: EmailProvider) -> None:
            sent.append(message)

        config = AuthConfig(
            providers=[EmailProvider(transport=keep, limits=None, one_click=True)],
            adapter=adapter,
            secret=secrets.token_urlsafe(32),
            trust_host=True,
            session=SessionOptions(strategy="database"),
        )
        first = AuthClient(config)
        form = {"csrfToken": await first.csrf_token(), "email": f"{uuid.uuid4().hex}@example.com"}
        await first.post("signin/email", form=form)
        expect(len(sent) == 1, f"the sign-in request sent {len(sent)} emails, not 1")
        path = sent[0].url.removeprefix(first.url(""))
        answers = await asyncio.gather(
            *(AuthClient(config).get(path) for _ in range(self.concurrency))
        )
        signed_in = [a for a in answers if "error=" not in (a.header("location") or "error=")]
        expect(
            len(signed_in) == 1,
            f"{len(signed_in)} of {self.concurrency} browsers following one sign-in link were "
            "signed in; expected exactly 1",
        )

    # -- dates ----------------------------------------------------------------------------

    async def test_returned_dates_are_aware_utc(self, adapter: Adapter) -> None:
        user = await add_user(adapter)
        account = new_account(user.id)
        session = new_session(user.id)
        _, token = new_token(user.email)
        await adapter.link_account(account)

        returned: list[tuple[str, object]] = [
            ("get_user", await adapter.get_user(user.id)),
            ("get_user_by_email", await adapter.get_user_by_email(email_of(user))),
            (
                "get_user_by_account",
                await adapter.get_user_by_account(account.provider, account.provider_account_id),
            ),
            (
                "update_user",
                await adapter.update_user(
                    user.id, {"email_verified": date_in(days=0, microsecond=1)}
                ),
            ),
            ("create_session", await adapter.create_session(session)),
            (
                "update_session",
                await adapter.update_session(session.session_token, date_in(days=9, microsecond=9)),
            ),
            ("create_verification_token", await adapter.create_verification_token(token)),
            (
                "use_verification_token",
                await adapter.use_verification_token(token.identifier, token.token),
            ),
        ]
        pair = present(
            await adapter.get_session_and_user(session.session_token), "get_session_and_user"
        )
        returned += [("get_session_and_user: session", pair[0])]
        returned += [("get_session_and_user: user", pair[1])]
        returned += [("delete_session", await adapter.delete_session(session.session_token))]
        returned += [("delete_user", await adapter.delete_user(user.id))]

        must_return = {
            "get_user",
            "get_user_by_email",
            "get_user_by_account",
            "update_user",
            "create_session",
            "update_session",
            "use_verification_token",
        }
        for what, record in returned:
            if record is None:
                expect(what not in must_return, f"{what} returned None")
                continue
            check_dates_utc(record, what)
